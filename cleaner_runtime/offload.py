"""Redact one large session's strings in helper processes while its records are still being mapped.

With ``--jobs N`` a run of many sessions cleans N sessions at once; a single large session would
still use one core, and redaction is about half of its work. Redaction is a pure function of the
string and the privacy settings, so it can run elsewhere: the session's builder leaves a hole in
the record where a long string goes, sends the string here, and the hole is filled when the
result comes back. Results are applied strictly in the order the strings were sent, together
with the builder's own size checkpoints, so the session's records, its redaction and truncation
counts, and the point at which it passes ``--max-session-mb`` are exactly those of a run without
helpers: only the time differs.
"""

from __future__ import annotations

import signal
import threading
from collections import deque
from concurrent.futures import InvalidStateError  # concurrent.futures._base: no process pool imported
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a run of one process imports no process pool (~8 ms of start-up)
    from concurrent.futures import Future, ProcessPoolExecutor

BATCH_CHARS = 1 << 18  # characters of text sent per batch
BATCH_ITEMS = 2048  # strings sent per batch
IN_FLIGHT = 4  # batches per helper sent and not yet applied: bounds the raw text held meanwhile

_PRIVACY: Any = None

try:  # the optional fast extra: only to bound lengths here, never for output
    import orjson
except ImportError:
    orjson = None


def serialised_bound(value: Any) -> int:
    """At least ``len(compact(value))``, cheaply.

    orjson writes the same strings, escapes and structure as ``json.dumps(ensure_ascii=False)``, in
    UTF-8 bytes (never fewer than characters); only its floats can be shorter (``1e16`` for
    ``1e+16``, ``null`` for ``-Infinity``: at most 2.25 times), so three times its length bounds
    json's. What orjson refuses (big integers, lone surrogates, non-string keys) is measured by json.
    """
    if orjson is not None:
        try:
            return 3 * len(orjson.dumps(value))
        except TypeError:
            pass
    from .convert import compact

    return len(compact(value))


_STOPPING = False  # in a pool's process: the main process has asked it to stop (SIGTERM)
_IN_TASK = False  # in a pool's process: run_task is running a task


def _stop_requested(signum: int, frame: Any) -> None:
    global _STOPPING
    _STOPPING = True
    if _IN_TASK:
        raise KeyboardInterrupt


def pool_process_signals() -> None:
    """In a process of a pool (a sessions' worker or a helper): Ctrl-C is left to the main process,
    which stops its pools (``stop_now``); SIGTERM ends the task running with KeyboardInterrupt, and
    every later one as it starts (``run_task``), but never the process itself. So it is never cut
    off while it talks to the pool: a process killed halfway through sending its result leaves the
    pool's manager thread waiting for the rest forever (and the run with it), and one killed holding
    a queue's lock blocks the others. The task's KeyboardInterrupt goes back as its result, and the
    process leaves when the pool, winding down, tells it to. Where a task writes a file, the write
    holds SIGTERM until the rename (writer.py), so a file is finished or removed, never left half."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_requested)


def run_task(fn: Any, *args: Any) -> Any:
    """``fn(*args)`` in a pool's process, unless SIGTERM has asked the process to stop (see
    ``pool_process_signals``)."""
    global _IN_TASK
    _IN_TASK = True  # first: a SIGTERM from here on raises, and one before has set _STOPPING
    try:
        if _STOPPING:
            raise KeyboardInterrupt
        return fn(*args)
    finally:
        _IN_TASK = False


def _init_helper(settings: dict) -> None:
    global _PRIVACY
    from .convert import Privacy

    pool_process_signals()
    _PRIVACY = Privacy(settings)


def _clean_batch(items: list[tuple[str, Any, bool]]) -> list[tuple[str, tuple, int]]:
    return run_task(_clean_items, items)


def _clean_items(items: list[tuple[str, Any, bool]]) -> list[tuple[str, tuple, int]]:
    """Each item cleaned as the main process would: (result, redactions counted, strings truncated)."""
    privacy = _PRIVACY
    counts = privacy.counts
    out = []
    for op, value, tool in items:
        if counts:
            counts.clear()
        before = privacy.truncated
        result = privacy.args(value) if op == "args" else privacy.text(value, tool=tool)
        out.append((result, tuple(counts.items()) if counts else (), privacy.truncated - before))
    return out


def stop_now(pool: ProcessPoolExecutor) -> None:
    """After an interruption: drop the work ``pool`` has not started, end the work its processes are
    doing, and return once the pool's manager thread has wound it up; used for the sessions' workers
    and for the helpers alike. The processes are sent SIGTERM, which ends their tasks, not them (see
    ``pool_process_signals``): a process writing a file finishes it first, so this waits for that
    file and no longer.

    Two things of the library's own are read, here only: the pool's processes and its manager
    thread. No public API lists them before Python 3.14 (whose ``terminate_workers`` does the
    shutdown and terminate below), and ``shutdown`` sets both attributes to None, so they are read
    before it (the two copies of this code before it read ``_processes`` after the shutdown, got
    None, and so never stopped a process).

    The join, and the hook: after a Ctrl-C or SIGTERM, ``Executor.map``'s iterator cancels the
    futures not yet started, then ``shutdown(cancel_futures=True)`` asks the manager thread to drop
    them. It does so only when it next wakes, and only if the pool still exists. When a run had let
    go of the pool by then (its frames gone as it returned 130; a loaded machine need only leave
    that thread unscheduled for a moment), the cancelled futures stayed in its table while the call
    queue was full; once it saw a worker gone (terminated, as the stop did then), its
    ``terminate_broken`` called ``set_exception`` on each future of the table, which raises
    ``InvalidStateError: CANCELLED: <Future ... state=cancelled>`` for a cancelled one, and
    ``threading.excepthook`` printed that as a traceback after "interrupted" (Python 3.11; CPython
    ignores that error there since 3.12, gh-107219). Holding the pool until the manager thread has
    ended means it always finds the pool and drops the cancelled futures; the hook, which lets
    through everything but exactly that error from exactly that thread, covers a process of the
    pool that dies abruptly all the same (SIGKILL, or SIGTERM before its initializer ran). It is
    removed once the thread has ended; if a second interruption cuts the join short it stays, since
    that thread can still raise. tests/reliability/test_interrupt_race.py forces these interleavings.
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    previous = threading.excepthook

    def hook(args: Any) -> None:
        if args.thread is manager and issubclass(args.exc_type, InvalidStateError):
            return  # the manager failing a future the run had already cancelled: nothing is lost
        previous(args)

    if manager is not None:
        threading.excepthook = hook
    try:
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        if manager is not None:
            manager.join()
    finally:
        if threading.excepthook is hook and not (manager is not None and manager.is_alive()):
            threading.excepthook = previous


