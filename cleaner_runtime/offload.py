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

import itertools
import json
import pickle
import sys
from collections import deque
from collections.abc import Callable
from typing import Any

BATCH_CHARS = 1 << 18  # characters of text sent per batch
BATCH_ITEMS = 2048  # strings sent per batch
PIPE_BYTES = 1 << 20  # a pipe's room (pickled, a batch is about a quarter of this; more if not ASCII)
# Batches of strings per helper not yet received; past that the main process cleans a batch itself.
# Four, not two: the helper that judges a large session's lines gets two chunks of lines (about four
# batches' work) at once every 4,096 records, and with room for only two batches the main process
# cleaned one batch in eight itself while the helper then idled a quarter of the time (#19, ninth pass)
IN_FLIGHT = 4
JUDGE_IN_FLIGHT = 8  # chunks of lines (2,048 each) a helper has yet to judge before the main process waits

_PRIVACY: Any = None

try:  # the optional fast extra: only to bound lengths here, never for output
    import orjson
except ImportError:
    orjson = None

from .writer import read_line


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


def _init_helper(settings: dict) -> None:
    global _PRIVACY
    import signal

    from .convert import Privacy

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process stops its helpers
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _PRIVACY = Privacy(settings)


TEXT, TOOL_TEXT, ARGS = 0, 1, 2  # what a batch's item is, one byte each
_TOKENS = itertools.count(1)  # RemoteJudge's session tokens
LOST = "lost"  # the answer of a RemoteJudge request whose helper was lost before it answered


def _clean_batch(batch: tuple[bytes, list], privacy: Any = None) -> tuple[list[str], list[tuple[int, tuple, int]]]:
    """Each item cleaned as the main process would: the results in order, and (index, redactions
    counted, strings truncated) for the few items that redacted or truncated anything.

    A batch is its items' kinds (a byte each: ``TEXT``, ``TOOL_TEXT``, ``ARGS``) and their values:
    a flat list of strings pickles and unpickles faster than a tuple per item, both ways, and the
    main process does its half of that. ``privacy``: the main process's own copy, when it cleans
    a batch itself; a helper uses its ``_PRIVACY``. Either counts each item apart, so the results
    are applied the same way."""
    privacy = privacy or _PRIVACY
    counts = privacy.counts
    kinds, values = batch
    out = []
    extras = []
    for i, (kind, value) in enumerate(zip(kinds, values)):
        if counts:
            counts.clear()
        before = privacy.truncated
        out.append(privacy.args(value) if kind == ARGS else privacy.text(value, tool=kind == TOOL_TEXT))
        if counts or privacy.truncated != before:
            extras.append((i, tuple(counts.items()), privacy.truncated - before))
    return out, extras


class _Judging:
    """A session a helper judges (``RemoteJudge``): its validate.Judge, its last line, and the
    first error on the way (then nothing more is judged: the session fails with it)."""

    __slots__ = ("error", "judge", "line")

    def __init__(self) -> None:
        self.judge: Any = None
        self.line = 2  # of the next line (the meta record's is line 1)
        self.error: HelperFailed | None = None


# The sessions a helper judges, by their RemoteJudge's token: with session.by: field, several large
# sessions may be open at once, their lines interleaved.
_JUDGING: dict[int, _Judging] = {}
_VALIDATORS: dict[tuple[str, bool], Any] = {}  # by schema text and partial, made once per helper


def _judging(request: tuple) -> Any:
    """A request of ``RemoteJudge``, in a helper: ``("begin", token, schema, partial, source)``,
    then ``("lines", token, chunk)`` for each chunk of JSON lines as written, then ``("end",
    token, meta_line)``, answered with the session's problems (or the HelperFailed of an error on
    the way; the answers before are True, so that an error never surfaces in the middle of other
    work); ``("drop", token)`` forgets a session that ended without its verdict."""
    op, token = request[0], request[1]
    if op == "drop":
        _JUDGING.pop(token, None)
        return True
    if op == "begin":
        state = _JUDGING[token] = _Judging()
        try:
            from .stream import session_judge
            from .validate import TrajectoryValidator

            _, _, schema, partial, source = request
            key = (json.dumps(schema, sort_keys=True), partial)
            if key not in _VALIDATORS:
                _VALIDATORS.clear()
                _VALIDATORS[key] = TrajectoryValidator(schema, partial)
            state.judge = session_judge(_VALIDATORS[key], source)
        except Exception as exc:  # noqa: BLE001 - a bug: its session fails with it, the helper serves on
            state.error = HelperFailed(f"{exc.__class__.__name__}: {exc}")
        return True
    state = _JUDGING.get(token)
    if state is None:
        return HelperFailed(f"no session {token} is being judged here") if op == "end" else True
    if state.error is None:
        try:
            from .stream import judge_lines

            if op == "lines":
                state.line = judge_lines(state.judge, request[2], state.line)
            else:
                state.judge.add_schema(read_line(request[2]), 1)
        except Exception as exc:  # noqa: BLE001 - a bug: its session fails with it, the helper serves on
            state.error = HelperFailed(f"{exc.__class__.__name__}: {exc}")
    if op != "end":
        return True
    del _JUDGING[token]
    return state.judge.end() if state.error is None else state.error


