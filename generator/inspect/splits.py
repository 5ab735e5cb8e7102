"""Kinds told apart by the keys their records hold rather than by a value: the presence split, the
split of a message kind into text records and tool-call-only records, and what a key that only one
kind holds says about who wrote it (``key_roles``).

Contract: the splits return [(has, lacks, records)] and are deterministic for the same records.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from generator.inspect.discriminators import mostly_present
from generator.inspect.records import Rec
from generator.inspect.timeformats import time_formats
from generator.inspect.values import SPACE, token_like
from generator.inspect.vocab import name_roles, words

_COUNT_OR_TIME = re.compile(r"[\d\s.:+TZ-]+\Z")
# words of a key about another record (``parent_user_id``, ``reply_users``, ``latest_reply``)
_REFERS = {"parent", "thread", "reply", "replies", "latest", "last", "root", "previous", "prev", "next", "original"}


def key_roles(key: Any, recs: list[Rec]) -> list[str]:
    """What a key its records alone hold says about who wrote them (``bot_id``, ``visitor``), when
    it identifies the writer: a count, a time, a list or a reference to another record (Slack's
    ``reply_count``, ``reply_users``, ``parent_user_id``) is about other records, whatever its name
    sounds like."""
    values = [r.data.get(key) for r in recs[:200] if isinstance(r.data, dict) and r.data.get(key) is not None]
    if set(words(str(key))) & _REFERS or any(
            isinstance(v, (int, float, list)) and not isinstance(v, bool)
            or isinstance(v, str) and _COUNT_OR_TIME.match(v) for v in values):
        return []  # a count, a list, a time, a number, a reference to another record
    return name_roles(str(key))


def presence_split(recs: list[Rec], lacks: list, depth: int = 0) -> list[tuple[list, list, list[Rec]]]:
    """Records told apart by which keys they have: [(has, lacks, records)]."""
    counts = mostly_present(recs, depth=1)
    n = len(recs)
    optional = [k for k, c in counts.items() if c < n]
    if not optional or depth >= 4:
        return [([], list(lacks), recs)]
    best = None
    for key in optional:
        inside = [r for r in recs if key[0] in r.data and r.data[key[0]] is not None]
        outside = [r for r in recs if not (key[0] in r.data and r.data[key[0]] is not None)]
        if not inside or not outside:
            continue
        a, b = mostly_present(inside, 1), mostly_present(outside, 1)
        keys = set(a) | set(b)
        distance = sum(abs(a[k] / len(inside) - b[k] / len(outside)) for k in keys) / len(keys)
        name_bonus = 0.05 if key_roles(key[0], inside) else 0.0
        score = distance + name_bonus
        if best is None or score > best[0]:
            best = (score, key, inside, outside)
    if best is None or best[0] < 0.25:
        return [([], list(lacks), recs)]
    _, key, inside, outside = best
    out = [([key], list(lacks), inside)]
    out += presence_split(outside, [*lacks, key], depth + 1)
    return out


CALL_NAME_KEYS = {"name", "tool", "tool_name", "function", "function_name", "action", "action_name", "command_name"}
CALL_ARG_KEYS = {"args", "arguments", "params", "parameters", "input", "inputs", "tool_input", "kwargs",
                 "action_input", "tool_args"}


def _call_container(data: dict) -> str | None:
    """The key of an object holding a tool name and its arguments (``action: {name, params}``), or
    the arguments' key when the record itself holds both (``tool: lookup, args: {...}``)."""
    for key, value in data.items():
        if not isinstance(value, dict):
            continue
        names = {"_".join(words(str(k))) for k, v in value.items() if isinstance(v, str) and token_like(v)}
        args = {"_".join(words(str(k))) for k, v in value.items() if v is not None}
        if names & CALL_NAME_KEYS and args & CALL_ARG_KEYS:
            return key
    if any("_".join(words(str(k))) in CALL_NAME_KEYS and isinstance(v, str) and token_like(v) for k, v in data.items()):
        return next((k for k, v in data.items() if "_".join(words(str(k))) in CALL_ARG_KEYS and v is not None
                     and not isinstance(v, (bool, int, float))), None)
    return None


def _prose_outside(data: dict, skip: str | None) -> bool:
    """Whether a record holds text written for people outside ``skip`` (two levels deep)."""
    stack = [(v, 1) for k, v in data.items() if k != skip]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if len(value) >= 12 and SPACE.search(value) and not time_formats(value):
                return True
        elif isinstance(value, dict) and depth < 2:
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list) and depth < 2:
            stack.extend((v, depth + 1) for v in value[:20])
    return False


def call_split(recs: list[Rec]) -> list[tuple[list, list, list[Rec]]]:
    """A message kind whose records are text or only a tool call: [(has, lacks, records)], or [].

    A bot or agent often writes a tool call as its own message (``sender=bot`` with
    ``action: {name, params}`` and no text) beside its text messages; the two shapes are two kinds.
    """
    calls: list[Rec] = []
    rest: list[Rec] = []
    keys: Counter = Counter()
    for rec in recs:
        key = _call_container(rec.data)
        if key is not None and not _prose_outside(rec.data, key):
            calls.append(rec)
            keys[key] += 1
        else:
            rest.append(rec)
    if not calls or not rest or len(keys) != 1:
        return []
    key = next(iter(keys))
    if any(rec.data.get(key) is not None for rec in rest) or not any(_prose_outside(r.data, None) for r in rest):
        return []
    return [([(key,)], [], calls), ([], [(key,)], rest)]

