"""The sampled records and their files: ``FileReport`` (how a file is stored, what was read of it,
what could not be read), ``Rec`` (one record and where it came from), and which records are kept.

Contract: ``Keep`` keeps every shape of record (``signature``) and a bounded number of each, so a
kind seen once in a gigabyte is still analysed; kept records are ``shrink``-ed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from cleaner_runtime.redaction.names import shown_path
from generator.inspect.fieldpaths import dotted
from generator.inspect.values import shrink
from generator.inspect.vocab import DISCRIMINATOR_NAMES, ROLE_FIELD_NAMES


@dataclass
class FileReport:
    """One input file: how it is stored, what was read of it, and what could not be read."""

    path: str
    size: int
    compressed: bool = False
    container: str = "jsonl"  # jsonl, json_array, json_object, not_json, unreadable
    records_path: tuple | None = None
    records_path_choices: list = field(default_factory=list)
    records: int = 0
    bad_lines: list = field(default_factory=list)  # (where, reason), first 20
    bad_count: int = 0
    bytes_read: int = 0
    read: str = "whole file"
    complete: bool = True
    mtime: float = 0.0
    problem: str | None = None
    one_line: bool = False  # a document written on one line (the cleaner must be told it is one)
    children: list = field(default_factory=list)  # keys of nested replies read as records (``nesting``)
    envelope: dict | None = field(default=None, repr=False)  # the JSON object without its record list
    grouped: bool = False  # the records path steps through groupings (lists of lists), not sessions
    shaping: dict = field(default_factory=dict)  # the input.* reading rules the file needs (inspect/shaping.py)

    def bad(self, where: str, reason: str) -> None:
        self.bad_count += 1
        if len(self.bad_lines) < 20:
            self.bad_lines.append((where, reason))

    def to_dict(self) -> dict:
        return {
            "path": shown_path(self.path), "size": self.size, "compressed": self.compressed, "container": self.container,
            "records_path": dotted(self.records_path) if self.records_path else None,
            "records": self.records, "bad_lines": self.bad_count,
            **({"shaping": dict(self.shaping)} if self.shaping else {}),
            "bad_line_examples": [{"where": shown_path(w), "reason": r} for w, r in self.bad_lines],
            "bytes_read": self.bytes_read, "read": self.read, "complete": self.complete,
            "problem": shown_path(self.problem) if self.problem else self.problem,
            "document_fields": sorted(map(str, self.envelope)) if self.envelope else [],
        }


@dataclass
class Rec:
    """One sampled record: which file, its position in that file, where to point people."""

    file: int
    pos: int
    where: str
    data: dict
    envelope: dict | None = field(default=None, repr=False)  # the fields around its record list, if any
    element: int | None = None  # the element of a nested record list (``*.messages``) holding it


SIGNATURE_KEYS = DISCRIMINATOR_NAMES | ROLE_FIELD_NAMES | {"subtype", "status", "level", "name"}


def signature(record: dict) -> int:
    """A cheap shape of a record: its keys, and the values of fields named like kinds or roles."""
    parts: list = [frozenset(record)]
    for key in record.keys() & SIGNATURE_KEYS:
        value = record[key]
        if type(value) is str and len(value) <= 40:
            parts.append((key, value))
    for key, value in record.items():
        if type(value) is dict:
            for key2 in value.keys() & SIGNATURE_KEYS:
                value2 = value[key2]
                if type(value2) is str and len(value2) <= 40:
                    parts.append((key, key2, value2))
    return hash(frozenset(parts))


class Keep(list):
    """The records of one file kept for analysis: every shape, a bounded number of each.

    Rare shapes are kept even past the cap, so a kind that shows up once in a gigabyte is
    still seen; common shapes stop being kept once there are enough of them.
    """

    def __init__(self, index: int, cap: int):
        super().__init__()
        self.index = index
        self.cap = cap
        self.per_shape = max(10, cap // 3)
        self.shapes: Counter = Counter()
        self.parsed = 0

    def offer(self, value: dict, where: str) -> Rec | None:
        self.parsed += 1
        shape = signature(value)
        seen = self.shapes[shape]
        self.shapes[shape] = seen + 1
        if (len(self) < self.cap and seen < self.per_shape) or (seen < 5 and len(self) < 2 * self.cap):
            rec = Rec(self.index, self.parsed, where, shrink(value))
            self.append(rec)
            return rec
        return None

