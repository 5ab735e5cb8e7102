"""A run's summary, folded from its sessions' outcomes as they settle.

A run used to keep every session's ``Outcome`` (six counters, a dict and a list: about 3 KB of
Python objects for a small session) until it printed its summary, so its memory grew with the
number of sessions: 26,000 helpdesk tickets in one CSV held 80 MB more than 6,500 did, and a
corpus of a million sessions would have held gigabytes. The summary needs far less: counts, the
first place each skip reason was seen, the sessions it names (skipped and failed ones, every one;
warnings and sessions losing calls or results, the first few) and the folders written to.

Each outcome is folded with its place in the run (``at``), so that outcomes may come in any
order, from any process, and partial summaries merge (``merge``): what is printed is what the
outcomes in the order of their places would print. The places are tuples: ``(0, n)`` for the
folders that could not be read (listed first), then ``(1, n)`` for the n-th session by file or by
element, or ``(1, file, record)`` for a session grouped by field (where it began); one run uses
one kind of session place. An outcome whose output is still being synced and renamed
(``Outcome.pending``) is folded once that is done, since a failed rename fails its session.

The outputs written are kept as 8 bytes each (``_mark``: a digest of the path), enough for
``check_disk`` to tell at the end of the run that every session counted as written is a file on
disk of its own (never two in one file, none gone), at a fraction of the memory of their names;
up to ``FEW`` are also kept by name, so that a small run (``api.clean_file``, one file per call
into a folder that may hold a million) checks its own files, not the whole folder.
Every line printed passes the secret detector (``shown_path``): session keys are input paths and
ids, which may hold one.
"""

from __future__ import annotations

import hashlib
import os
import sys
from array import array
from collections import Counter, deque
from pathlib import Path
from typing import Any

from .redaction.names import shown_path
from .writer import SUFFIX, hidden_name

WARNINGS_SHOWN = 20  # warnings printed (all are counted)
LOSING_SHOWN = 5  # sessions losing calls or results named (all are counted)
PENDING = 64  # outcomes waiting for their output's rename before the oldest is waited for
FEW = 256  # outputs kept by name, for check_disk to stat each instead of listing their folders


