"""Complete a mapping with its defaults and precompile its paths.

The mapping format is documented in the generator's docs/mapping.md; the generator validates it
with a JSON Schema before rendering, so this module only fills gaps and never second-guesses.
"""

from __future__ import annotations

import copy
from typing import Any

DEFAULTS: dict[str, Any] = {
    "source_profile": "generic",
    "input": {
        "container": "auto",
        "records_path": None,
        "include": ["*.jsonl", "*.json", "*.ndjson", "*.jsonl.gz", "*.json.gz", "*.ndjson.gz"],
        "invalid_lines": "skip",
        "document_key": None,
    },
    "session": {"by": "file", "field": None, "missing": "fail"},
    "timestamps": {
        "fields": ["timestamp"],
        "format": "auto",
        "layout": None,
        "timezone": "UTC",
        "fallback": "none",
        "fallback_field": None,
    },
    "meta": {"cwd": [], "git_branch": [], "model": []},
    "unknown_kinds": "fail",
    "blocks": {"type_field": "type", "types": {}, "by_key": {}, "unknown": "fail"},
    "tools": {"error_prefix": "", "orphan_results": "skip"},
    "sessions": {"without_user": "keep", "without_assistant": "keep"},
    "privacy": {
        "redact": True,
        "personal_data": False,
        "drop_fields": [],
        "extra_patterns": {},
        "allowlist": [],
        "truncate": {"tool": 20000, "other": 50000},
    },
}

Path = tuple[str | int, ...]


def _index(part: str) -> bool:
    """A list index: ASCII digits without a leading zero ("²", "٣" and "05" are keys, not numbers)."""
    return part.isascii() and part.isdigit() and (part == "0" or not part.startswith("0"))


def compile_path(path: str | list) -> Path:
    """A dotted string or a list of keys, as a tuple; numeric dotted segments index lists."""
    if isinstance(path, str):
        return tuple(int(part) if _index(part) else part for part in path.split("."))
    return tuple(path)


def compile_paths(paths: Any) -> tuple[Path, ...]:
    """A path, or a list of paths, as a tuple of compiled paths (the first present wins).

    In a list-of-paths position a list always means several paths; a single path whose keys
    contain dots is written as a one-item list holding a list of keys: ``[["a.b", "c"]]``.
    """
    if paths is None:
        return ()
    if isinstance(paths, str):
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
