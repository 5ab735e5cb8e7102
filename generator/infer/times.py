"""The mapping's ``timestamps``: which field holds each record's time, its format and zone.

Why: times are facts of the trace; a format with none gets the declared fallback, said in the
decision, never a time invented from elsewhere.

Contract: ``timestamps_section(draft)`` returns the section.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from generator.infer.document import document_fallback
from generator.infer.draft import Draft
from generator.infer.fields import norm
from generator.inspect import LIST, dotted, get, mapping_path, session_key


def timestamps_section(draft: Draft) -> dict:
    p = draft.p
    out: dict[str, Any] = {"fields": ["timestamp"], "format": "auto", "layout": None, "timezone": "UTC",
                           "fallback": "none", "fallback_field": None}
    content_recs = [r for plan in draft.plans if plan.role not in ("skip", "meta") for r in plan.kind.recs]
    cands = [t for t in p.times if t.name_rank <= 2]
    if not cands:
        cands = [t for t in p.times]
    if not cands:
        draft.decide("timestamps.fields", ["timestamp"], 0.9, "no field in the samples holds a time")
        if document_fallback(draft, out, f"no field in {p.records} sampled record(s) holds a time"):
            return out
        out["fallback"] = draft.decide(
            "timestamps.fallback", "file_mtime", 0.95,
            f"no field in {p.records} sampled record(s) holds a time value; every record gets its file's "
            "modification time", ["none"])
        return out
    primary = cands[0]
    chosen = [primary]
    for other in cands[1:]:
        gap = [r for r in content_recs if all(get(r.data, t.path) is None for t in chosen)
               and get(r.data, other.path) is not None]
        if gap and other.name_rank <= 2:
            chosen.append(other)
    fill = sum(1 for r in content_recs if any(get(r.data, t.path) is not None for t in chosen))
    total = len(content_recs) or 1
    evidence = f"`{dotted(primary.path)}` ({primary.format}) in {fill}/{total} message record(s)"
    if len(chosen) > 1:
        evidence += "; then " + ", ".join(f"`{dotted(t.path)}` ({t.format})" for t in chosen[1:])
    alt = [mapping_path(t.path) for t in cands if t not in chosen][:3]
    conf = 0.9
    if len(cands) > 1 and cands[1].name_rank == primary.name_rank and cands[1] not in chosen \
            and cands[1].fill >= primary.fill and primary.name_rank > 0:
        conf = 0.65
        evidence += f"; `{dotted(cands[1].path)}` looks as likely"
    out["fields"] = draft.decide("timestamps.fields", [mapping_path(t.path) for t in chosen], conf, evidence,
                                 [[a] for a in alt])
    formats = {t.format.removesuffix("_string") for t in chosen}
    base = {"iso_naive": "iso"}
    if len(formats) == 1:
        fmt = formats.pop()
        value = "strptime" if fmt.startswith("strptime:") else base.get(fmt, fmt)
        format_decision(draft, out, value, fmt, primary)
    else:
        out["format"] = draft.decide("timestamps.format", "auto", 0.9,
                                     f"mixed formats ({', '.join(sorted(t.format for t in chosen))}): each value "
                                     "is read by its own shape")
    naive = any(t.format in ("iso_naive",) or (t.format.startswith("strptime:") and "%z" not in t.format)
                for t in chosen)
    out["timezone"] = timezone(draft, naive)
    if getattr(draft, "zone_field", None):
        out["timezone_field"] = [mapping_path(draft.zone_field)]
    sessions_without = sessions_without_time(draft, [t.path for t in chosen])
    if sessions_without and document_fallback(draft, out, f"{sessions_without} sampled session(s) have no time "
                                                        "in their records"):
        return out
    if sessions_without:
        out["fallback"] = draft.decide("timestamps.fallback", "file_mtime", 0.7,
                                       f"{sessions_without} sampled session(s) have no time at all", ["none"])
    else:
        out["fallback"] = draft.decide("timestamps.fallback", "none", 0.9,
                                       "every sampled session has times; records without one take a neighbour's")
    return out


def format_decision(draft: Draft, out: dict, value: str, fmt: str, primary) -> None:
    if value != "strptime":
        out["format"] = draft.decide("timestamps.format", value, 0.95,
                                     f"every probed value of `{dotted(primary.path)}` reads as {fmt}")
        return
    stat = draft.p.stats[primary.path]
    layouts = sorted(stat.layouts_ok or {fmt}, key=lambda x: x)
    layouts = [lay.split(":", 1)[1] for lay in layouts]
    values = [v for v in stat.values if isinstance(v, str)][:200]
    readings = {}
    for lay in layouts:
        try:
            readings[lay] = tuple(datetime.strptime(v.strip(), lay) for v in values)
        except ValueError:
            continue
    distinct = {r for r in readings.values()}
    out["format"] = draft.decide("timestamps.format", "strptime", 0.95,
                                 f"`{dotted(primary.path)}` holds human-readable times")
    first = fmt.split(":", 1)[1]
    if len(distinct) > 1:
        others = [lay for lay in readings if lay != first]
        out["layout"] = draft.decide("timestamps.layout", first, 0.5,
                                     f"{len(readings)} layouts read every value differently (e.g. day and month "
                                     "both <= 12): which one is right?", others)
    else:
        out["layout"] = draft.decide("timestamps.layout", first, 0.9,
                                     f"every probed value of `{dotted(primary.path)}` matches `{first}`")


def timezone(draft: Draft, naive: bool) -> str:
    if not naive:
        draft.decide("timestamps.timezone", "UTC", 0.95, "times carry their zone (or are epoch numbers)")
        return "UTC"
    from cleaner_runtime.timestamps import zone
    for path, st in draft.p.stats.items():
        if LIST in path or norm(path[-1]) not in ("timezone", "tz", "time_zone", "zone", "utc_offset", "tzname"):
            continue
        values = [v for v in st.values if isinstance(v, str)]
        if values:
            try:
                for value in values:
                    zone(value)
            except ValueError:
                continue
            draft.zone_field = path
            draft.decide("timestamps.timezone_field", [mapping_path(path)], 0.85,
                         f"times carry no zone; `{dotted(path)}` names the zone of each session's times")
            return draft.decide("timestamps.timezone", values[0], 0.85,
                                f"the zone where a session names none: {values[0]}, the one the samples name")
    # nothing says which zone naive times are in: reading them as UTC would be a guess
    return draft.decide("timestamps.timezone", "UTC", 0.6,
                        "times carry no zone and no field names one: which zone were they written in?",
                        ["Europe/Berlin", "Europe/London", "America/New_York", "+02:00"])


def sessions_without_time(draft: Draft, paths: list[tuple]) -> int:
    seen: dict[Any, bool] = {}
    for plan in draft.plans:
        if plan.role in ("skip", "meta"):
            continue
        for r in plan.kind.recs:
            key = session_key(r, draft.p.session)
            seen[key] = seen.get(key, False) or any(get(r.data, pth) is not None for pth in paths)
    return sum(1 for v in seen.values() if not v)
