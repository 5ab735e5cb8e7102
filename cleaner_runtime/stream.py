"""A session's output taken a few records at a time, as they become final, and held as bytes.

A session builder makes dicts, about twice the size of the line each becomes (the dict, its keys
and its strings: 190 MB for the 99 MB of a 200,000-record Pi session's output). Once a record is
final (its redacted strings are back from the helpers and its time is known), nothing changes it:
``SessionOutput.add`` judges it (``validate.Judge``: the schema and the rules beyond it, as
``check_records`` would on the whole list) and encodes it (``writer.Lines``), and the builder lets
it go. At the end the meta record, which the session's records fill in, is judged and put first.

The problems, the bytes and the repairs are those of validating and writing the whole list at
once. A session hook (``transform_session``) needs the whole list, and so does a schema that says
more of the list than that it is an array of at least one item (``TrajectoryValidator.judge``):
their sessions are held whole, as before.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

from .validate import Judge, Problem
from .writer import Lines


class SessionOutput:
    """One session's judged and encoded lines; ``count`` lines so far (the meta record's included),
    ``replaced`` lone surrogates written as U+FFFD, ``roles`` the roles of the records taken."""

    __slots__ = ("chunks", "count", "judge", "replaced", "roles")

    def __init__(self, judge: Judge, source: Any):
        self.judge = judge
        self.chunks: deque[bytes] = deque()
        self.count = 1  # line 1 is the meta record's
        self.replaced = 0
        self.roles: set[Any] = set()
        judge.add_rules({"role": "meta", "source": source}, 1)

    def add(self, records: list[dict]) -> None:
        """Judge and encode final records, the next lines of the file (the caller lets them go)."""
        judge, roles = self.judge, self.roles
        line = self.count
        for record in records:
            line += 1
            judge.add(record, line)
            roles.add(record["role"])
        self.count = line
        lines = Lines(records, plain=True)
        self.chunks.extend(lines)
        self.replaced += lines.replaced

    def end(self, meta: dict) -> tuple[list[Problem], Iterator[bytes]]:
        """The session's problems, and its lines, the meta record's first: each chunk is let go once
        it has been written."""
        self.judge.add_schema(meta, 1)
        head = Lines([meta], plain=True)
        self.chunks.appendleft(b"".join(head))
        self.replaced += head.replaced
        return self.judge.end(), self._drained()

    def _drained(self) -> Iterator[bytes]:
        chunks = self.chunks
        while chunks:
            yield chunks.popleft()
