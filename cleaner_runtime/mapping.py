"""Read the mapping from the answers file, complete it with its defaults and precompile its paths.

The mapping format is documented in the generator's docs/mapping.md and checked against
``mapping.schema.json`` (``mapping_check``) by the generator before rendering and by
``read_answers`` when a cleaner starts; this module only reads, fills gaps and compiles paths.
The defaults are the field defaults of the typed mapping (``model``); ``DEFAULTS`` is derived from
them, and ``read_mapping`` gives a cleaner the typed mapping itself.
The mapping lives in one place, the project's ``.copier-answers.yml``: the record of the render,
written as JSON (which is also YAML) so that the cleaner reads it with the standard library.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any, NamedTuple

from .model import Mapping, defaults
from .shapes import decoded

# The mapping's keys, in the order the answers file writes them; its other keys record the render.
MAPPING_KEYS = (
    "mapping_version", "source", "source_profile", "input", "session", "timestamps", "meta",
    "kinds", "unknown_kinds", "blocks", "tools", "sessions", "privacy",
)
REQUIRED_KEYS = ("mapping_version", "source", "kinds")

# Every default of the mapping, derived from the typed model (``model``), where they are written.
DEFAULTS: dict[str, Any] = defaults()


class Select(NamedTuple):
    """A path element that picks the first item of a list whose ``field`` holds ``value``: lists of
    name/value pairs (OpenTelemetry attributes, HTTP headers) read as ``[attributes, {key: x}, value]``."""

    field: str
    value: Any

    def __str__(self) -> str:
        return f"[{self.field}={self.value}]"


class Const(NamedTuple):
    """A path that is a fixed value rather than a place (``{value: bash}``): a tool name the format
    never writes because every call goes to one tool."""

    value: Any

    def __str__(self) -> str:
        return f"{{value: {self.value!r}}}"


Path = tuple[str | int | Select | Const, ...]
MISSING: Any = object()  # what get_path finds where a path leads nowhere


def get_path(record: Any, path: tuple) -> Any:
    node = record
    for key in path:
        if node.__class__ is dict and key.__class__ is str:  # the common case, one lookup
            got = node.get(key, MISSING)
            if got is MISSING:
                return _through_dotted_keys(record, node, key, path) if len(path) > 1 else MISSING
            node = got
        elif key.__class__ is Select:
            node = _selected(node, key)
            if node is MISSING:
                return MISSING
        elif key.__class__ is Const:
            return key.value
        elif node.__class__ is str:  # a JSON document inside a string (OpenTelemetry message attributes)
            return _get_through_strings(record, path)
        elif isinstance(node, dict):
            if key in node:
                node = node[key]
            elif isinstance(key, int) and str(key) in node:
                node = node[str(key)]
            else:
                return MISSING
        elif isinstance(node, list) and isinstance(key, int) and -len(node) <= key < len(node):
            node = node[key]
        else:
            return MISSING
    return node


def _through_dotted_keys(record: Any, node: dict, key: str, path: tuple) -> Any:
    """``get_path`` where the dict ``node`` lacks the step ``key`` (the slow path, apart so that the
    common one stays one loop): a key that holds dots itself (OpenTelemetry's `gen_ai.operation.name`
    under `attributes`), written dotted as every other path (a ``match`` key can be nothing else), is
    the longest run of this and the next segments joined by dots that is a key of ``node``; MISSING
    when none is. The walk goes on from ``node``, never again from the root, and each longer key is
    one concatenation: a miss of three steps costs about twice a hit (0.38 µs against 0.17 µs with
    timeit), where re-walking from the root cost six times."""
    at = path.index(key) if path.count(key) == 1 else _step_at(record, node, key, path)
    joined, found, end = key, None, at + 1
    while end < len(path) and path[end].__class__ is str:
        joined = joined + "." + path[end]
        end += 1
        if joined in node:
            found = (joined, end)
    if found is None:
        return MISSING
    value, rest = node[found[0]], path[found[1]:]
    return get_path(value, rest) if rest else value


def _step_at(record: Any, node: dict, key: str, path: tuple) -> int:
    """Which step of ``path`` (one naming ``key`` more than once) reached ``node`` and missed."""
    walked = record
    for at, step in enumerate(path):
        if walked is node and step == key:
            return at
        walked = get_path(walked, (step,))
    raise AssertionError("get_path missed a step that its path does not hold")


def _get_through_strings(record: Any, path: tuple) -> Any:
    """``get_path`` for a path that runs into a string: the rest of the path is read inside the
    JSON the string holds (the slow path, apart so that the common one stays one loop)."""
    node = record
    for at, key in enumerate(path):
        if node.__class__ is str:
            node = _decoded(node)
            if node is MISSING:
                return MISSING
            return get_path(node, path[at:])
        node = get_path(node, (key,))
        if node is MISSING:
            return MISSING
    return node


def _decoded(text: str) -> Any:
    """The JSON object or list a string holds, else MISSING: a path goes on into such a string."""
    value = decoded(text)
    return MISSING if value is text else value


def _selected(node: Any, select: Select) -> Any:
    """The first item of a list whose ``select.field`` holds ``select.value``."""
    if isinstance(node, list):
        for item in node:
            if isinstance(item, dict) and select.field in item and same_value(item[select.field], select.value):
                return item
    return MISSING


def same_value(a: Any, b: Any) -> bool:
    """Equality that keeps True apart from 1 and "1" apart from 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _index(part: str) -> bool:
    """A list index: ASCII digits without a leading zero ("²", "٣" and "05" are keys, not numbers)."""
    return part.isascii() and part.isdigit() and (part == "0" or not part.startswith("0"))


