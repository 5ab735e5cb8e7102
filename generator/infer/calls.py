"""Tool calls recognised by their structure, wherever a record keeps them.

Formats put a model's calls in a list beside its text: ``tool_calls`` at the top of a message,
``choices.0.message.tool_calls`` in a chat-completion response, ``output.tool_calls`` in a runner
event, ``content`` in an AutoGen request event. The items are typed (``{"type": "function",
"function": {...}}``) or not, and their arguments are an object or a JSON string. What makes a
list a call list is its items: every one names a tool (a token-like string under a name key) and
carries arguments or an id. The result lists beside them (AutoGen's execution events) are
recognised the same way: every item carries a link whose values are ids of those calls.

Contract: ``find_call_lists(records)`` -> the call lists (path in the record; id, name and
argument paths in an item; how many calls; their ids). ``find_result_lists(records, ids)`` -> the
lists whose items answer those ids. Both look at most ``MAX_DEPTH`` keys deep and into the first
element of a list on the way (``choices.0``). Nothing here reads field names alone: a key is a
candidate by its name, and confirmed by its values.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

MAX_DEPTH = 4
NAME_KEYS = {"name", "tool_name", "tool", "function_name", "toolname", "action", "command_name", "tool_id"}
ARG_KEYS = {"args", "arguments", "input", "inputs", "parameters", "params", "tool_input", "kwargs", "action_input",
            "tool_args", "tool_arguments"}
ID_KEYS = {"id", "call_id", "tool_call_id", "tool_use_id", "invocation_id", "action_id", "use_id"}
OUTPUT_KEYS = ("content", "output", "result", "results", "observation", "response", "text", "data", "value",
               "return_value", "stdout")
LINK_KEYS = {"call_id", "tool_call_id", "tool_use_id", "id", "invocation_id", "action_id", "use_id", "ref"}
CALL_LIST_WORDS = {"call", "calls", "tool", "tools", "function", "functions", "action", "actions", "invocations"}
_TOKEN = re.compile(r"[A-Za-z_][\w.:\-/]{0,79}")


def norm(key: Any) -> str:
    """``toolCallId`` / ``tool-call-id`` / ``TOOL_CALL_ID`` -> ``tool_call_id`` (lower-cased before the
    separators are collapsed: upper-case names and values keep their letters)."""
    return re.sub(r"[^a-z0-9]+", "_", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", str(key)).lower()).strip("_")


@dataclass(frozen=True)
class CallList:
    """A list of tool calls at ``path`` in a record; the paths of an item's id, tool name and args."""

    path: tuple
    call_id: tuple | None
    tool_name: tuple
    args: tuple | None
    calls: int
    records: int  # records holding a non-empty list there
    ids: frozenset


@dataclass(frozen=True)
class ResultList:
    """A list of tool results at ``path``: each item's link to a call id, its output and tool name."""

    path: tuple
    link: tuple
    content: tuple | None
    tool_name: tuple | None
    results: int


# words that say how a value is written or cut, not what it is: ``arguments_json`` holds the
# arguments, ``output_preview`` the output (as much of it as the format kept)
ENCODING_WORDS = {"json", "str", "string", "raw", "serialized", "serialised", "encoded", "preview", "snippet",
                  "excerpt", "truncated", "full"}


def bare_name(key: Any) -> str:
    """A field name without the words that say how its value is encoded (``arguments_json`` ->
    ``arguments``, ``json_args`` -> ``args``); the name itself when it is nothing else."""
    kept = [w for w in norm(key).split("_") if w not in ENCODING_WORDS]
    return "_".join(kept) or norm(key)


def args_value(value: Any) -> Any:
    """A call's arguments as a value: JSON text parsed (empty text is no arguments, ``{}``), text that
    is not JSON left as text, anything else as it is. Formats send arguments both ways."""
    if isinstance(value, str):
        try:
            return json.loads(value) if value.strip() else {}
        except ValueError:
            return value
    return value


def _leaves(item: dict, depth: int = 2) -> list[tuple[tuple, Any]]:
    """(path, value) of an item's fields, two levels deep (``function.name``)."""
    out: list[tuple[tuple, Any]] = []
    stack = [((), item)]
    while stack:
        prefix, node = stack.pop()
        for key, value in node.items():
            path = (*prefix, key)
            out.append((path, value))
            if isinstance(value, dict) and len(path) < depth:
                stack.append((path, value))
    return out


def _is_args(value: Any) -> bool:
    if isinstance(value, dict):
        return True
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return True
        if text.startswith("{"):
            try:
                return isinstance(json.loads(text), dict)
            except ValueError:
                return False
    return False


