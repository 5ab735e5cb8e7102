"""Which value links can join a tool call to its result.

Inspection finds every field whose values reappear in another field later on. Some of those are
not call/result links at all: a ticket id carried by every record of a ticket reappears
everywhere, and would join each customer message to the first "call" of its file. A call id
names one call, so within one session it changes from call to call.

Contract: ``constant_within_sessions(values)`` is true when, in some session, two or more
records carry the field and all carry the same value - such a field never links calls and
results. ``values`` is ``[(session key, value)]`` for the records of one kind that carry it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any


def constant_within_sessions(values: list[tuple[Any, Any]]) -> bool:
    per_session: dict[Any, set] = defaultdict(set)
    counts: dict[Any, int] = defaultdict(int)
    for session, value in values:
        per_session[session].add(repr(value))
        counts[session] += 1
    return any(counts[s] >= 2 and len(v) == 1 for s, v in per_session.items())
