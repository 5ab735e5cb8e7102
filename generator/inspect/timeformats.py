"""Timestamps in values: every format a raw value could be read as (ISO, epoch units, human
``strptime`` layouts), and reading a value as seconds since the epoch.

Contract: ``time_formats`` never raises and returns a set of format names; ``parse_time`` returns
None for a value the format does not read, and reads naive times as UTC.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any

HUMAN_LAYOUTS = [
    "%d/%m/%Y %H:%M:%S", "%m/%d/%Y %H:%M:%S", "%d/%m/%Y %H:%M", "%m/%d/%Y %H:%M",
    "%d/%m/%Y %H:%M:%S.%f", "%m/%d/%Y %H:%M:%S.%f",
    "%m/%d/%Y %I:%M:%S %p", "%d/%m/%Y %I:%M:%S %p", "%m/%d/%Y %I:%M %p", "%d/%m/%Y %I:%M %p",
    "%Y/%m/%d %H:%M:%S", "%Y/%m/%d %H:%M", "%Y/%m/%d %H:%M:%S.%f",
    "%d.%m.%Y %H:%M:%S", "%d.%m.%Y %H:%M", "%d-%m-%Y %H:%M:%S", "%m-%d-%Y %H:%M:%S",
    "%b %d, %Y %H:%M:%S", "%b %d %Y %H:%M:%S", "%d %b %Y %H:%M:%S", "%d %B %Y %H:%M:%S", "%B %d, %Y %H:%M:%S",
    "%b %d, %Y %I:%M:%S %p", "%b %d, %Y %I:%M %p", "%B %d, %Y %I:%M %p", "%d %b %Y %H:%M",
    "%a, %d %b %Y %H:%M:%S %z", "%a, %d %b %Y %H:%M:%S GMT", "%a %b %d %H:%M:%S %Y", "%a %b %d %H:%M:%S %z %Y",
    "%d/%b/%Y:%H:%M:%S %z", "%Y-%m-%d %H:%M:%S,%f", "%Y%m%d %H%M%S", "%Y%m%d%H%M%S",
    "%Y-%m-%d %H:%M:%S %Z", "%Y-%m-%d %H:%M:%S %z", "%Y-%m-%d %H.%M.%S", "%d-%b-%Y %H:%M:%S",
]
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}", re.ASCII)
_NUMERIC = re.compile(r"[+-]?\d+(\.\d+)?", re.ASCII)
_HAS_ZONE = re.compile(r"(Z|[+-]\d{2}:?\d{2})$", re.ASCII)
_HUMANISH = re.compile(r"\d{1,2}[:.]\d{2}|\d{8}", re.ASCII)  # every human layout has a clock time
EPOCH_RANGES = (("epoch_s", 9.46e8, 4.1e9), ("epoch_ms", 9.46e11, 4.1e12), ("epoch_us", 9.46e14, 4.1e15),
                ("epoch_ns", 9.46e17, 4.1e18))  # years 2000..2099


def epoch_unit(number: float) -> str | None:
    for unit, low, high in EPOCH_RANGES:
        if low <= number <= high:
            return unit
    return None


def time_formats(value: Any) -> set[str]:
    """Every format a raw value could be read as: iso, iso_naive, epoch_*, strptime:<layout>."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, (int, float)):
        unit = epoch_unit(float(value)) if math.isfinite(value) else None
        return {unit} if unit else set()
    if not isinstance(value, str) or len(value) > 64 or len(value) < 6:
        return set()
    text = value.strip()
    if _NUMERIC.fullmatch(text):
        unit = epoch_unit(float(text))
        return {unit + "_string"} if unit else set()
    if _ISO_DATE.match(text):
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            moment = None
        if moment is not None:
            return {"iso" if moment.tzinfo is not None or _HAS_ZONE.search(text) else "iso_naive"}
    found = set()
    if len(text) <= 40 and _HUMANISH.search(text):
        for layout in HUMAN_LAYOUTS:
            try:
                datetime.strptime(text, layout)
            except ValueError:
                continue
            found.add("strptime:" + layout)
    return found


def parse_time(value: Any, fmt: str) -> float | None:
    """Seconds since the epoch for monotonicity and gaps, read by the cleaner's own timestamp reader
    (``cleaner_runtime.timestamps.to_iso``; naive values as UTC); None when it cannot read it."""
    from cleaner_runtime.timestamps import TimestampError, to_iso

    if fmt.startswith("strptime:"):
        runtime_format, layout = "strptime", fmt.split(":", 1)[1]
    else:
        runtime_format, layout = ("iso" if fmt == "iso_naive" else fmt.removesuffix("_string")), None
    try:
        iso = to_iso(value, runtime_format, layout)
    except (TimestampError, ValueError, TypeError, OverflowError):
        return None
    return datetime.fromisoformat(iso).timestamp()  # Python 3.11 reads the "Z"

