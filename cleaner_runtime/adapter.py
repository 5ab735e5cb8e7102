"""The names a rendered cleaner's generated code is written with.

``clean_to_trajectory_jsonl.py`` holds its format's adapter, generated from the mapping: ``kind_of``
(which rule of ``kinds`` a raw record matches) and one function per kind saying what it writes,
through the calls of ``Out`` (``convert.SessionBuilder``: ``text``, ``call``, ``result``,
``entries``, ``time``). This module gives that code its vocabulary, so that it reads as plain
Python: ``field`` and ``first`` read paths as the mapping writes them (``"message.content"``, or a
tuple of keys where a key holds a dot), ``same`` compares as the mapping's ``match`` does.

The generated code means exactly what ``convert.Kind`` does with the same mapping (a property
test renders random mappings and compares); ``mapping_digest`` records which mapping it was
generated from, so that a run refuses an answers file edited since (``update`` regenerates).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from .convert import (
    Converter,
    Entry,
    Join,
    OkSpec,
    Part,
    SessionBuilder,
    compile_content,
    compile_ok,
    first_content,
    holds,
    read_ok,
)
from .mapping import MISSING, Const, Select, compile_path, get_path, same_value, with_defaults

Out = SessionBuilder
Writer = Callable[[SessionBuilder, dict], None]

__all__ = [
    "MISSING", "Const", "Converter", "Out", "Part", "Select", "check_adapter", "content", "entries", "equal_fields",
    "field", "first", "holds", "joined", "kind", "mapping_digest", "outcome", "present", "read_ok", "same",
]

_COMPILED: dict[Any, tuple] = {}  # a path as written -> its keys
_COMPILED_SETS: dict[tuple, tuple] = {}  # several paths as written -> their keys, for ``content``


def kind(name: str) -> Callable[[Writer], Writer]:
    """Name a kind's function after its rule in the mapping (skip counts and ``transform_kind``
    hooks use the name)."""

    def named(function: Writer) -> Writer:
        function.name = name  # type: ignore[attr-defined]
        return function

    return named


def _path(path: str | tuple) -> tuple:
    """A path as the mapping writes it (dotted) or as keys, compiled once."""
    try:
        compiled = _COMPILED.get(path)
    except TypeError:  # a fixed value that is a structure ({value: [...]}): not remembered
        return tuple(path)
    if compiled is None:
        compiled = compile_path(path) if path.__class__ is str else tuple(path)
        _COMPILED[path] = compiled
    return compiled


def field(record: Any, *keys: Any) -> Any:
    """The value at a path of keys (list indexes, ``Select``, ``Const``); MISSING where there is none."""
    if len(keys) == 1 and record.__class__ is dict and keys[0].__class__ is str:  # get_path's first step
        return record.get(keys[0], MISSING)
    return get_path(record, keys)


def first(record: Any, *paths: str | tuple) -> Any:
    """The value of the first path that holds one (not absent, not null); MISSING when none does."""
    for path in paths:
        try:
            compiled = _COMPILED[path]  # the common case, without a call
        except (KeyError, TypeError):
            compiled = _path(path)
        if len(compiled) == 1 and record.__class__ is dict and compiled[0].__class__ is str:
            value = record.get(compiled[0])  # get_path's first step, where absent and null are alike
        else:
            value = get_path(record, compiled)
        if value is not MISSING and value is not None:
            return value
    return MISSING


def content(record: Any, *paths: str | tuple) -> Any:
    """Like ``first``, but an empty string, list or object gives way to a later path that holds
    something (a message's ``content: ""`` beside the ``tool_calls`` that matter)."""
    try:
        compiled = _COMPILED_SETS.get(paths)
        if compiled is None:
            compiled = _COMPILED_SETS[paths] = tuple(_path(path) for path in paths)
    except TypeError:
        compiled = tuple(_path(path) for path in paths)
    return first_content(record, compiled)


def present(value: Any) -> bool:
    """Whether a field is there and not null (a rule's ``has``)."""
    return value is not MISSING and value is not None


def same(value: Any, *expected: Any) -> bool:
    """Whether a value is one of ``expected``, as ``match`` compares: true is not 1, "1" is not 1."""
    return any(same_value(value, wanted) for wanted in expected)


def joined(spec: dict) -> Join:
    """Content composed of several fields (the mapping's ``join``), compiled."""
    return compile_content(spec)  # type: ignore[return-value]


def outcome(spec: Any) -> OkSpec | None:
    """How a tool result's success is read (the mapping's ``ok``), compiled; for ``read_ok``."""
    return compile_ok(spec)


def entries(specs: list[dict]) -> list[Entry]:
    """A kind's ``emit`` (several records from one raw record, in order), compiled."""
    return [Entry.compile(spec) for spec in specs]


def mapping_digest(mapping: dict) -> str:
    """A fingerprint of what generated code is made from: the rules of ``kinds``, the default
    timestamp fields and the block types."""
    full = with_defaults({key: mapping[key] for key in ("kinds", "timestamps", "blocks") if key in mapping})
    blocks = full["blocks"]
    text = json.dumps([full.get("kinds"), full["timestamps"]["fields"], blocks["types"], blocks["by_key"]],
                      sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def check_adapter(adapter: Any, mapping: dict, answers: str = ".copier-answers.yml") -> str | None:
    """Why the generated code cannot run with this mapping, or None: it must have been generated
    from it (an answers file edited by hand since is regenerated by ``update``)."""
    for name in ("kind_of", "MAPPING_DIGEST"):
        if not hasattr(adapter, name):
            return f"the cleaner script defines no {name}; regenerate it with `trajectory-cleaner update .`"
    if adapter.MAPPING_DIGEST != mapping_digest(mapping):
        return (f"the kinds, block types or timestamp fields in {answers} changed since clean_to_trajectory_jsonl.py "
                "was generated from them; run `trajectory-cleaner update .` to regenerate it (a script edited by "
                "hand is kept: update then writes the new code beside it, as clean_to_trajectory_jsonl.py.new)")
    return None


def equal_fields(record: Any, path: str | tuple, other: str | tuple) -> bool:
    """Whether a field holds something and another holds the same (a rule's ``same``: a ticket's
    first comment repeating its description)."""
    value = get_path(record, _path(path))
    return holds(value) and same_value(value, get_path(record, _path(other)))
