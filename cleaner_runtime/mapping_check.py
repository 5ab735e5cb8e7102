"""Check a mapping against the mapping schema: one clear message naming the key that is wrong.

Why here: the mapping is checked where it is used. The generator checks it before rendering, and a
cleaner checks the answers file it reads (``mapping.read_answers``), so a hand-edited key with a
typo fails loudly with the same message (``kinds[1]: unknown key 'contents'; did you mean
'content'?``) instead of being ignored. The schema is ``mapping.schema.json`` beside this module.

Contract: ``check_mapping(mapping, origin)`` returns the mapping when valid, else raises
``MappingError("<origin>: <key>: <what is wrong>")``. The verdict is jsonschema's; the schema
compiled into one Python check (``schema_compiler.compile_document``) finds it, and jsonschema
itself runs only to explain an invalid mapping.
"""

from __future__ import annotations

import difflib
import json
from functools import cache
from pathlib import Path
from typing import Any

from .mapping import MappingError

SCHEMA = Path(__file__).resolve().parent / "mapping.schema.json"


@cache
def mapping_schema() -> dict:
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


def _key(path) -> str:
    parts = []
    for part in path:
        parts.append(f"[{part}]" if isinstance(part, int) else ("." if parts else "") + str(part))
    return "".join(parts) or "(top level)"


def _all_errors(errors: list) -> list:
    """The errors and those of the alternatives inside them (oneOf/anyOf), shallowest first."""
    out, queue = [], list(errors)
    while queue:
        error = queue.pop(0)
        out.append(error)
        queue.extend(error.context or ())
    return sorted(out, key=lambda e: len(e.absolute_path))


def _unknown_keys(instance: dict, schema: dict) -> str:
    """``unknown key 'contents'; did you mean 'content'?`` for each key the schema does not have."""
    known = list(schema.get("properties", {}))
    parts = []
    for key in instance:
        if key in known:
            continue
        close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
        parts.append(f"unknown key {key!r}" + (f"; did you mean {close[0]!r}?" if close else
                                              f" (known: {', '.join(known)})"))
    return "; ".join(parts) or "unknown key(s)"


def _jsonschema_validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(mapping_schema())


@cache
def _mapping_checks() -> tuple[Any, Any]:
    """The mapping schema's jsonschema validator, and the schema compiled into one Python check
    with the same verdicts (``cleaner_runtime.schema_compiler``, about 50x faster), or None when the
    compiler cannot take the schema: a mapping is checked several times on its way to a render.
    The validator is made on first use: importing jsonschema costs a cleaner's start ~110 ms, and
    only a mapping that fails needs it (for its message)."""
    from .schema_compiler import LazyValidator, Unsupported, compile_document

    validator = LazyValidator(_jsonschema_validator)
    try:
        return validator, compile_document(mapping_schema(), validator)
    except Unsupported:
        return validator, None


def check_mapping(mapping: Any, origin: str = "mapping") -> dict:
    """The mapping itself when valid; MappingError naming the first wrong key otherwise."""
    if not isinstance(mapping, dict):
        raise MappingError(f"{origin}: the mapping must be a YAML mapping (key: value), not {type(mapping).__name__}")
    validator, valid = _mapping_checks()
    if valid is not None and valid(mapping):
        errors = []  # jsonschema's verdict, found by the compiled check; its messages only for errors
    else:
        errors = sorted(validator.iter_errors(mapping),
                        key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if errors:
        # a misspelt key explains the other errors of its object (a required key "missing"): name it first
        # of the alternatives, the one the author meant is the deepest with the fewest unknown keys
        unknown = sorted((e for e in _all_errors(errors) if e.validator == "additionalProperties"
                          and isinstance(e.instance, dict)),
                         key=lambda e: (-len(e.absolute_path), sum(
                             k not in e.schema.get("properties", {}) for k in e.instance)))
        import jsonschema

        error = unknown[0] if unknown else jsonschema.exceptions.best_match(errors)
        key = _key(error.absolute_path)
        message = error.message
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            message = _unknown_keys(error.instance, error.schema)
        raise MappingError(f"{origin}: {key}: {message}")
    try:
        from .timestamps import zone

        zone(mapping.get("timestamps", {}).get("timezone", "UTC"))
    except ValueError as exc:
        raise MappingError(f"{origin}: timestamps.timezone: {exc}") from None
    return mapping


