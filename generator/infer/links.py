"""Which value links can join a tool call to its result.

Inspection finds every field whose values reappear in another field later on. Some of those are
not call/result links at all: a ticket id carried by every record of a ticket reappears
everywhere, and would join each customer message to the first "call" of its file. A call id
names one call, so within one session it changes from call to call.

Trees are links too, by a field named ``parent...`` holding another record's ``id``; inspection
reports each in the order the file gives them (children are often exported before their parent),
so ``parent_links(links)`` puts them the one way round: (the parent's kind, its id field, the
child's kind, its parent field).

Contract: ``constant_within_sessions(values)`` is true when, in some session, two or more
records carry the field and all carry the same value - such a field never links calls and
results. ``values`` is ``[(session key, value)]`` for the records of one kind that carry it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from generator.infer.calls import norm


def constant_within_sessions(values: list[tuple[Any, Any]]) -> bool:
    per_session: dict[Any, set] = defaultdict(set)
    counts: dict[Any, int] = defaultdict(int)
    for session, value in values:
        per_session[session].add(repr(value))
        counts[session] += 1
    return any(counts[s] >= 2 and len(v) == 1 for s, v in per_session.items())


def _parent_field(path: tuple) -> bool:
    return len(path) == 1 and "parent" in norm(path[0]).split("_")


def _id_field(path: tuple) -> bool:
    return len(path) == 1 and not _parent_field(path) and norm(path[0]).split("_")[-1] == "id"


def parent_links(links: list) -> list[tuple[str, tuple, str, tuple]]:
    """(parent kind, id field, child kind, parent field) for every link between a kind's parent field
    and another kind's id field, whichever way inspection reported it."""
    found = []
    for link in links:
        if not (link.source.startswith("kind:") and link.target.startswith("kind:")):
            continue
        if _parent_field(link.target_path) and _id_field(link.source_path):
            found.append((link.source, link.source_path, link.target, link.target_path))
        elif _parent_field(link.source_path) and _id_field(link.target_path):
            found.append((link.target, link.target_path, link.source, link.source_path))
    return found
