"""Old traces: the pre-trajectory shape, and one old-shape file converted in memory.

Lerim used to read ``{"type", "message": {"role", "content"}, "timestamp"}`` per line. That shape
maps to trajectory-v1 mechanically, so rather than a second converter this module states the
mapping once (docs/mapping.md) and hands it to the runtime's ``Converter`` - the code every
rendered cleaner ships - which already splits block lists, links tool results to calls, derives
missing times from neighbours and redacts secrets.

Contract: ``convert_old_file`` writes nothing and never raises for bad data; what it did, and
why a file or row could not be converted, ends up in the ``FileResult`` it returns. Both
subcommands build on it (``migrate traces`` writes the result, ``migrate script`` aligns and
compares the old script's output converted the same way), so this module also holds what they
share at the bottom of the package: ``MigrateError`` and the reading of old timestamps.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from cleaner_runtime.mapping import with_defaults


class MigrateError(Exception):
    """Bad input or configuration (exit 2); the message names the file and the fix."""


OLD_INCLUDE = ["*.jsonl", "*.ndjson", "*.json", "*.jsonl.gz", "*.ndjson.gz", "*.json.gz"]

USER_NAMES = ["user", "human", "User", "Human"]
ASSISTANT_NAMES = ["assistant", "ai", "Assistant", "AI"]
SYSTEM_NAMES = ["system", "System"]
TOOL_NAMES = ["tool", "function", "Tool"]

ROLES = (
    ("user", USER_NAMES, "user"),
    ("assistant", ASSISTANT_NAMES, "assistant"),
    ("system", SYSTEM_NAMES, "system"),
    ("tool", TOOL_NAMES, "observation"),
)


# --- the old shape, as a mapping -------------------------------------------------------------

def old_shape_blocks() -> dict:
    """How the old shape's block lists read: Anthropic-style blocks and OpenAI-style text kinds."""
    text = {"as": "text", "field": ["text", "content"]}
    skip = {"as": "skip"}
    return {
        "type_field": "type",
        "types": {
            "text": text,
            "input_text": text,
            "output_text": text,
            "thinking": {"as": "reasoning", "field": ["thinking", "text"]},
            "reasoning": {"as": "reasoning", "field": ["text", "reasoning", "thinking"]},
            "tool_use": {"as": "tool_call", "call_id": ["id", "call_id"], "tool_name": "name",
                         "args": ["input", "arguments", "args"]},
            "server_tool_use": {"as": "tool_call", "call_id": "id", "tool_name": "name", "args": "input"},
            "function_call": {"as": "tool_call", "call_id": ["call_id", "id"], "tool_name": "name",
                              "args": ["arguments", "input", "args"]},
            "tool_result": {"as": "tool_result", "content": ["content", "output"],
                            "result_link": ["tool_use_id", "call_id"], "ok": {"path": "is_error", "negate": True}},
            "function_call_output": {"as": "tool_result", "content": ["output", "content"],
                                     "result_link": ["call_id", "tool_use_id"]},
            "redacted_thinking": skip,
            "image": skip,
            "input_image": skip,
            "document": skip,
            "file": skip,
            "audio": skip,
            "input_audio": skip,
        },
        "unknown": "skip",
    }


def old_shape_kinds() -> list[dict]:
    """``message.role`` kinds first, then ``type`` kinds for rows that never had a role."""
    kinds: list[dict] = []
    for role, names, out in ROLES:
        kinds.append({"name": f"message.role {role}", "match": {"message.role": names}, "role": out,
                      "content": "message.content"})
    for role, names, out in ROLES:
        kinds.append({"name": f"type {role} (no message.role)", "match": {"type": names},
                      "lacks": ["message.role"], "role": out, "content": "message.content"})
    return kinds