class HelperFailed(Exception):
    """Cleaning a batch raised in a helper (a bug of the cleaner, as it would be in the main
    process): the session whose batch it was fails with this, named, as for any bug there; the
    helper stays up for the next batch, and no traceback is printed from its process."""


def _helper_main(inbox: Any, outbox: Any, inherited: list, settings: Any) -> None:
    """A helper: clean each batch the main process sends, answer in order, stop on an empty one.

    A thread reads the batches as they come, so the main process's send never waits on this
    process's answer: without it, a batch larger than the pipe (one long string, or a pipe that
    could not be enlarged) sent while this process waits to write an answer larger than the
    other pipe would leave each process waiting for the other."""
    import queue
    import threading

    for conn in inherited:  # the main process's ends of the pipes, copied by the fork: only the
        conn.close()        # main process may hold them, or a helper would never see it end
    _init_helper(settings)
    batches: queue.SimpleQueue = queue.SimpleQueue()

    def read() -> None:
        try:
            while True:
                data = inbox.recv_bytes()
                batches.put(data)
                if not data:
                    return
        except (EOFError, OSError):  # the main process is gone
            batches.put(b"")

    threading.Thread(target=read, daemon=True).start()
    while True:
        data = batches.get()
        if not data:
            return
        try:
            request = pickle.loads(data)
            answer: Any = _judging(request) if request[0].__class__ is str else _clean_batch(request)
        except Exception as exc:  # noqa: BLE001 - a bug: its session fails with it, the helper serves the next
            answer = HelperFailed(f"{exc.__class__.__name__}: {exc}")
        try:
            outbox.send_bytes(pickle.dumps(answer, pickle.HIGHEST_PROTOCOL))
        except OSError:  # the main process is gone
            return


