"""Field profiling: per-path statistics (``FieldStat``) over sampled records: presence, types,
distinct values, string lengths, how much the strings read as prose, and timestamp formats.

Contract: ``profile_fields`` walks every nested path (list elements under ``LIST``) and returns
{path: FieldStat}; memory stays bounded (MAX_DISTINCT values, capped hashes, TIME_PROBES probes).
``FieldStat.to_dict`` is a field's entry in the JSON report, with redacted examples.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from generator.inspect.examples import example
from generator.inspect.fieldpaths import dotted, walk
from generator.inspect.timeformats import HUMAN_LAYOUTS, time_formats
from generator.inspect.values import SPACE, str_json_kind, str_len, type_name

MAX_DISTINCT = 200
TIME_PROBES = 300


@dataclass
class FieldStat:
    """What one dotted path holds across the records that were read."""

    path: tuple
    records: int = 0  # records where the path is present and not null
    nulls: int = 0
    occurrences: int = 0
    types: Counter = field(default_factory=Counter)
    values: Counter = field(default_factory=Counter)  # scalar values, up to MAX_DISTINCT
    overflow: bool = False
    hashes: set = field(default_factory=set)  # for a cardinality estimate (capped)
    examples: list = field(default_factory=list)
    str_count: int = 0
    str_total: int = 0
    str_max: int = 0
    str_spaced: int = 0
    str_json_object: int = 0
    time_probes: int = 0
    time_formats: Counter = field(default_factory=Counter)
    layouts_ok: set | None = None  # human layouts that read every probed value

    def add(self, value: Any) -> None:
        self.occurrences += 1
        kind = type_name(value)
        self.types[kind] += 1
        if kind in ("object", "array"):
            return
        if kind == "null":
            return
        if len(self.hashes) < 20000:
            self.hashes.add(value if not isinstance(value, float) else repr(value))
        key = value
        if not self.overflow:
            if key in self.values or len(self.values) < MAX_DISTINCT:
                self.values[key] += 1
            else:
                self.overflow = True
        if len(self.examples) < 3 and value not in self.examples:
            self.examples.append(value)
        if isinstance(value, str):
            n = str_len(value)
            self.str_count += 1
            self.str_total += n
            self.str_max = max(self.str_max, n)
            if SPACE.search(value, 0, 200):
                self.str_spaced += 1
            if value[:1] in "{[" and str_json_kind(value) == "object":
                self.str_json_object += 1
        if self.time_probes < TIME_PROBES and kind in ("string", "int", "float") and (
                self.time_probes < 20 or self.time_formats):  # stop probing paths that never held a time
            self.time_probes += 1
            formats = time_formats(value)
            for fmt in formats:
                if not fmt.startswith("strptime:"):
                    self.time_formats[fmt] += 1
            layouts = {f for f in formats if f.startswith("strptime:")}
            if layouts:
                self.time_formats["strptime"] += 1
                self.layouts_ok = layouts if self.layouts_ok is None else self.layouts_ok & layouts

    # derived facts
    @property
    def cardinality(self) -> int:
        return len(self.hashes)

    @property
    def main_type(self) -> str:
        counts = Counter({k: v for k, v in self.types.items() if k != "null"})
        return counts.most_common(1)[0][0] if counts else "null"

    @property
    def avg_len(self) -> float:
        return self.str_total / self.str_count if self.str_count else 0.0

    @property
    def prose(self) -> float:
        """How much the strings look like text written for people (0..1)."""
        if not self.str_count:
            return 0.0
        spaced = self.str_spaced / self.str_count
        return spaced * min(1.0, self.avg_len / 40)

    @property
    def tokenish(self) -> bool:
        """Short identifiers without spaces (kind names, ids, enum values)."""
        return self.str_count > 0 and self.str_spaced == 0 and self.str_max <= 64

    def time_format(self) -> tuple[str | None, float]:
        """The best timestamp format of the values and the share of probed values it reads."""
        probed = sum(n for t, n in self.types.items() if t in ("string", "int", "float"))
        probed = min(probed, self.time_probes) or 0
        if not probed or not self.time_formats:
            return None, 0.0
        fmt, count = self.time_formats.most_common(1)[0]
        if fmt == "strptime" and self.layouts_ok:
            fmt = min(self.layouts_ok, key=lambda f: HUMAN_LAYOUTS.index(f.split(":", 1)[1]))
        elif fmt == "strptime":
            return None, 0.0
        return fmt, count / probed

    def to_dict(self, total: int, show_values: bool = False) -> dict:
        fmt, share = self.time_format()
        out: dict[str, Any] = {
            "path": dotted(self.path),
            "types": dict(self.types),
            "fill": round(self.records / total, 3) if total else 0.0,
            "records": self.records,
            "cardinality": self.cardinality if len(self.hashes) < 20000 else "20000+",
        }
        if self.str_count:
            out["avg_length"] = round(self.avg_len, 1)
            out["max_length"] = self.str_max
            if self.str_json_object:
                out["json_object_strings"] = self.str_json_object
        if fmt and share >= 0.8:
            out["time_format"] = fmt
        if self.values and not self.overflow and self.tokenish and self.cardinality <= 30:
            out["values"] = {example(k, show_values, self.path): v for k, v in self.values.most_common(30)}
        if self.examples:
            out["examples"] = [example(v, show_values, self.path) for v in self.examples]
        return out


def profile_fields(records: list[dict], stats: dict[tuple, FieldStat] | None = None, *,
                   times: bool = True) -> dict[tuple, FieldStat]:
    """Per-path statistics over records (every nested path, list elements under ``[]``).

    ``times=False`` skips timestamp probing (kind and block profiles reuse the global one).
    """
    stats = {} if stats is None else stats
    for record in records:
        nodes: list = []
        walk(record, (), nodes)
        seen: set = set()
        for path, value in nodes:
            if not path:
                continue
            stat = stats.get(path)
            if stat is None:
                stat = stats[path] = FieldStat(path)
                if not times:
                    stat.time_probes = TIME_PROBES
            if value is None:
                stat.nulls += 1
                stat.types["null"] += 1
                continue
            stat.add(value)
            if path not in seen:
                seen.add(path)
                stat.records += 1
    return stats