def old_shape_mapping(source: str, tz: str = "UTC", fallback_mtime: bool = False, redact: bool = True) -> dict:
    """The mechanical mapping of the user's documents, as a mapping (docs/mapping.md) the runtime runs.

    ``message.role`` wins over ``type`` where both are present; ``type`` alone covers rows that
    never had a role (``"human"`` becomes ``user``). Block lists are read the way the old shape
    wrote them (Anthropic-style blocks, and the OpenAI-style text kinds some cleaners copied).
    """
    return {
        "mapping_version": 1,
        "source": source,
        "source_profile": "generic",
        "input": {"container": "auto", "include": OLD_INCLUDE, "invalid_lines": "skip"},
        "session": {"by": "file"},
        "timestamps": {"fields": ["timestamp"], "format": "auto", "timezone": tz,
                       "fallback": "file_mtime" if fallback_mtime else "none"},
        "meta": {"cwd": ["cwd"], "git_branch": ["gitBranch", "git_branch"], "model": ["message.model", "model"]},
        "kinds": old_shape_kinds(),
        "unknown_kinds": "skip",
        "blocks": old_shape_blocks(),
        "tools": {"error_prefix": "", "orphan_results": "skip"},
        "sessions": {"without_user": "keep", "without_assistant": "keep"},
        "privacy": {"redact": redact},
    }


def old_converter(mapping: dict):
    """(Converter, Privacy) of the runtime for ``mapping``, its defaults filled in."""
    from cleaner_runtime import convert
    full = with_defaults(mapping)
    privacy = convert.Privacy(full["privacy"])
    return convert.Converter(full, privacy), privacy


def not_old_shape(record: Any, converter) -> str | None:
    """Why a row is not an old-shape row, or None when it is one."""
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}, not an object"
    message = record.get("message")
    if not isinstance(message, dict):
        if isinstance(record.get("role"), str):
            return "already a trajectory-v1 record (role at top level), not the old shape"
        return "no 'message' object (the old shape is {\"type\", \"message\": {\"role\", \"content\"}, \"timestamp\"})"
    if "content" not in message:
        return "message has no 'content'"
    if converter.classify(record) is None:
        role = message.get("role", record.get("type"))
        return f"unknown role {json.dumps(role)[:40]} (type/message.role must name user, assistant, system or tool)"
    return None


# --- old timestamps ---------------------------------------------------------------------------

def is_naive(value: Any) -> bool:
    """Is ``value`` an ISO time written without a zone (read in --timezone, so worth reporting)?"""
    if not isinstance(value, str) or not value.strip():
        return False
    from cleaner_runtime import timestamps
    if timestamps.ISO_WITH_ZONE.fullmatch(value.strip()):
        return False
    try:
        return datetime.fromisoformat(value.strip()).tzinfo is None
    except ValueError:
        return False


def instant(iso: str) -> datetime:
    """An ISO time (``Z`` allowed) as an aware datetime, to compare instants across zones."""
    return datetime.fromisoformat(iso[:-1] + "+00:00" if iso.endswith("Z") else iso)


# --- one old file, converted ------------------------------------------------------------------

@dataclass
class FileResult:
    """What migrating one old file did, for the summary."""

    input: str
    output: str | None = None
    records: int = 0
    rows: int = 0
    error: str | None = None
    not_old_shape: list[str] = field(default_factory=list)
    split: list[str] = field(default_factory=list)  # "line 3: 1 row -> reasoning, assistant(tool_calls)"
    flattened: list[int] = field(default_factory=list)
    derived: list[int] = field(default_factory=list)
    naive: int = 0
    roles: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)
    dropped_where: dict = field(default_factory=dict)
    repaired: Counter = field(default_factory=Counter)
    redactions: Counter = field(default_factory=Counter)
    truncated: int = 0
    warnings: list[str] = field(default_factory=list)
    trajectory: list[dict] = field(default_factory=list, repr=False)
    origins: list[int] = field(default_factory=list, repr=False)  # old row index per output record (meta: -1)
    old_times: list[Any] = field(default_factory=list, repr=False)  # raw timestamp of each old row used