def _roomy(conn: Any) -> None:
    """Let the pipe hold ``IN_FLIGHT`` batches (Linux; elsewhere, or past the system's limit, it
    keeps its size): the main process's send then returns at once, and the helper's reading
    thread wakes (and takes the helper's interpreter lock) once a batch, not once per 64 KiB."""
    try:
        import fcntl

        fcntl.fcntl(conn.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass


class _Batch:
    """One batch of a session: the places its results go, the sum of their bounds, and its
    results once they are known (``helper``: the link it was sent on; None if cleaned here).
    ``items`` are what was sent, kept until the answer comes, so that the main process can clean
    them itself if the helper is lost on the way. ``first``: the place in the session of the
    first record its results go to. A ``judging`` batch is a request of ``RemoteJudge``, whose
    results are its answer (``LOST`` when the helper was lost before it answered)."""

    __slots__ = ("bound", "first", "helper", "items", "judging", "places", "results")

    def __init__(self, places: list, bound: int, first: int = 0, judging: bool = False):
        self.places = places
        self.bound = bound
        self.first = first
        self.judging = judging
        self.helper: _Link | None = None
        self.results: tuple | None = None
        self.items: tuple[bytes, list] | None = None


class _Link:
    """A helper process and the main process's ends of its two pipes; ``waiting``: the batches
    sent to it and not yet answered, oldest first (a helper answers in order). ``here`` cleans a
    batch in the main process: for the batches of a helper that is lost (killed from outside,
    out of memory), which is then no longer sent anything (``lost``)."""

    __slots__ = ("answers", "batches", "here", "lost", "process", "requests", "waiting")

    def __init__(self, process: Any, requests: Any, answers: Any, here: Callable[[], Any]):
        self.process = process
        self.requests = requests
        self.answers = answers
        self.here = here
        self.lost = False
        self.waiting: deque[_Batch] = deque()
        self.batches = 0  # of ``waiting``, the batches of strings (not ``RemoteJudge``'s requests)

    def send(self, batch: _Batch, items: Any) -> None:
        batch.helper = self
        batch.items = items
        self.waiting.append(batch)
        if not batch.judging:
            self.batches += 1
        try:
            self.requests.send_bytes(pickle.dumps(items, pickle.HIGHEST_PROTOCOL))
        except OSError:  # the helper is gone
            self._lose()

    def receive(self) -> None:
        """The oldest answer, waiting for it, into its batch's results: a HelperFailed when cleaning
        that batch raised, which the session whose batch it is raises when it applies it."""
        try:
            data = self.answers.recv_bytes()
        except (EOFError, OSError):  # the helper is gone: what it held is cleaned here
            self._lose()
            return
        answer = pickle.loads(data)
        batch = self.waiting.popleft()
        batch.items = None
        if not batch.judging:
            self.batches -= 1
        # kept, errors included, for the one who applies it (Offload._apply_oldest, RemoteJudge.end):
        # any session's call may read another's answer here
        batch.results = answer

    def _lose(self) -> None:
        """The helper is gone: say so once, and clean the batches it held here, in order (results
        and counts are those it would have sent)."""
        if not self.lost:
            self.lost = True
            self.process.join(1)
            print(f"notice: a helper process ended unexpectedly (exit code {self.process.exitcode}); "
                  "the main process redacts its strings from here on", file=sys.stderr)
        while self.waiting:
            batch = self.waiting.popleft()
            batch.results = LOST if batch.judging else _clean_batch(batch.items, self.here())
            batch.items = None
        self.batches = 0

    def receive_ready(self) -> None:
        """Every answer already here, without waiting."""
        while self.waiting and self.answers.poll():
            self.receive()


class Helpers:
    """The helper processes of one run (created when ``--jobs`` is above 1 and a session runs here).

    Each is a plain process with a pipe, not a ``ProcessPoolExecutor``: the executor's feeder and
    manager threads ran in the main process, and each batch woke them, so the main process handed
    its interpreter lock to them several times a batch and waited to get it back, which on a busy
    machine (or with a helper on the other core) is a wait for the scheduler. Here the main
    thread pickles and sends a batch itself, and reads the answers when it applies them."""

    def __init__(self, processes: int, privacy_settings: dict):
        self.processes = processes
        self.settings = privacy_settings
        self._here: Any = None
        # multiprocessing here: a run of one process never needs it (~8 ms of start-up). The
        # redaction package (about 0.1 s of CPU to import) is loaded here, where every session
        # needs it anyway, so that forked helpers inherit it instead of each importing it again
        # on a core the main process shares with them.
        import multiprocessing

        from . import redaction  # noqa: F401

        # started now, before the run's writer threads exist: a forked child gets only the thread
        # that forked it, and no lock another thread might hold
        self.links: list[_Link] = []
        for _ in range(processes):
            inbox, requests = multiprocessing.Pipe(duplex=False)
            answers, outbox = multiprocessing.Pipe(duplex=False)
            _roomy(requests)
            _roomy(answers)
            ours = [end for link in self.links for end in (link.requests, link.answers)] + [requests, answers]
            process = multiprocessing.Process(target=_helper_main, args=(inbox, outbox, ours, privacy_settings),
                                              daemon=True)
            process.start()
            inbox.close()
            outbox.close()
            self.links.append(_Link(process, requests, answers, self.here))

    def here(self) -> Any:
        """A Privacy of the helpers' settings in this process, for the batches cleaned here: its
        counts are its own, as a helper's are, never the session's."""
        if self._here is None:
            from .convert import Privacy

            self._here = Privacy(self.settings)
        return self._here

    def free(self) -> _Link | None:
        """The helper with the fewest batches waiting, if it has fewer than ``IN_FLIGHT``."""
        best = None
        for link in self.links:
            if link.lost:
                continue
            link.receive_ready()
            if link.batches < IN_FLIGHT and (best is None or link.batches < best.batches):
                best = link
        return best

    def stop(self, wait: bool = True) -> None:
        """Shut the helpers down; after an interruption, without waiting for their batches."""
        for link in self.links:
            if wait:
                try:
                    while link.waiting:  # a batch of a session that failed: read, so the helper can stop
                        link.receive()
                    link.requests.send_bytes(b"")
                except (OSError, EOFError):
                    pass
            elif link.process.is_alive():
                link.process.terminate()  # it dies at once (SIGTERM's default): nothing waits on its pipe
        for link in self.links:
            link.process.join()
            link.requests.close()
            link.answers.close()


class Offload:
    """One session's strings in flight, applied back in the order they were sent.

    ``text`` and ``args`` send a string (or an argument object) and name the place its result
    goes. The session-size limit stays exact without waiting on every record: ``record_done``
    keeps an upper bound of the session's size (what is known, plus for each string in flight the
    most its result can be: its truncation limit, or every character becoming a placeholder), and
    only when that bound passes the limit does it wait for the results and compare the exact
    size, which is then what a run without helpers compares at the same record.

    ``position`` gives the place in the session of the record a string sent now goes to (the
    builder's next record): ``waiting_from`` then says which records may still have a hole.
    """

    def __init__(self, helpers: Helpers, privacy: Any, limit: int, size: int = 0,
                 position: Callable[[], int] = lambda: 0):
        self.helpers = helpers
        self.privacy = privacy
        self.limit = limit
        self.position = position
        self.first = 0  # the place of the record the batch being made begins with
        redactor = privacy.redactor
        # a result is at most its truncation limit, or each character becoming "[REDACTED:<class>]"
        self.growth = 12 + redactor.longest_class if redactor is not None else 1
        self.kinds = bytearray()  # the batch being made: its items' kinds, values and places
        self.values: list[Any] = []
        self.places: list[tuple[Any, Any]] = []  # (container, key) per item
        self.bound = 0  # the sum of its items' bounds
        self.chars = 0
        self.sent: deque[_Batch] = deque()  # oldest first
        self.upper = size  # exact size of what is applied, plus the bounds of what is not

    def text(self, container: Any, key: Any, text: str, tool: bool) -> None:
        n = len(text)
        self._add(TOOL_TEXT if tool else TEXT, text, container, key,
                  min(self.privacy.tool_limit if tool else self.privacy.other_limit, self.growth * n), n)

    def args(self, container: Any, key: Any, args: dict) -> None:
        # the result is the serialised object redacted, or that text wrapped as {"_raw": ...},
        # whose escaping at most doubles it
        length = serialised_bound(args)
        self._add(ARGS, args, container, key, 2 * self.growth * length + 16, length)

    def _add(self, kind: int, value: Any, container: Any, key: Any, bound: int, chars: int) -> None:
        if not self.values:
            self.first = self.position()
        self.kinds.append(kind)
        self.values.append(value)
        self.places.append((container, key))
        self.upper += bound
        self.bound += bound
        self.chars += chars
        if self.chars >= BATCH_CHARS or len(self.values) >= BATCH_ITEMS:
            self._send()

    def record_done(self, size: int) -> int:
        """The session's size after this raw record, exact or, when it is surely within the limit,
        an upper bound; ``size`` is what the record's own parts added besides the strings sent.

        Results are applied here, between raw records, and never while one is being mapped: the
        builder counts a record's content when it emits the record, so a hole filled before that
        would be counted twice (once there, once here), and the session would seem to pass the
        limit early."""
        self.upper += size
        sent = self.sent
        while sent and sent[0].results is not None:  # received when a batch is sent (Helpers.free)
            self._apply_oldest()
        if self.limit and self.upper > self.limit:
            self.settle()  # now exact
        return self.upper

    def _send(self) -> None:
        """Send the batch to a helper; or clean it here when they are behind.

        The main process has its own work (reading, mapping, validating, writing), but when every
        helper has ``IN_FLIGHT`` batches not yet answered (a helper short of a core on a busy
        machine, or a batch of long strings), waiting for them would leave this process idle:
        it cleans the batch itself instead. Either way the results are applied in the order the
        batches were made, by ``record_done``."""
        items, batch = self._take()
        if batch is None:
            return
        link = self.helpers.free()
        if link is None:
            batch.results = _clean_batch(items, self.helpers.here())
        else:
            link.send(batch, items)
        self.sent.append(batch)

    def _take(self) -> tuple[tuple[bytes, list], _Batch | None]:
        """The batch being made, as items to clean and a _Batch to hold their results (None when
        it is empty); a new one is begun."""
        items = (bytes(self.kinds), self.values)
        batch = _Batch(self.places, self.bound, self.first) if self.values else None
        self.kinds, self.values, self.places, self.bound, self.chars = bytearray(), [], [], 0, 0
        return items, batch

    def _apply_oldest(self) -> None:
        batch = self.sent.popleft()
        while batch.results is None:  # answers come in order: the older ones first
            batch.helper.receive()
        if isinstance(batch.results, HelperFailed):  # this session's batch raised in the helper
            raise batch.results
        results, extras = batch.results
        for (container, key), result in zip(batch.places, results):
            container[key] = result
        self.upper += sum(map(len, results)) - batch.bound
        privacy = self.privacy
        for _, found, truncated in extras:  # in the items' order, as a run without helpers counts
            if found:
                privacy.counts.update(dict(found))
            privacy.truncated += truncated

    def waiting_from(self) -> int | None:
        """The place of the first record a result not yet applied goes to; None when there is none
        (the records before it are complete: results go to records in the order they were made)."""
        if self.sent:
            return self.sent[0].first
        return self.first if self.values else None

    def settle(self) -> None:
        """Clean what is left, wait for everything and apply it: the records are then complete.

        Until now the helpers worked while this process mapped; here it would only wait for the
        batches they hold, so the last, unsent batch is cleaned here meanwhile."""
        items, batch = self._take()
        if batch is not None:
            batch.results = _clean_batch(items, self.helpers.here())
            self.sent.append(batch)
        while self.sent:
            self._apply_oldest()


class RemoteJudge:
    """One large session's records judged in a helper (``validate.Judge`` there), from its lines as
    written, while the main process maps the records after them.

    Judging is about a sixth of the main process's work on one large session. The lines are
    encoded in the main process anyway, and sending bytes costs a copy; the helper reads them
    back and judges them in order, one helper for the whole session (the rules carry state from
    line to line). The answer is the problems ``Judge.end`` gives: the records a line reads back
    as are the records (plain JSON, read exactly), but for a lone surrogate, which is judged as
    the U+FFFD it is written as. ``end`` is None when the helper was lost: the caller judges the
    lines itself."""

    def __init__(self, helpers: Helpers, schema: Any, partial: bool, source: Any):
        self.link = next((link for link in helpers.links if not link.lost), None)
        self.token = next(_TOKENS)  # the helper may judge several sessions at once
        self.sent: deque[_Batch] = deque()  # requests not known to be answered, oldest first
        self.ended = False
        if self.link is not None:
            self._send(("begin", self.token, schema, partial, source))

    def _send(self, request: tuple) -> _Batch:
        batch = _Batch([], 0, judging=True)
        self.link.send(batch, request)  # type: ignore[union-attr]
        self.sent.append(batch)
        return batch

    def lines(self, chunk: bytes) -> None:
        """Judge the next lines (each ended by a newline). A helper behind by ``JUDGE_IN_FLIGHT``
        chunks is waited for: the lines it has yet to judge are held by both processes."""
        link = self.link
        if link is None or link.lost:
            return
        sent = self.sent
        while True:
            while sent and sent[0].results is not None:
                sent.popleft()
            if len(sent) < JUDGE_IN_FLIGHT or link.lost:
                break
            link.receive()
        if not link.lost:
            self._send(("lines", self.token, chunk))

    def end(self, meta_line: bytes) -> list | None:
        """The session's problems, once the meta record (line 1) is judged; None if the helper was
        lost on the way. Raises HelperFailed when judging raised there (a bug, as in one process)."""
        link = self.link
        self.ended = True
        if link is None or link.lost:
            return None
        batch = self._send(("end", self.token, meta_line))
        while batch.results is None and not link.lost:
            link.receive()
        if link.lost or batch.results is LOST:
            return None
        if isinstance(batch.results, HelperFailed):
            raise batch.results
        return batch.results

    def close(self) -> None:
        """Let the helper forget a session that ended without asking its verdict (it failed)."""
        if not self.ended and self.link is not None and not self.link.lost:
            self.ended = True
            self._send(("drop", self.token))