class Helpers:
    """The helper processes of one run (created when ``--jobs`` is above 1 and a session runs here)."""

    def __init__(self, processes: int, privacy_settings: dict):
        from concurrent.futures import ProcessPoolExecutor

        self.processes = processes
        self.pool = ProcessPoolExecutor(processes, initializer=_init_helper, initargs=(privacy_settings,))
        # start them now, before the run's writer threads exist: a forked child gets only the
        # thread that forked it, and no lock another thread might hold
        self.pool.submit(int).result()

    def stop(self, wait: bool = True) -> None:
        """Shut the helpers down; after an interruption, without waiting for their batches."""
        if wait:
            self.pool.shutdown()
        else:
            stop_now(self.pool)


class Offload:
    """One session's strings in flight, applied back in the order they were sent.

    ``text`` and ``args`` send a string (or an argument object) and name the place its result
    goes. The session-size limit stays exact without waiting on every record: ``record_done``
    keeps an upper bound of the session's size (what is known, plus for each string in flight the
    most its result can be: its truncation limit, or every character becoming a placeholder), and
    only when that bound passes the limit does it wait for the results and compare the exact
    size, which is then what a run without helpers compares at the same record.
    """

    def __init__(self, helpers: Helpers, privacy: Any, limit: int, size: int = 0):
        self.helpers = helpers
        self.privacy = privacy
        self.limit = limit
        redactor = privacy.redactor
        # a result is at most its truncation limit, or each character becoming "[REDACTED:<class>]"
        self.growth = 12 + redactor.longest_class if redactor is not None else 1
        self.items: list[tuple[str, Any, bool]] = []
        self.places: list[tuple[Any, Any, int]] = []  # (container, key, bound) per item
        self.chars = 0
        self.sent: deque[tuple[Future | None, list[tuple[Any, Any, int]]]] = deque()
        self.upper = size  # exact size of what is applied, plus the bounds of what is not

    def text(self, container: Any, key: Any, text: str, tool: bool) -> None:
        limit = self.privacy.tool_limit if tool else self.privacy.other_limit
        self._add(("text", text, tool), container, key, min(limit, self.growth * len(text)), len(text))

    def args(self, container: Any, key: Any, args: dict) -> None:
        # the result is the serialised object redacted, or that text wrapped as {"_raw": ...},
        # whose escaping at most doubles it
        length = serialised_bound(args)
        self._add(("args", args, True), container, key, 2 * self.growth * length + 16, length)

    def _add(self, item: tuple[str, Any, bool], container: Any, key: Any, bound: int, chars: int) -> None:
        self.items.append(item)
        self.places.append((container, key, bound))
        self.upper += bound
        self.chars += chars
        if self.chars >= BATCH_CHARS or len(self.items) >= BATCH_ITEMS:
            self._send()

    def record_done(self, size: int) -> int:
        """The session's size after this raw record, exact or, when it is surely within the limit,
        an upper bound; ``size`` is what the record's own parts added besides the strings sent."""
        self.upper += size
        if self.limit and self.upper > self.limit:
            self.settle()  # now exact
        return self.upper

    def _send(self) -> None:
        future = self.helpers.pool.submit(_clean_batch, self.items) if self.items else None
        self.sent.append((future, self.places))
        self.items, self.places, self.chars = [], [], 0
        while len(self.sent) > IN_FLIGHT * self.helpers.processes:
            self._apply_oldest()
        while self.sent and (self.sent[0][0] is None or self.sent[0][0].done()):
            self._apply_oldest()

    def _apply_oldest(self) -> None:
        future, places = self.sent.popleft()
        if future is None:
            return
        privacy = self.privacy
        counts = privacy.counts
        for (container, key, bound), (result, found, truncated) in zip(places, future.result()):
            container[key] = result
            self.upper += len(result) - bound
            if found:
                counts.update(dict(found))
            privacy.truncated += truncated

    def settle(self) -> None:
        """Send what is left, wait for everything and apply it: the records are then complete."""
        if self.items:
            self._send()
        while self.sent:
            self._apply_oldest()
