"""Timestamp fields: which fields hold times, in which format, how full, how ordered within a
session, and the gaps between records.

Contract: ``find_times`` returns TimeFields best first (timestamp-like names, then fill); a bare
number is a time only when its name says so. ``time_name_rank`` ranks a field's name.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from generator.inspect.fieldpaths import LIST, dotted, get
from generator.inspect.fields import FieldStat
from generator.inspect.records import Rec
from generator.inspect.sessions import SessionInfo, session_key
from generator.inspect.timeformats import parse_time
from generator.inspect.vocab import TIME_LATE_WORDS, TIME_WORDS, words


@dataclass
class TimeField:
    path: tuple
    format: str
    share: float
    fill: float
    name_rank: int
    monotonic: float | None = None
    median_gap: float | None = None
    max_gap: float | None = None

    def to_dict(self) -> dict:
        return {"path": dotted(self.path), "format": self.format, "readable": round(self.share, 3),
                "fill": round(self.fill, 3), "monotonic": None if self.monotonic is None else round(self.monotonic, 3),
                "median_gap_s": self.median_gap, "max_gap_s": self.max_gap}


def time_name_rank(path: tuple) -> int:
    """0 for timestamp-like names, 1 other time words, 2 no time word, 3 end/updated times."""
    name = str(path[-1]).lower()
    ws = set(words(str(path[-1])))
    if ws & TIME_LATE_WORDS or name in TIME_LATE_WORDS:
        return 3
    if name in ("timestamp", "ts", "time", "@timestamp", "datetime", "date"):
        return 0
    if name in TIME_WORDS or ws & TIME_WORDS:
        return 1
    return 2


def find_times(recs: list[Rec], stats: dict[tuple, FieldStat], session: SessionInfo) -> list[TimeField]:
    total = len(recs) or 1
    found = []
    for path, stat in stats.items():
        if LIST in path or not stat.records:
            continue
        fmt, share = stat.time_format()
        if not fmt or share < 0.8:
            continue
        rank = time_name_rank(path)
        if fmt.startswith("epoch") and rank >= 2:
            continue  # a bare number is a time only when its name says so
        found.append(TimeField(path, fmt, share, stat.records / total, rank))
    for tf in found:
        by_session: dict[Any, list[float]] = defaultdict(list)
        for rec in recs:
            value = get(rec.data, tf.path)
            if value is not None:
                seconds = parse_time(value, tf.format)
                if seconds is not None:
                    by_session[session_key(rec, session)].append(seconds)
        pairs = ordered = 0
        gaps: list[float] = []
        for seq in by_session.values():
            for a, b in itertools.pairwise(seq):
                pairs += 1
                ordered += b >= a
                gaps.append(abs(b - a))
        if pairs:
            tf.monotonic = ordered / pairs
            gaps.sort()
            tf.median_gap = round(gaps[len(gaps) // 2], 3)
            tf.max_gap = round(gaps[-1], 3)
    found.sort(key=lambda t: (t.name_rank, -t.fill, len(t.path)))
    return found