def compile_path(path: str | list) -> Path:
    """A dotted string or a list of keys, as a tuple; numeric dotted segments index lists."""
    if isinstance(path, dict):
        return (Const(path["value"]),)
    if isinstance(path, str):
        return tuple(int(part) if _index(part) else part for part in path.split("."))
    return tuple(Select(*next(iter(part.items()))) if isinstance(part, dict) else part for part in path)


def dotted(path: tuple) -> str:
    """``("message", "content")`` -> ``"message.content"``: a path in messages, and a ``match`` key."""
    return ".".join(str(part) for part in path)


def path_notation(path: tuple) -> str | list | dict:
    """A path as the mapping writes it, the inverse of ``compile_path``: dotted; a list of keys when
    a key holds a dot, is all digits (it would read as a list index) or is empty, or when a step
    selects an item of a list (``{key: x}``); ``{value: x}`` for a fixed value."""
    if len(path) == 1 and path[0].__class__ is Const:
        return {"value": path[0].value}
    if any(p.__class__ is Select or (isinstance(p, str) and ("." in p or p.isdigit() or p == "")) for p in path):
        return [{p.field: p.value} if p.__class__ is Select else p for p in path]
    return dotted(path)


def paths_notation(paths: list[tuple]) -> str | list:
    """Several paths (the first present wins) as the mapping writes them, the inverse of
    ``compile_paths``: one path alone as itself, a list of keys wrapped in a list."""
    if len(paths) == 1:
        single = path_notation(paths[0])
        return single if isinstance(single, str) else [single]
    return [path_notation(p) for p in paths]


def compile_paths(paths: Any) -> tuple[Path, ...]:
    """A path, or a list of paths, as a tuple of compiled paths (the first present wins).

    In a list-of-paths position a list always means several paths; a single path whose keys
    contain dots is written as a one-item list holding a list of keys: ``[["a.b", "c"]]``.
    """
    if paths is None:
        return ()
    if isinstance(paths, (str, dict)):
        return (compile_path(paths),)
    return tuple(compile_path(item) for item in paths)


def _merge(default: Any, given: Any) -> Any:
    if isinstance(default, dict) and isinstance(given, dict):
        merged = copy.deepcopy(default)
        for key, value in given.items():
            merged[key] = _merge(default.get(key), value) if key in default else value
        return merged
    return copy.deepcopy(given) if given is not None or default is None else copy.deepcopy(default)


def with_defaults(mapping: dict[str, Any]) -> dict[str, Any]:
    """The mapping with every optional section filled in."""
    return _merge(DEFAULTS, mapping)


def _holds_nothing(value: Any) -> bool:
    return value is None or value == [] or value == {}


def without_empty_defaults(mapping: dict[str, Any]) -> dict[str, Any]:
    """The mapping without the entries that hold nothing (``None``, ``[]``, ``{}``) where that is
    the default anyway, and without the sections left empty by that: ``with_defaults`` puts them
    back, so the cleaner reads the same mapping, and the answers file shows only what says something."""

    def prune(given: Any, default: Any) -> Any:
        if not isinstance(given, dict) or not isinstance(default, dict):
            return given
        kept = {}
        for key, value in given.items():
            if key in default:
                value = prune(value, default[key])
                if (_holds_nothing(value) and value == default[key]) or (value == {} and isinstance(default[key], dict)):
                    continue
            kept[key] = value
        return kept

    return prune(mapping, DEFAULTS)


class MappingError(Exception):
    """The answers file cannot be read as a mapping; the message names the file and what to do."""


def read_answers(path: str | os.PathLike) -> dict[str, Any]:
    """The mapping recorded in a rendered project's answers file, in the order of ``MAPPING_KEYS``.

    The file is JSON; lines whose first character (after blanks) is ``#`` are comments, as in YAML.
    Line numbers in messages are the file's own."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except FileNotFoundError:
        raise MappingError(f"{path}: missing; it holds this cleaner's mapping (restore it, or render the "
                           "cleaner again with `trajectory-cleaner new`)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MappingError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    lines = ["" if line.lstrip().startswith("#") else line for line in text.split("\n")]
    try:
        data = json.loads("\n".join(lines))
    except json.JSONDecodeError as exc:
        raise MappingError(
            f"{path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg}); the cleaner reads this file as JSON: fix it, "
            "or run `trajectory-cleaner update .`, which also reads YAML, checks the mapping and writes it back as JSON"
        ) from None
    missing = [key for key in REQUIRED_KEYS if key not in data] if isinstance(data, dict) else list(REQUIRED_KEYS)
    if missing:
        raise MappingError(f"{path}: no {', '.join(missing)}; it must be a JSON object holding the mapping "
                           "(run `trajectory-cleaner update .` to check it)")
    mapping = {key: data[key] for key in MAPPING_KEYS if key in data}
    from .mapping_check import check_mapping  # a hand-edited key fails loudly, as the generator says it

    return check_mapping(mapping, str(path))


def read_mapping(path: str | os.PathLike) -> Mapping:
    """The answers file's mapping as the typed model (``model.Mapping``): checked once, by
    ``read_answers``, and completed with its defaults; what a cleaner runs with."""
    return Mapping.from_checked(read_answers(path))
