"""Which raw fields hold the time, and in which zone, learned from the old output's timestamps.

A raw field whose time equals the old record's timestamp is the time field; if only zone-less
raw times differ from the old ones by one constant offset, that offset is the zone the old
script assumed. Without old output, fields named like times are used, and the guess reported.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime

from generator.migrate.notation import dotted
from generator.migrate.old_shape import is_naive
from generator.migrate.records import RawRec, Target
from generator.paths import runtime_module

TIME_NAME = re.compile(r"time|date|_at$|^at$|^ts$|when", re.IGNORECASE)


def instant(iso: str) -> datetime:
    """An ISO time (``Z`` allowed) as an aware datetime, to compare instants across zones."""
    return datetime.fromisoformat(iso[:-1] + "+00:00" if iso.endswith("Z") else iso)


def learn_times(raws: list[RawRec], pairs: list[tuple[RawRec, Target]], tz: str | None, exclude: set
                ) -> tuple[list[tuple], str, list[str], list[str]]:
    """(timestamp paths, zone of naive times, notes, questions) from the old output's times."""
    timestamps = runtime_module("timestamps")
    zone_name = tz or "UTC"
    old_zone = timestamps.zone(zone_name)
    notes, questions = [], []
    votes, offsets, naive_raw = _vote(pairs, old_zone, exclude)
    fields = [path for path, _ in votes.most_common()]
    if not fields and offsets:
        path, counter = max(offsets.items(), key=lambda kv: sum(kv[1].values()))
        seconds, _ = counter.most_common(1)[0]
        if len(counter) == 1 and tz is None:
            zone_name = _offset_name(seconds)
            fields = [path]
            notes.append(f"zone-less times in {dotted(path)} are read as {zone_name}: the old script's output "
                         "says so")
    if fields and naive_raw[fields[0]] and tz is None and not any(n.startswith("zone-less") for n in notes):
        questions.append(f"{dotted(fields[0])} holds times without a zone; they are read as UTC (give --timezone, "
                         "or set timestamps.timezone in .copier-answers.yml, if they are local times)")
    if not fields:
        fields = _named_like_times(raws, old_zone, exclude)
        if fields:
            questions.append("the old output had no timestamps to learn from; times are read from "
                             + ", ".join(dotted(p) for p in fields) + " (a guess from the field names)")
    return fields, zone_name, notes, questions


def _vote(pairs: list[tuple[RawRec, Target]], old_zone, exclude: set) -> tuple[Counter, dict, Counter]:
    """Per raw path: how often its time equals the old one, the offsets of zone-less ones that do
    not, and how many equal ones were zone-less."""
    timestamps = runtime_module("timestamps")
    votes: Counter = Counter()
    offsets: dict[tuple, Counter] = {}
    naive_raw: Counter = Counter()
    for rec, target in pairs:
        if target.old_ts in (None, ""):
            continue
        try:
            old = instant(timestamps.to_iso(target.old_ts, "auto", None, old_zone))
        except (ValueError, TypeError):
            continue
        old_naive = is_naive(target.old_ts)
        for path, value in rec.leaves:
            if path in exclude or isinstance(value, (dict, list, bool)) or value is None:
                continue
            try:
                raw = instant(timestamps.to_iso(value, "auto", None, old_zone))
            except (ValueError, TypeError):
                continue
            if raw == old:
                votes[path] += 1
                if is_naive(value):
                    naive_raw[path] += 1
            elif is_naive(value) and not old_naive:
                as_utc = instant(timestamps.to_iso(value, "auto", None, UTC))
                offsets.setdefault(path, Counter())[int((as_utc - old).total_seconds())] += 1
    return votes, offsets, naive_raw


def _offset_name(seconds: int) -> str:
    """The zone ``+HH:MM`` of local times that read ``seconds`` late as UTC."""
    sign = "-" if seconds > 0 else "+"
    hours, minutes = divmod(abs(seconds) // 60, 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def _named_like_times(raws: list[RawRec], old_zone, exclude: set) -> list[tuple]:
    """Fields named like times (time, date, ..._at, ts, when) that hold readable times."""
    timestamps = runtime_module("timestamps")
    fields: list[tuple] = []
    for rec in raws:
        for path, value in rec.leaves:
            if path in exclude or any(isinstance(p, int) for p in path):
                continue
            if isinstance(path[-1], str) and TIME_NAME.search(path[-1]):
                try:
                    timestamps.to_iso(value, "auto", None, old_zone)
                except (ValueError, TypeError):
                    continue
                if path not in fields:
                    fields.append(path)
    return fields


def files_without_time(raws: list[RawRec], fields: list[tuple]) -> list[str]:
    """The sample files none of whose records has a value in any of ``fields``."""
    if not fields:
        return sorted({r.where.rsplit(":", 1)[0] for r in raws})
    convert = runtime_module("convert")
    have: dict[int, bool] = {}
    names: dict[int, str] = {}
    for rec in raws:
        names[rec.file] = rec.where.split(" (record")[0].rsplit(":", 1)[0]
        if not have.get(rec.file):
            have[rec.file] = any(convert.get_path(rec.record, p) not in (convert.MISSING, None) for p in fields)
    return [names[f] for f, ok in have.items() if not ok]
