"""A session's output taken a few records at a time, as they become final, and held as bytes.

A session builder makes dicts, about twice the size of the line each becomes (the dict, its keys
and its strings: 190 MB for the 99 MB of a 200,000-record Pi session's output). Once a record is
final (its redacted strings are back from the helpers and its time is known), nothing changes it:
``SessionOutput.add`` judges it (``validate.Judge``: the schema and the rules beyond it, as
``check_records`` would on the whole list) and encodes it (``writer.Lines``), and the builder lets
it go. At the end the meta record, which the session's records fill in, is judged and put first.

The problems, the bytes and the repairs are those of validating and writing the whole list at
once, with one difference: a record holding a lone surrogate is judged as written, the surrogate
as the U+FFFD written for it, so that one process and a helper judging the lines it is sent
(``offload.RemoteJudge``) give the same verdict. A session hook (``transform_session``) needs
the whole list, and so does a schema that says more of the list than that it is an array of at
least one item (``TrajectoryValidator.judge``): their sessions are held whole, as before.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

from .validate import Judge, Problem, TrajectoryValidator
from .writer import Lines, read_line


def session_judge(validator: TrajectoryValidator, source: Any, judge: Judge | None = None) -> Judge:
    """A judge for one session (``judge``, or a new one) that has seen its meta record's role and
    source: all the rules read of it, known when the session starts (its schema check waits for
    the rest of it, at the end)."""
    judge = judge or validator.judge()
    judge.add_rules({"role": "meta", "source": source}, 1)
    return judge


def judge_lines(judge: Judge, chunk: bytes, first: int) -> int:
    """Judge a chunk of lines as written (each ended by a newline), the first on line ``first``;
    the number of the line after them."""
    add = judge.add
    for text in chunk.split(b"\n")[:-1]:
        add(read_line(text), first)
        first += 1
    return first


class SessionOutput:
    """One session's judged and encoded lines; ``count`` lines so far (the meta record's included),
    ``replaced`` lone surrogates written as U+FFFD, ``roles`` the roles of the records taken.

    ``to_helper`` hands the judging to a helper process (``offload.RemoteJudge``) from then on, the
    lines so far included: a large session's main process then only encodes."""

    __slots__ = ("chunks", "count", "judge", "remote", "replaced", "roles", "source", "validator")

    def __init__(self, validator: TrajectoryValidator, source: Any, judge: Judge | None = None):
        self.validator = validator
        self.source = source
        self.judge = session_judge(validator, source, judge)
        self.remote: Any = None
        self.chunks: deque[bytes] = deque()
        self.count = 1  # line 1 is the meta record's
        self.replaced = 0
        self.roles: set[Any] = set()

    @classmethod
    def of(cls, validator: TrajectoryValidator, source: Any) -> SessionOutput | None:
        """An output for a session judged by ``validator``; None when its schema needs the whole list."""
        judge = validator.judge()
        return cls(validator, source, judge) if judge is not None else None

    def to_helper(self, remote: Any) -> None:
        """Judge in a helper from now on: the lines so far are sent to it, to be judged again there."""
        self.remote = remote
        self.judge = None  # type: ignore[assignment]
        for chunk in self.chunks:
            remote.lines(chunk)

    def add(self, records: list[dict]) -> None:
        """Judge and encode final records, the next lines of the file (the caller lets them go)."""
        lines = Lines(records, plain=True)
        chunks = list(lines)
        self.chunks.extend(chunks)
        self.replaced += lines.replaced
        see = self.roles.add
        if self.remote is None and not lines.replaced:
            judge = self.judge.add
            line = self.count
            for record in records:
                line += 1
                judge(record, line)
                see(record["role"])
        else:
            for record in records:
                see(record["role"])
            if self.remote is not None:
                for chunk in chunks:
                    self.remote.lines(chunk)
            else:  # a lone surrogate was written as U+FFFD: judged as written, as a helper judges it
                number = self.count + 1
                for chunk in chunks:
                    number = judge_lines(self.judge, chunk, number)
        self.count += len(records)

    def end(self, meta: dict) -> tuple[list[Problem], Iterator[bytes]]:
        """The session's problems, and its lines, the meta record's first: each chunk is let go once
        it has been written."""
        head = Lines([meta], plain=True)
        line = b"".join(head)
        self.replaced += head.replaced
        problems = self.remote.end(line) if self.remote is not None else None
        if problems is None:
            if self.judge is None:  # the helper was lost: the lines are judged here, as written
                self.judge = session_judge(self.validator, self.source)
                number = 2
                for chunk in self.chunks:
                    number = judge_lines(self.judge, chunk, number)
            self.judge.add_schema(read_line(line) if head.replaced else meta, 1)
            problems = self.judge.end()
        self.chunks.appendleft(line)
        return problems, self._drained()

    def close(self) -> None:
        """The session ended (written, or failed): a helper judging it forgets it."""
        if self.remote is not None:
            self.remote.close()

    def _drained(self) -> Iterator[bytes]:
        chunks = self.chunks
        while chunks:
            yield chunks.popleft()
