"""The three views of a record that learning works with: raw, old output, and what one became.

``RawRec`` is a raw sample record with its leaves indexed, ``Target`` a record of the old
output (migrated mechanically) to trace back to one, and ``Sig`` what a raw record turned into
- a role and the paths its fields came from - which is what kind rules are learned from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.migrate.text_match import TextMatcher

MAX_DEPTH = 6
MAX_ITEMS = 64


@dataclass
class RawRec:
    """One raw sample record, with where it came from."""

    pos: int
    file: int
    where: str
    record: dict
    _leaves: list | None = None
    _texts: list | None = None

    @property
    def texts(self) -> list[tuple[tuple, str, tuple]]:
        if self._texts is None:
            self._texts = _text_candidates(self)
        return self._texts

    @property
    def leaves(self) -> list[tuple[tuple, Any]]:
        if self._leaves is None:
            out: list[tuple[tuple, Any]] = []
            _walk(self.record, (), out)
            self._leaves = out
        return self._leaves


def _walk(node: Any, path: tuple, out: list) -> None:
    if len(path) > MAX_DEPTH:
        return
    if isinstance(node, dict):
        if path:
            out.append((path, node))
        for key, value in node.items():
            if isinstance(key, str):
                _walk(value, (*path, key), out)
    elif isinstance(node, list):
        if path:
            out.append((path, node))
        for index, value in enumerate(node[:MAX_ITEMS]):
            _walk(value, (*path, index), out)
    else:
        out.append((path, node))


def _text_candidates(rec: RawRec) -> list[tuple[tuple, str, tuple]]:
    """(path, normalised text, block types) of every string, and of every typed block list joined."""
    out = []
    norm = TextMatcher.norm
    for path, value in rec.leaves:
        if isinstance(value, str):
            out.append((path, norm(value), ()))
    for path, value in rec.leaves:
        if isinstance(value, list) and value and all(isinstance(b, dict) and isinstance(b.get("type"), str)
                                                     for b in value):
            keys = {k for b in value for k, v in b.items() if isinstance(v, str) and k != "type"}
            for key in sorted(keys):
                parts = [(b["type"], b[key]) for b in value if isinstance(b.get(key), str)]
                out.append((path, norm("\n".join(text for _, text in parts)),
                            tuple(sorted({(t, key) for t, _ in parts}))))
    return out


@dataclass
class Target:
    session: int
    index: int
    record: dict
    old_ts: Any


@dataclass(frozen=True)
class Sig:
    """What one raw record turned into: a role and the paths its fields came from."""

    role: str
    content: tuple = ()
    tool_name: tuple = ()
    args: tuple = ()
    call_id: tuple = ()
    link: tuple = ()
    blocks: tuple = ()  # ((type value, field), ...) when content is a typed block list
    ok: tuple = ()  # (path, negate) of a result's success flag
    learned: bool = True  # False: guessed from the record's shape (the old output had nothing)
