"""What the items of a list beside a message's text carry: a call's own result, outcome and time,
and the thoughts kept as a list of objects.

Why: some formats keep a whole tool exchange in each item of a message's call list (the call, its
``result`` nested a few levels down, a ``status``, the item's own ``timestamp``), and the model's
thoughts as a list of ``{subject, description, timestamp}`` objects rather than one string. Read
as plain calls and text, the results and the thoughts reach no output record: the search sees
the loss but no candidate avoids it. These functions find those parts by their structure and
values, so ``embedded`` can write each item as an exchange and each thought as a reasoning record.

Contract: every function takes the records of one kind and a list's path in them, looks at the
list's items only, and returns item-relative paths (or ``None`` when most items do not agree).
"""

from __future__ import annotations

import re
from typing import Any

from cleaner_runtime.timestamps import TimestampError, to_iso
from generator.infer.calls import ARG_KEYS, ID_KEYS, NAME_KEYS, OUTPUT_KEYS, norm
from generator.infer.outcomes import success_values
from generator.inspect import get

RESULT_KEYS = ("result", "results", "output", "outputs", "response", "observation", "return_value", "tool_result")
TIME_KEYS = ("timestamp", "time", "ts", "created_at", "created", "started_at", "start_time", "date")
STATUS_KEYS = ("status", "state", "outcome")
MAX_DEPTH = 6
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|^\d{9,13}(\.\d+)?$")  # ISO text, or epoch digits


def _items(records: list[dict], path: tuple) -> list[dict]:
    out = []
    for record in records:
        items = get(record, path)
        if isinstance(items, list):
            out.extend(item for item in items if isinstance(item, dict))
    return out


def _most(items: list[dict], found: list) -> Any:
    """The value found for most items, when it is found for at least half of them."""
    counted = [f for f in found if f is not None]
    if not counted:
        return None
    best = max(set(counted), key=counted.count)
    return best if counted.count(best) * 2 >= len(items) else None


def _text_below(node: Any, depth: int = 0) -> tuple | None:
    """The path to the text a result holds: an output-named key first, else the one way down
    (a list's first element, a dict's only non-id field)."""
    if isinstance(node, str):
        return ()
    if depth >= MAX_DEPTH:
        return None
    if isinstance(node, list):
        below = _text_below(node[0], depth + 1) if node else None
        return None if below is None else (0, *below)
    if not isinstance(node, dict):
        return None
    named = [k for k in node if norm(k) in OUTPUT_KEYS]
    rest = [k for k in node if norm(k) not in ID_KEYS | NAME_KEYS]
    for key in named or (rest if len(rest) == 1 else []):
        below = _text_below(node[key], depth + 1)
        if below is not None:
            return (key, *below)
    return None


def item_result(records: list[dict], path: tuple, call: tuple = ()) -> tuple | None:
    """Where each call item keeps its own result's text (``result.0.functionResponse.response.output``);
    ``call`` holds the item paths of the call itself (its name, arguments), never the result."""
    items = _items(records, path)
    own = {p[0] for p in call if p}
    found = []
    for item in items:
        named = [k for k in item if norm(k) in RESULT_KEYS and norm(k) not in ARG_KEYS and k not in own]
        # else the one nested value that is not the call: a result under a name of its own
        nested = [k for k in item if isinstance(item[k], (dict, list)) and norm(k) not in ARG_KEYS and k not in own]
        keys = named or (nested if len(nested) == 1 else [])
        below = _text_below(item[keys[0]]) if keys else None
        found.append(None if below is None else (keys[0], *below))
    return _most(items, found)


def _is_time(value: Any) -> bool:
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        return False
    if isinstance(value, str) and not _DATE.match(value.strip()):
        return False
    try:
        to_iso(value)
    except (TimestampError, ValueError, OverflowError):
        return False
    return True


def item_time(records: list[dict], path: tuple) -> tuple | None:
    """The item's own time field, when its values read as times."""
    items = _items(records, path)
    found = [next(((k,) for k in item if (norm(k) in TIME_KEYS or isinstance(item[k], str)) and _is_time(item[k])),
                  None) for item in items]
    return _most(items, found)


def item_ok(records: list[dict], path: tuple) -> dict | None:
    """An item's outcome: a status whose values include a success word (``status: success``)."""
    items = _items(records, path)
    for key in STATUS_KEYS:
        wins = success_values(item[k] for item in items for k in item if norm(k) == key)
        if wins:
            field = next(k for item in items for k in item if norm(k) == key)
            return {"path": field, "values": wins}
    return None


def thought_list(records: list[dict], parent: tuple, names: set[str]) -> tuple | None:
    """A list of thought objects beside the text (its key among ``names``), as (path, the text
    fields of an item in order): ``thoughts: [{subject, description, timestamp}]``."""
    for record in records:
        holder = get(record, parent) if parent else record
        if not isinstance(holder, dict):
            continue
        for key, value in holder.items():
            if not {norm(key), norm(key).removesuffix("s")} & names or not isinstance(value, list) or not value:
                continue
            if not all(isinstance(item, dict) for item in value):
                continue
            fields: list[str] = []
            for item in value:
                for k, v in item.items():
                    if isinstance(v, str) and v.strip() and not _is_time(v) and norm(k) not in ID_KEYS \
                            and norm(k) not in ("type", "kind") and k not in fields:
                        fields.append(k)
            if fields:
                return (*parent, key), tuple(fields)
    return None
