"""Load and check a mapping (answers file): one clear message naming the key that is wrong."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from generator.paths import PACKAGE

MAPPING_KEYS = (
    "mapping_version", "source", "source_profile", "input", "session", "timestamps", "meta",
    "kinds", "unknown_kinds", "blocks", "tools", "sessions", "privacy",
)


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


def check_mapping(mapping: Any, origin: str = "mapping") -> dict:
    """The mapping itself when valid; AnswersError naming the first wrong key otherwise."""
    if not isinstance(mapping, dict):
        raise AnswersError(f"{origin}: the mapping must be a YAML mapping (key: value), not {type(mapping).__name__}")
    validator = jsonschema.Draft202012Validator(mapping_schema())
    errors = sorted(validator.iter_errors(mapping), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if errors:
        error = jsonschema.exceptions.best_match(errors)
        key = _key(error.absolute_path)
        message = error.message
        if error.validator == "additionalProperties":
            message = message.replace("Additional properties are not allowed", "unknown key(s)")
        raise AnswersError(f"{origin}: {key}: {message}")
    try:
        from generator.paths import runtime_module

        runtime_module("timestamps").zone(mapping.get("timestamps", {}).get("timezone", "UTC"))
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
        data = yaml.safe_load(text)
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