def convert_old_file(path: Path, shown: str, mapping: dict, mtime: float | None = None) -> FileResult:
    """Convert one old-shape file in memory (nothing written); never raises for bad data."""
    from cleaner_runtime import convert, readers
    converter, privacy = old_converter(mapping)
    result = FileResult(shown)
    builder = converter.session(shown)
    builder.mtime = mtime
    item = readers.InputFile(path, Path(path.name))
    try:
        entries = list(readers.read_records(item, "auto"))
    except readers.InputError as exc:
        result.error = str(exc).replace(str(path), shown, 1)
        return result
    origins: list[int] = []
    for entry in entries:
        found = _old_row(entry, shown, converter)
        if isinstance(found, str):
            result.not_old_shape.append(found)
            continue
        where, record = found
        row = len(result.old_times)
        result.rows += 1
        result.old_times.append(record.get("timestamp"))
        when = _time_kind(record.get("timestamp"))
        if when == "derived":
            result.derived.append(where.line)
        elif when == "naive":
            result.naive += 1
        before = len(builder.records)
        content = record["message"].get("content")
        try:
            builder.add(where, record)
        except convert.SessionFailed as exc:
            result.error = str(exc)
            return result
        made = builder.records[before:]
        origins.extend([row] * len(made))
        read_as, split, flattened = _reading(where, record, content, converter.classify(record), made)
        result.roles[read_as] += 1
        if split is not None:
            result.split.append(split)
        if flattened is not None:
            result.flattened.append(flattened)
    if result.rows == 0:
        result.error = (f"{shown}: no old-shape rows"
                        + (" (is it already trajectory-v1? check it with `trajectory-cleaner validate`)"
                           if result.not_old_shape else " (the file is empty)"))
        return result
    return _finish(result, builder, privacy, origins)


def _old_row(entry: Any, shown: str, converter) -> tuple[Any, dict] | str:
    """(where, record) of an old-shape row; for any other line, the reason it is not one."""
    from cleaner_runtime import readers
    if isinstance(entry, readers.BadLine):
        return f"{shown}:{entry.where.line}: {entry.reason}"
    where, record = entry
    where = readers.Where(shown, where.line, where.unit)
    reason = not_old_shape(record, converter)
    if reason is not None:
        return f"{where}: {reason}"
    return where, record


def _time_kind(ts: Any) -> str | None:
    """"derived" for a null timestamp (the converter takes a neighbour's), "naive" for one without a
    zone (read in --timezone), None otherwise."""
    if ts is None or (isinstance(ts, str) and not ts.strip()):
        return "derived"
    return "naive" if is_naive(ts) else None


def _reading(where: Any, record: dict, content: Any, kind: Any, made: list[dict]) -> tuple[str, str | None, int | None]:
    """(which role the row was read as, its split line or None, its flattened line or None)."""
    said = record["message"].get("role")
    said = f"message.role={said}" if said is not None else f"type={record.get('type')}"
    split = flattened = None
    if isinstance(content, list) and content:
        if len(made) > 1:
            split = f"{where}: 1 row -> {_describe(made)}"
        elif len(made) == 1 and made[0]["role"] != "tool" and not made[0].get("tool_calls"):
            flattened = where.line
    return f"{said} -> {kind.role}", split, flattened


def _describe(records: list[dict]) -> str:
    parts = []
    for record in records:
        role = record["role"]
        parts.append("assistant(tool_calls)" if role == "assistant" and record.get("tool_calls") else role)
    return ", ".join(parts)


def _finish(result: FileResult, builder: Any, privacy: Any, origins: list[int]) -> FileResult:
    """A new FileResult: ``result`` with the session closed - the trajectory and the converter's
    counts, or why there is none."""
    from cleaner_runtime import convert
    shown = result.input
    try:
        out = builder.finish()
    except convert.SessionSkipped as exc:
        return replace(result, error=f"{shown}: nothing to write ({exc})")
    except convert.SessionFailed as exc:
        message = str(exc)
        if "no record has a timestamp" in message:
            message = (f"{shown}: every timestamp is null, so none can be derived; pass --fallback-mtime to "
                       "use the file's modification time (reported), or fix the old file")
        return replace(result, error=message)
    return replace(result, dropped=Counter(builder.stats.skipped), dropped_where=dict(builder.stats.examples),
                   repaired=Counter(builder.stats.repaired), redactions=Counter(privacy.counts),
                   truncated=privacy.truncated, trajectory=out, origins=[-1, *origins])
