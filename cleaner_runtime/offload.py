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

from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

BATCH_CHARS = 1 << 18  # characters of text sent per batch
BATCH_ITEMS = 2048  # strings sent per batch
IN_FLIGHT = 4  # batches per helper not yet done; past that the main process cleans them itself

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


def _init_helper(settings: dict) -> None:
    global _PRIVACY
    import signal

    from .convert import Privacy

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process stops its helpers
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _PRIVACY = Privacy(settings)


def _clean_batch(items: list[tuple[str, Any, bool]], privacy: Any = None) -> list[tuple[str, tuple, int]]:
    """Each item cleaned as the main process would: (result, redactions counted, strings truncated).

    ``privacy``: the main process's own copy, when it cleans a batch itself; a helper uses its
    ``_PRIVACY``. Either counts each item apart, so the results are applied the same way."""
    privacy = privacy or _PRIVACY
    counts = privacy.counts
    out = []
    for op, value, tool in items:
        if counts:
            counts.clear()
        before = privacy.truncated
        result = privacy.args(value) if op == "args" else privacy.text(value, tool=tool)
        out.append((result, tuple(counts.items()) if counts else (), privacy.truncated - before))
    return out


class Helpers:
    """The helper processes of one run (created when ``--jobs`` is above 1 and a session runs here)."""

    def __init__(self, processes: int, privacy_settings: dict):
        self.processes = processes
        self.settings = privacy_settings
        self._here: Any = None
        # The redaction package (about 0.1 s of CPU to import) is loaded here, where every session
        # needs it anyway, so that forked helpers inherit it instead of each importing it again
        # on a core the main process shares with them.
        from . import redaction  # noqa: F401

        self.pool = ProcessPoolExecutor(processes, initializer=_init_helper, initargs=(privacy_settings,))
        # start them now, before the run's writer threads exist: a forked child gets only the
        # thread that forked it, and no lock another thread might hold. The submit forks them (in
        # this thread); waiting for it would only wait for their initialiser, which the first
        # megabyte of the session, mapped here meanwhile, does not need.
        self.pool.submit(int)

    def here(self) -> Any:
        """A Privacy of the helpers' settings in this process, for the batches cleaned here: its
        counts are its own, as a helper's are, never the session's."""
        if self._here is None:
            from .convert import Privacy

            self._here = Privacy(self.settings)
        return self._here

    def stop(self, wait: bool = True) -> None:
        """Shut the helpers down; after an interruption, without waiting for their batches."""
        self.pool.shutdown(wait=wait, cancel_futures=not wait)
        if not wait:
            for process in list((getattr(self.pool, "_processes", None) or {}).values()):  # no API before 3.14
                if process.is_alive():
                    process.terminate()


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
        # (future, places, items) per batch, oldest first: the items, to clean them here if taken back
        self.sent: deque[tuple[Future, list[tuple[Any, Any, int]], list[tuple[str, Any, bool]]]] = deque()
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
        an upper bound; ``size`` is what the record's own parts added besides the strings sent.

        Results are applied here, between raw records, and never while one is being mapped: the
        builder counts a record's content when it emits the record, so a hole filled before that
        would be counted twice (once there, once here), and the session would seem to pass the
        limit early."""
        self.upper += size
        sent = self.sent
        while sent and sent[0][0].done():
            self._apply_oldest()
        while len(sent) > 2 * IN_FLIGHT * self.helpers.processes:  # bounds what is held unapplied
            self._apply_oldest()
        if self.limit and self.upper > self.limit:
            self.settle()  # now exact
        return self.upper

    def _send(self) -> None:
        """Send the batch to the helpers; or clean it here when they are behind.

        The main process has its own work (reading, mapping, validating, writing), but when the
        helpers have ``IN_FLIGHT`` batches each not yet done (a helper short of a core on a busy
        machine, or a batch of long strings), waiting for them would leave this process idle:
        it cleans the batch itself instead. Either way the results are applied in the order the
        batches were made, by ``record_done``."""
        items, places = self.items, self.places
        self.items, self.places, self.chars = [], [], 0
        if not items:
            return
        busy = sum(1 for future, _, _ in self.sent if not future.done())
        if busy >= IN_FLIGHT * self.helpers.processes:
            self.sent.append((self._here(items), places, items))
        else:
            self.sent.append((self.helpers.pool.submit(_clean_batch, items), places, items))

    def _here(self, items: list[tuple[str, Any, bool]]) -> Future:
        """The batch cleaned in this process, as a finished future."""
        future: Future = Future()
        future.set_result(_clean_batch(items, self.helpers.here()))
        return future

    def _apply_oldest(self) -> None:
        future, places, _ = self.sent.popleft()
        privacy = self.privacy
        counts = privacy.counts
        for (container, key, bound), (result, found, truncated) in zip(places, future.result()):
            container[key] = result
            self.upper += len(result) - bound
            if found:
                counts.update(dict(found))
            privacy.truncated += truncated

    def settle(self) -> None:
        """Clean what is left, wait for everything and apply it: the records are then complete.

        Until now the helpers worked while this process mapped; here it would only wait for the
        batches they hold. So it cleans the last, unsent batch itself, then takes back, newest
        first, every batch no helper has started (a cancelled future) and cleans those too,
        while the helpers finish the oldest."""
        if self.items:
            items, places = self.items, self.places
            self.items, self.places, self.chars = [], [], 0
            self.sent.append((self._here(items), places, items))
        sent = self.sent
        for i in range(len(sent) - 1, -1, -1):
            future, places, items = sent[i]
            if future.done():
                continue
            if not future.cancel():  # a helper has it, and the older ones before it
                break
            sent[i] = (self._here(items), places, items)
        while sent:
            self._apply_oldest()
