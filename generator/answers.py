"""Load and check a mapping (answers file): one clear message naming the key that is wrong."""

from __future__ import annotations

import difflib
import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from cleaner_runtime.mapping import MAPPING_KEYS  # the runtime reads them from the answers file
from generator.paths import PACKAGE


class AnswersError(Exception):
    """A mapping that cannot be used; the message names the file and the key."""


@cache
def mapping_schema() -> dict:
    return json.loads((PACKAGE / "mapping.schema.json").read_text(encoding="utf-8"))


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


class _UniqueKeys(yaml.SafeLoader):
    """A YAML loader that refuses a key written twice in one mapping (YAML keeps the last silently)."""


def _mapping_without_repeats(loader: _UniqueKeys, node: yaml.MappingNode) -> dict:
    seen: dict = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {key!r} is written twice (lines {seen[key] + 1} and "
                f"{key_node.start_mark.line + 1}); keep one", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node)


_UniqueKeys.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_repeats)


@cache
def _mapping_checks() -> tuple[Any, Any]:
    """The mapping schema's jsonschema validator, and the schema compiled into one Python check
    with the same verdicts (``cleaner_runtime.schema_compiler``, about 50x faster), or None when the
    compiler cannot take the schema: a mapping is checked several times on its way to a render."""
    from cleaner_runtime.schema_compiler import Unsupported, compile_document

    validator = jsonschema.Draft202012Validator(mapping_schema())
    try:
        return validator, compile_document(validator.schema, validator)
    except Unsupported:
        return validator, None


def check_mapping(mapping: Any, origin: str = "mapping") -> dict:
    """The mapping itself when valid; AnswersError naming the first wrong key otherwise."""
    if not isinstance(mapping, dict):
        raise AnswersError(f"{origin}: the mapping must be a YAML mapping (key: value), not {type(mapping).__name__}")
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
        error = unknown[0] if unknown else jsonschema.exceptions.best_match(errors)
        key = _key(error.absolute_path)
        message = error.message
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            message = _unknown_keys(error.instance, error.schema)
        raise AnswersError(f"{origin}: {key}: {message}")
    try:
        from cleaner_runtime.timestamps import zone

        zone(mapping.get("timestamps", {}).get("timezone", "UTC"))
    except ValueError as exc:
        raise AnswersError(f"{origin}: timestamps.timezone: {exc}") from None
    return mapping


def mapping_from(data: dict) -> dict:
    """The mapping keys of an answers file (copier's own `_` keys and extras dropped)."""
    return {key: data[key] for key in MAPPING_KEYS if key in data}


def load_answers(path: str | Path) -> dict:
    """Read a mapping YAML or a rendered project's .copier-answers.yml, and check it."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AnswersError(f"{path}: no such answers file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise AnswersError(f"{path}: cannot read ({exc})") from None
    try:
        data = yaml.load(text, Loader=_UniqueKeys)  # a SafeLoader that refuses repeated keys
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise AnswersError(f"{path}{where}: not valid YAML ({problem})") from None
    if not isinstance(data, dict):
        raise AnswersError(f"{path}: the answers must be a YAML mapping (key: value)")
    unknown = [key for key in data if key not in MAPPING_KEYS and not str(key).startswith("_")
               and key not in ("generator_version", "template_version", "prompt_context")]
    if unknown:
        raise AnswersError(f"{path}: unknown key(s) {', '.join(map(repr, unknown))} (see docs/mapping.md)")
    return check_mapping(mapping_from(data), str(path))


def dump_mapping(mapping: dict) -> str:
    """YAML for a mapping, keys in their natural order (not sorted)."""
    return yaml.safe_dump(mapping, sort_keys=False, allow_unicode=True, width=100)
