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


_JOIN_TAKES = ("`join` takes a list of pieces: paths, {path: ..., prefix: ..., suffix: ..., each: ...} or "
               "{text: ...}, e.g. content: {join: [stdout, {path: stderr, prefix: \"stderr:\\n\"}]} "
               "(docs/mapping.md, \"Content composed from several fields: join\")")
_CONTENT_TAKES = ("content takes a path (a key such as text, a dotted path such as message.text, a list of "
                  "keys, or {value: x}), a list of such paths (the first present wins), or {join: [...]} to "
                  "compose several (docs/mapping.md, \"Paths\" and \"join\")")
_CONTENT_KEYS = ("content", "field")


def _explained_elsewhere(error: Any, errors: list) -> bool:
    """Whether the keys an ``unknown key`` error names are known to another alternative that
    complains about their values instead: ``content: {join: 5}`` is a join whose list is wrong, not
    a ``{value: x}`` path with an unknown key ``join``."""
    known = error.schema.get("properties", {})
    unknown = [key for key in error.instance if key not in known]
    depth = len(error.absolute_path)
    return bool(unknown) and all(
        any(len(other.absolute_path) > depth and list(other.absolute_path)[:depth] == list(error.absolute_path)
            and other.absolute_path[depth] == key for other in errors) for key in unknown)


def _deepest(errors: list) -> Any:
    """The error deepest in the mapping (the one nearest the value the author got wrong)."""
    return max(errors, key=lambda e: len(e.absolute_path))


def _plain_message(error: Any) -> str:
    """jsonschema's message, said in the mapping's terms where a key's expectations are known."""
    path = list(error.absolute_path)
    last = path[-1] if path else None
    if last == "join" and error.validator in ("type", "minItems"):
        what = "the list is empty" if error.validator == "minItems" else f"{error.instance!r} is not a list"
        return f"{what}; {_JOIN_TAKES}"
    if last in _CONTENT_KEYS and error.validator in ("anyOf", "oneOf") and not isinstance(error.instance, dict):
        return f"{error.instance!r} is not a path or a join; {_CONTENT_TAKES}"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        return _unknown_keys(error.instance, error.schema)
    return error.message


def _check_extra_patterns(mapping: dict, origin: str) -> None:
    """Each ``privacy.extra_patterns`` entry compiled now, as the redactor will compile it, so a bad
    regex is this file's error at load time (exit 2), not an "unexpected ValueError" mid-run."""
    patterns = (mapping.get("privacy") or {}).get("extra_patterns") or {}
    if not patterns:
        return
    from .redaction.engine import _CLASS_NAME_RE, _check_extra_pattern

    for cls, pattern in patterns.items():
        if not _CLASS_NAME_RE.match(cls):
            raise MappingError(f"{origin}: privacy.extra_patterns: {cls!r} is not a kebab-case class name; "
                               "rename it with lowercase letters, digits and - (e.g. ticket-token): it is "
                               "written in the placeholder [REDACTED:<class>]")
        try:
            _check_extra_pattern(cls, pattern)
        except ValueError as exc:
            raise MappingError(f"{origin}: {exc}") from None


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
        # of the alternatives, the one the author meant is the deepest with the fewest unknown keys;
        # an "unknown" key that another alternative knows is not misspelt: that alternative's error is meant
        every = _all_errors(errors)
        unknown = [e for e in every if e.validator == "additionalProperties" and isinstance(e.instance, dict)]
        meant = [e for e in unknown if _explained_elsewhere(e, every)]
        unknown = sorted((e for e in unknown if e not in meant),
                         key=lambda e: (-len(e.absolute_path), sum(
                             k not in e.schema.get("properties", {}) for k in e.instance)))
        import jsonschema

        if unknown:
            error = unknown[0]
        elif meant:
            error = _deepest([e for e in every if e not in meant])
        else:
            error = jsonschema.exceptions.best_match(errors)
        raise MappingError(f"{origin}: {_key(error.absolute_path)}: {_plain_message(error)}")
    _check_extra_patterns(mapping, origin)
    try:
        from .timestamps import zone

        zone(mapping.get("timestamps", {}).get("timezone", "UTC"))
    except ValueError as exc:
        raise MappingError(f"{origin}: timestamps.timezone: {exc}") from None
    return mapping


