"""When a record happened, and in which order a session's records are written.

Why: trace exports write spans in export order (children before parents, the root last) with a
start and an end time each. Written in file order, a tool's result can come before the call it
answers; stamped with their start time, a model's reply and a tool's output would be dated
before they existed.

Contract: ``session_order(draft, session, times)`` sets ``session.tree`` when the records point
at their parent by a ``parent...`` field holding another record's id, and ``session.order_by`` the
records' time field when the samples are not in time order within a session.
``end_times(draft, times)`` stamps the records an output is written from (assistant, reasoning
and tool results) with the end time beside the start time the mapping reads (``startTime`` ->
``endTime``, ``start_time`` -> ``end_time``), when every record of the kind has one.
``block_times(draft, timestamps)`` gives a block type its own time (``blocks.types[].timestamp``)
when every block of the type holds a field named like a start or a creation time whose values
read in the mapping's time format: an Open WebUI message's reasoning item began at its
``started_at``, before the reply its message is stamped with.
"""

from __future__ import annotations

import re

from cleaner_runtime.timestamps import TimestampError, to_iso
from generator.infer.draft import Draft
from generator.infer.links import parent_links
from generator.inspect import dotted, get, mapping_path

OUTPUT_ROLES = ("assistant", "reasoning", "tool_result")
_START = re.compile(r"start(?=[A-Z_]|$)|Start(?=[A-Z_]|$)|START(?=_|$)")


def _end_name(name: str) -> str | None:
    """``startTime`` -> ``endTime``, ``start_time`` -> ``end_time``, ``startTimeUnixNano`` -> ``endTimeUnixNano``."""
    match = _START.search(name)
    if match is None:
        return None
    word = match.group(0)
    end = "end" if word == "start" else "End" if word == "Start" else "END"
    return name[:match.start()] + end + name[match.end():]


def end_times(draft: Draft, fields: list) -> None:
    if not fields or not isinstance(fields[0], str) or "." in fields[0]:
        return
    end = _end_name(fields[0])
    if end is None:
        return
    stat = draft.p.stats.get((end,))
    if stat is None or not stat.time_format()[0]:
        return
    for plan in draft.plans:
        emits = {entry.get("as") for entry in plan.emit}
        if plan.role not in OUTPUT_ROLES and not (plan.role == "assistant" or emits & {"text", "tool_result"}):
            continue
        if not all(isinstance(get(rec.data, (end,)), (str, int, float)) for rec in plan.kind.recs):
            continue
        plan.timestamp = (end,)
        draft.decide(f"kinds[{plan.kind.key}].timestamp", [end], 0.85,
                        f"an output exists when its span ends: `{end}` beside `{fields[0]}`")


# names of a block's own time, best first: when its step began, else when it was made
BLOCK_TIME_NAMES = (("started_at", "start_time", "startTime", "started"), ("created_at", "createdAt", "created"))


def block_times(draft: Draft, timestamps: dict) -> None:
    fmt, layout = timestamps.get("format"), timestamps.get("layout")
    if not fmt:
        return
    for name, spec in draft.block_plans.items():
        bt = draft.p.blocks.types.get(name)
        if bt is None or spec.get("as") in ("skip", "placeholder"):
            continue
        for names in BLOCK_TIME_NAMES:
            field = next((n for n in names if (st := bt.stats.get((n,))) is not None and st.records == bt.count
                          and st.values and not st.overflow), None)
            if field is not None and _instants(bt.stats[(field,)].values, fmt, layout):
                spec["timestamp"] = draft.decide(f"blocks.types[{name}].timestamp", [field], 0.85,
                                                 f"every `{name}` block holds its own time `{field}`")
                break


def _instants(values, fmt: str, layout: str | None) -> bool:
    """Whether every value reads, in the mapping's format, as an instant of this century (a small
    number of seconds is a duration, read as 1970)."""
    try:
        return all(to_iso(value, fmt, layout, "UTC")[:4] >= "2000" for value in values)
    except (TimestampError, TypeError, ValueError):
        return False


def session_order(draft: Draft, session: dict, fields: list) -> None:
    tree = _tree(draft)
    if tree:
        ident, parent = tree
        session["tree"] = draft.decide("session.tree", {"id": mapping_path(ident), "parent": mapping_path(parent)},
                                          0.85, f"`{dotted(parent)}` holds the `{dotted(ident)}` of another record: "
                                          "written depth first, each record before its children")
    primary = next((t for t in draft.p.times if fields and mapping_path(t.path) == fields[0]), None)
    if primary is not None and primary.monotonic is not None and primary.monotonic < 1.0:
        session["order_by"] = draft.decide(
            "session.order_by", [fields[0]], 0.85,
            f"`{fields[0]}` goes back in time between {1 - primary.monotonic:.0%} of neighbouring records: "
            "records (siblings, in a tree) are written in time order")


def _tree(draft: Draft) -> tuple[tuple, tuple] | None:
    found = {(ident, parent) for _, ident, _, parent in parent_links(draft.p.links)}
    return found.pop() if len(found) == 1 else None
