"""Small facts about single values: JSON type names, token-like strings, byte sizes, and long
strings kept shortened (``LongText`` remembers the whole value's length and whether it held JSON).

Contract: pure functions. ``shrink`` bounds the memory of a kept record (strings over KEEP_STRING
are cut); ``str_len`` and ``str_json_kind`` answer for the original value. Imports nothing from the
package.
"""

from __future__ import annotations

import json
import re
from typing import Any

KEEP_STRING = 2000


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


SPACE = re.compile(r"\s")


def token_like(value: str) -> bool:
    return 0 < len(value) <= 64 and not SPACE.search(value)


def human_size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"


class LongText(str):
    """A long string kept shortened in the sample; remembers what the whole value was."""

    original_length: int
    json_kind: str | None

    def __new__(cls, text: str, original_length: int, json_kind: str | None):
        obj = super().__new__(cls, text)
        obj.original_length = original_length
        obj.json_kind = json_kind
        return obj


def json_kind_of(text: str) -> str | None:
    """``object``/``array`` when a string holds a JSON object or array (tool arguments often do)."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return "object" if isinstance(value, dict) else "array" if isinstance(value, list) else None


def shrink(value: Any) -> Any:
    """The record with very long strings cut (memory stays bounded by the byte budget)."""
    if isinstance(value, str):
        if len(value) > KEEP_STRING:
            return LongText(value[: KEEP_STRING // 2] + value[-200:], len(value), json_kind_of(value))
        return value
    if isinstance(value, dict):
        return {k: shrink(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shrink(v) for v in value]
    return value


def str_len(value: str) -> int:
    return value.original_length if isinstance(value, LongText) else len(value)


def str_json_kind(value: str) -> str | None:
    return value.json_kind if isinstance(value, LongText) else json_kind_of(value)