class Summary:
    """What the summary of a run prints, folded from its outcomes (``add``); with ``keep``, the
    outcomes too, in the order of their places (``outcomes``: ``api.clean_file`` returns them)."""

    def __init__(self, keep: bool = False):
        self.keep = keep
        self.written = 0
        self.rows = 0
        self.skipped: Counter = Counter()
        self.repaired: Counter = Counter()
        self.redactions: Counter = Counter()
        self.truncated = 0
        self.seen: Counter = Counter()
        self.kept: Counter = Counter()
        self.examples: dict[str, tuple[Any, str]] = {}  # skip reason: (place, where) of its first
        self.skipped_sessions: list[tuple[Any, str, str]] = []  # (place, key, why)
        self.failed: list[tuple[Any, str]] = []  # (place, error)
        self.warnings: list[tuple[Any, int, str, str]] = []  # the first ones: (place, n, key, warning)
        self.warning_count = 0
        self.losing: list[tuple[Any, int, str, str]] = []  # the first ones: (place, 0, key, shares)
        self.losing_count = 0
        self.folders: set[str] = set()  # of the outputs written, relative to the output folder
        self.marks = array("Q")  # of the outputs written: see _mark
        self.few: list[str] | None = []  # ... and their paths, while there are at most FEW
        self.hidden = 0  # outputs written under a name that hides a secret (writer.hidden_name)
        self.disk_error: str | None = None  # check_disk's finding
        self.kept_outcomes: list[tuple[Any, Any]] | None = [] if keep else None
        self._pending: deque[tuple[Any, Any]] = deque()

    # -- folding -------------------------------------------------------------------------------
    def add(self, at: Any, outcome: Any) -> None:
        """Fold one session's outcome, at its place in the run, once its output is in place: those
        waiting are folded from the oldest as their renames are done (the writer's threads finish
        them about in order; the order of folding does not change the summary), and past
        ``PENDING`` the oldest is waited for."""
        if outcome.pending is None and not self._pending:
            self._fold(at, outcome)
            return
        pending = self._pending
        pending.append((at, outcome))
        while pending and (len(pending) > PENDING or pending[0][1].pending is None or pending[0][1].pending.done()):
            place, oldest = pending.popleft()
            oldest.settle()
            self._fold(place, oldest)

    def settle(self) -> None:
        """Wait for every output still being put in place, and fold its outcome."""
        pending, self._pending = self._pending, deque()
        for at, outcome in pending:
            outcome.settle()
            self._fold(at, outcome)

    def _fold(self, at: Any, o: Any) -> None:
        if o.output:
            self.written += 1
            self.rows += o.rows
            self.folders.add(os.path.dirname(o.output))
            self.marks.append(_mark(o.output))
            if self.few is not None and len(self.few) < FEW:
                self.few.append(o.output)
            else:
                self.few = None
            self.hidden += hidden_name(o.output)
        if o.error:
            self.failed.append((at, o.error))
        if o.skipped_session:
            self.skipped_sessions.append((at, o.key, o.skipped_session))
        self.skipped.update(o.skipped)
        self.repaired.update(o.repaired)
        self.redactions.update(o.redactions)
        self.truncated += o.truncated
        for reason, where in o.examples.items():
            self._example(reason, at, where)
        self.seen.update(o.seen)
        self.kept.update(o.kept)
        if o.warnings:
            self.warning_count += len(o.warnings)
            self.warnings = _first([*self.warnings, *((at, n, o.key, w) for n, w in enumerate(o.warnings))],
                                   WARNINGS_SHOWN)
        if any(o.kept[w] < o.seen[w] for w in ("calls", "results")):
            self.losing_count += 1
            shares = ", ".join(f"{w} {o.kept[w]}/{o.seen[w]}" for w in ("calls", "results") if o.seen[w])
            self.losing = _first([*self.losing, (at, 0, o.key, shares)], LOSING_SHOWN)
        if self.kept_outcomes is not None:
            self.kept_outcomes.append((at, o))

    def unwrite(self, at: Any, rows: int, error: str, output: str | None = None) -> None:
        """A session folded as written whose output could not be put in place after all: failed.
        (Its folder stays among ``folders``: syncing it once more at the end is harmless.)
        ``output``, the path it was folded with, is taken out of what ``check_disk`` looks for."""
        self.written -= 1
        self.rows -= rows
        self.failed.append((at, error))
        if output is not None:
            self.marks.remove(_mark(output))
            if self.few is not None and output in self.few:
                self.few.remove(output)
            self.hidden -= hidden_name(output)

    def merge(self, other: Summary) -> None:
        """Fold in another summary of other sessions of the same run (a worker's), once settled."""
        other.settle()
        self.written += other.written
        self.rows += other.rows
        self.folders |= other.folders
        self.marks += other.marks
        both = None if self.few is None or other.few is None else self.few + other.few
        self.few = both if both is not None and len(both) <= FEW else None
        self.hidden += other.hidden
        self.failed += other.failed
        self.skipped_sessions += other.skipped_sessions
        for mine, theirs in ((self.skipped, other.skipped), (self.repaired, other.repaired),
                             (self.redactions, other.redactions), (self.seen, other.seen), (self.kept, other.kept)):
            mine.update(theirs)
        self.truncated += other.truncated
        for reason, (at, where) in other.examples.items():
            self._example(reason, at, where)
        self.warning_count += other.warning_count
        self.warnings = _first(self.warnings + other.warnings, WARNINGS_SHOWN)
        self.losing_count += other.losing_count
        self.losing = _first(self.losing + other.losing, LOSING_SHOWN)
        if self.kept_outcomes is not None and other.kept_outcomes is not None:
            self.kept_outcomes += other.kept_outcomes

    def check_disk(self, output: Path) -> None:
        """Check that each session counted as written is a file of its own under ``output`` (read
        once the run's writes are settled); if not, ``disk_error`` says how many are not, and the
        run fails: the summary never counts a session that is not on disk."""
        if self.few is not None and len(self.few) == self.written:  # a small run: each file stat'ed
            found = sum(os.path.isfile(output / name) for name in set(self.few))
            self._missing(output, self.written - found)
            return
        present: set[int] = set()
        for folder in self.folders:
            try:
                entries = os.listdir(output / folder)
            except OSError:
                continue
            present.update(_mark(os.path.join(folder, name)) for name in entries if name.endswith(SUFFIX))
        self._missing(output, self.written - len(present.intersection(self.marks)))

    def _missing(self, output: Path, missing: int) -> None:
        if missing > 0:
            verb = "is" if missing == 1 else "are"
            self.disk_error = (f"{output}: {missing} of the {self.written} sessions counted as written {verb} not on "
                               "disk (removed by another program while the run wrote, or two sessions given one file, "
                               "a bug: please report it); rerun to write them again")

    def _example(self, reason: str, at: Any, where: str) -> None:
        """Keep ``where`` as the first place ``reason`` was seen, unless one earlier is known."""
        first = self.examples.get(reason)
        if first is None or at < first[0]:
            self.examples[reason] = (at, where)

    def __getstate__(self) -> dict:  # a worker's summary is sent back settled: nothing pending
        assert not self._pending
        return self.__dict__

    @property
    def outcomes(self) -> list[Any]:
        """The outcomes kept (``keep``), in the order of their places."""
        return [o for _, o in sorted(self.kept_outcomes or [], key=lambda pair: pair[0])]

    # -- printing ------------------------------------------------------------------------------
    def report(self, files_read: int, totals: Any, quiet: bool) -> int:
        """Print the summary (stdout; errors on stderr) and return the exit code: 1 if any session
        failed or the run stopped, else 0. ``totals`` holds what the run counted itself."""
        skipped = Counter(totals.skipped)
        skipped.update(self.skipped)
        examples = dict(totals.examples)
        for reason, (_, where) in self.examples.items():
            examples.setdefault(reason, where)
        out = _Shown(sys.stdout)
        print(f"files read:        {files_read}", file=out)
        print(f"sessions written:  {self.written}", file=out)
        print(f"rows written:      {self.rows}", file=out)
        print(f"sessions skipped:  {len(self.skipped_sessions)}", file=out)
        for _, key, why in sorted(self.skipped_sessions, key=_place):
            print(f"  {key}: {why}", file=out)
        print(f"items skipped:     {sum(skipped.values())}", file=out)
        for reason, count in sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {count} x {reason} (first at {examples.get(reason, '?')})", file=out)
        if self.repaired:
            print("repairs:", file=out)
            for reason, count in sorted(self.repaired.items()):
                print(f"  {count} x {reason}", file=out)
        self._print_kept(out)
        print(f"redactions:        {sum(self.redactions.values())}", file=out)
        for kind, count in sorted(self.redactions.items()):
            print(f"  {count} x {kind}", file=out)
        if self.hidden:
            print(f"names hidden:      {self.hidden}", file=out)
        print(f"truncated strings: {self.truncated}", file=out)
        if self.warning_count and not quiet:
            print(f"warnings:          {self.warning_count}", file=out)
            for _, _, key, warning in self.warnings:
                print(f"  {key}: {warning}", file=out)
        errors = [error for _, error in sorted(self.failed, key=_place)]
        if totals.error:
            errors.append(totals.error)
        if self.disk_error:
            errors.append(self.disk_error)
        print(f"sessions failed:   {len(errors)}", file=out)
        for error in errors:
            print(f"error: {shown_path(error)}", file=sys.stderr)
        return 1 if errors else 0

    def _print_kept(self, out: Any) -> None:
        """What share of the calls, results and texts the mapping read was written; the sessions that
        lost some, first few named (a lost call or result is a structure the trajectory misses)."""
        seen, kept = self.seen, self.kept
        parts = [f"{what} {kept[what]}/{seen[what]}" for what in ("calls", "results", "texts") if seen[what]]
        print(f"kept:              {', '.join(parts) or 'nothing read'}", file=out)
        if self.losing_count:
            print(f"  sessions losing calls or results: {self.losing_count}", file=out)
            for _, _, key, shares in self.losing:
                print(f"    {key}: {shares}", file=out)


class _Shown:
    """A stream whose every line passes the secret detector first (``shown_path``)."""

    def __init__(self, stream: Any):
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(shown_path(text))


def _mark(output: str) -> int:
    """8 bytes standing for an output path (relative to --output): the first of its SHA-256."""
    data = Path(output).as_posix().encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


def _place(item: tuple) -> Any:
    return item[0]


def _first(items: list[tuple], n: int) -> list[tuple]:
    """The ``n`` items of the earliest places: (place, number within the session, ...)."""
    return sorted(items, key=lambda item: item[:2])[:n]
