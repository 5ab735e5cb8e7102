"""Read raw timestamps in the forms traces use and write trajectory-v1 ISO-8601 instants.

An ISO value that already carries a zone is kept verbatim (so a cleaner never rewrites what the
source said); naive values get the mapping's zone; epoch numbers become UTC with milliseconds.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# The trajectory-v1 pattern, made strict: ASCII digits only and no trailing newline.
ISO_WITH_ZONE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})",
    re.ASCII,
)
_NUMERIC = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?", re.ASCII)
_OFFSET = re.compile(r"([+-])([0-9]{2}):?([0-9]{2})", re.ASCII)
_EPOCH_DIVISORS = {"epoch_s": 1, "epoch_ms": 1_000, "epoch_us": 1_000_000, "epoch_ns": 1_000_000_000}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class TimestampError(ValueError):
    """A timestamp value that cannot be read as the mapping says."""


def zone(name: str) -> tzinfo:
    """``UTC``, a fixed offset such as ``+02:00``, or an IANA zone name."""
    if name.upper() in ("UTC", "Z"):
        return UTC
    offset = _OFFSET.fullmatch(name)
    if offset:
        sign = -1 if offset.group(1) == "-" else 1
        return timezone(sign * timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3))))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise TimestampError(f"unknown time zone {name!r} (use UTC, +02:00 or an IANA name)") from exc


def _format(moment: datetime) -> str:
    """ISO-8601 with milliseconds (microseconds when they matter) and Z for UTC."""
    spec = "milliseconds" if moment.microsecond % 1000 == 0 else "microseconds"
    text = moment.isoformat(timespec=spec)
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _epoch_unit(value: float) -> str:
    magnitude = abs(value)
    if magnitude < 1e11:
        return "epoch_s"
    if magnitude < 1e14:
        return "epoch_ms"
    if magnitude < 1e17:
        return "epoch_us"
    return "epoch_ns"


def _from_epoch(value: float | str, unit: str) -> str:
    try:  # a 401-digit epoch overflows float(); over 4,300 digits int() refuses: both are bad values
        if isinstance(value, str):
            number: float | int = float(value) if "." in value else int(value)
        else:
            number = value
        if unit == "auto":
            unit = _epoch_unit(float(number))
    except (OverflowError, ValueError) as exc:
        shown = value[:40] if isinstance(value, str) else f"a {value.bit_length()}-bit number"
        raise TimestampError(f"epoch value {shown!r} is out of range") from exc
    divisor = _EPOCH_DIVISORS[unit]
    try:
        if isinstance(number, int):
            seconds, rest = divmod(number, divisor)
            moment = _EPOCH + timedelta(seconds=seconds, microseconds=rest * 1_000_000 // divisor)
        else:
            moment = _EPOCH + timedelta(seconds=number / divisor)
    except (OverflowError, ValueError) as exc:
        raise TimestampError(f"epoch value {value!r} is out of range") from exc
    return _format(moment)


def _real_instant(text: str, raw: str) -> str:
    """``text``, which has the form of an instant with a zone, if it names a real one (no 25:00,
    no February 30th); the error quotes the ``raw`` value it was read from."""
    try:
        datetime.fromisoformat(text)
    except ValueError as exc:
        raise TimestampError(f"{raw!r} is not a real date and time") from exc
    return text


def _from_iso(text: str, naive_zone: tzinfo) -> str:
    candidate = text.strip()
    if ISO_WITH_ZONE.fullmatch(candidate):
        return _real_instant(candidate, text)
    try:
        moment = datetime.fromisoformat(candidate)
    except ValueError as exc:
        raise TimestampError(f"{text!r} is not an ISO-8601 date and time") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=naive_zone)
    return _format(moment)


def to_iso(value: object, fmt: str = "auto", layout: str | None = None, naive_zone: tzinfo = UTC) -> str:
    """The trajectory-v1 timestamp for one raw value; raises TimestampError when unreadable."""
    if value.__class__ is str and fmt == "auto" and ISO_WITH_ZONE.fullmatch(value):
        return _real_instant(value, value)  # already trajectory-v1 (most values): kept verbatim, as _from_iso does
    if isinstance(value, bool) or value is None:
        raise TimestampError(f"{value!r} is not a timestamp")
    if fmt == "strptime":
        if not isinstance(value, str) or not layout:
            raise TimestampError(f"{value!r} does not match layout {layout!r}")
        try:
            moment = datetime.strptime(value.strip(), layout)
        except ValueError as exc:
            raise TimestampError(f"{value!r} does not match layout {layout!r}") from exc
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=naive_zone)
        return _format(moment)
    if isinstance(value, (int, float)):
        if fmt not in ("auto", *_EPOCH_DIVISORS):
            raise TimestampError(f"{value!r} is a number, not an ISO-8601 string")
        if isinstance(value, float) and not math.isfinite(value):
            raise TimestampError(f"{value!r} is not a timestamp")
        return _from_epoch(value, fmt)
    if not isinstance(value, str):
        raise TimestampError(f"{type(value).__name__} value is not a timestamp")
    if fmt in _EPOCH_DIVISORS or (fmt == "auto" and _NUMERIC.fullmatch(value.strip())):
        if not _NUMERIC.fullmatch(value.strip()):
            raise TimestampError(f"{value!r} is not an epoch number")
        return _from_epoch(value.strip(), fmt)
    return _from_iso(value, naive_zone)


def from_mtime(seconds: float) -> str:
    """A file modification time as a UTC instant (whole seconds: mtimes are not event times)."""
    return _format(datetime.fromtimestamp(int(seconds), tz=UTC))