def call_shape(item: Any) -> tuple[tuple | None, tuple, tuple | None] | None:
    """(id path, name path, args path) when the item is a tool call, else None."""
    if not isinstance(item, dict):
        return None
    leaves = _leaves(item)
    names = [p for p, v in leaves if norm(p[-1]) in NAME_KEYS and isinstance(v, str) and _TOKEN.fullmatch(v)]
    args = [p for p, v in leaves if (norm(p[-1]) in ARG_KEYS or bare_name(p[-1]) in ARG_KEYS) and _is_args(v)]
    args.sort(key=lambda p: norm(p[-1]) not in ARG_KEYS)  # the plain name first
    ids = [p for p, v in leaves if norm(p[-1]) in ID_KEYS and len(p) == 1 and (
        isinstance(v, str) and v or isinstance(v, int) and not isinstance(v, bool))]
    if not names or not (args or ids):
        return None
    # the name beside the arguments (function.name next to function.arguments) is the tool's
    if args:
        beside = [n for n in names if n[:-1] == args[0][:-1]]
        names = beside or names
    names.sort(key=len)
    return (ids[0] if ids else None), names[0], (args[0] if args else None)


def _lists(record: dict) -> list[tuple[tuple, list]]:
    """(path, list of objects) in a record, up to MAX_DEPTH keys deep; lists on the way are entered
    at their first element."""
    out: list[tuple[tuple, list]] = []
    stack: list[tuple[tuple, Any]] = [((), record)]
    while stack:
        path, node = stack.pop()
        if len(path) >= MAX_DEPTH:
            continue
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                    out.append(((*path, key), value))
                    stack.append(((*path, key, 0), value[0]))
                elif isinstance(value, dict):
                    stack.append(((*path, key), value))
    return out


def find_call_lists(records: list[dict]) -> list[CallList]:
    """Lists every item of which is a tool call, in the same shape, across the records."""
    seen: dict[tuple, list] = defaultdict(list)  # path -> [shape per item]
    holders: dict[tuple, int] = defaultdict(int)
    broken: set[tuple] = set()
    ids: dict[tuple, set] = defaultdict(set)
    for record in records:
        for path, items in _lists(record):
            if path in broken:
                continue
            shapes = [call_shape(item) for item in items]
            if any(shape is None for shape in shapes):
                broken.add(path)
                continue
            seen[path].extend(shapes)
            holders[path] += 1
            for item, shape in zip(items, shapes, strict=True):
                if shape[0] is not None:
                    ids[path].add(str(item[shape[0][0]]))
    out = []
    for path, shapes in seen.items():
        if path in broken:
            continue
        common = max(set(shapes), key=shapes.count)
        if shapes.count(common) < len(shapes):  # one shape in every item: one list of calls, not a mix
            continue
        if common[2] is None and not CALL_LIST_WORDS & set(norm(path[-1]).split("_")):
            continue  # a name and an id without arguments: files, people, labels - unless called calls
        out.append(CallList(path, common[0], common[1], common[2], len(shapes), holders[path], frozenset(ids[path])))
    # a call list nested in another one's items is the same calls seen twice; keep the outer
    return [c for c in out if not any(o is not c and c.path[: len(o.path)] == o.path for o in out)]


def find_result_lists(records: list[dict], call_ids: set[str]) -> list[ResultList]:
    """Lists every item of which answers one of ``call_ids`` (by a link key) and carries an output."""
    found: dict[tuple, list] = defaultdict(list)
    broken: set[tuple] = set()
    for record in records:
        for path, items in _lists(record):
            if path in broken:
                continue
            shapes = []
            for item in items:
                link = next((k for k, v in item.items() if norm(k) in LINK_KEYS and isinstance(v, (str, int))
                             and str(v) in call_ids), None)
                if link is None:
                    break
                output = next((k for k in item if norm(k) in OUTPUT_KEYS and k != link), None) or next(
                    (k for k in item if bare_name(k) in OUTPUT_KEYS and k != link), None)
                name = next((k for k, v in item.items() if norm(k) in NAME_KEYS and isinstance(v, str)), None)
                shapes.append(((link,), (output,) if output else None, (name,) if name else None))
            else:
                found[path].extend(shapes)
                continue
            broken.add(path)
    out = []
    for path, shapes in found.items():
        if path in broken or not shapes:
            continue
        common = max(set(shapes), key=shapes.count)
        if shapes.count(common) == len(shapes):
            out.append(ResultList(path, common[0], common[1], common[2], len(shapes)))
    return out
