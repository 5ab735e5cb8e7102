"""Leave the pre-trajectory shape behind: convert old traces, and relearn the cleaners that wrote them.

Lerim used to read ``{"type", "message": {"role", "content"}, "timestamp"}`` per line; it now
reads only trajectory-v1. Two things need migrating:

* folders of old output (``migrate_traces``): the mapping is mechanical, so it is written once
  as an ordinary mapping (``old_shape_mapping``) and run through the cleaner runtime's
  ``Converter`` - the same code every rendered cleaner ships - which already splits block lists,
  links tool results to calls, derives missing times from neighbours and redacts secrets;
* the old cleaner scripts (``migrate_script``): read by AST to find where they emit the old
  shape, optionally run on the raw samples, and the raw -> role/content mapping they embody is
  learned by aligning their output with the raw records. A new cleaner is rendered from it and
  an equivalence report compares the two outputs record by record.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from generator.paths import runtime_module

OLD_INCLUDE = ["*.jsonl", "*.ndjson", "*.json", "*.jsonl.gz", "*.ndjson.gz", "*.json.gz"]

USER_NAMES = ["user", "human", "User", "Human"]
ASSISTANT_NAMES = ["assistant", "ai", "Assistant", "AI"]
SYSTEM_NAMES = ["system", "System"]
TOOL_NAMES = ["tool", "function", "Tool"]


class MigrateError(Exception):
    """Bad input or configuration (exit 2); the message names the file and the fix."""


# =============================================================================================
# Part 1: the old shape, mechanically
# =============================================================================================


def old_shape_mapping(source: str, tz: str = "UTC", fallback_mtime: bool = False, redact: bool = True) -> dict:
    """The mechanical mapping of the user's documents, as a mapping (docs/mapping.md) the runtime runs.

    ``message.role`` wins over ``type`` where both are present; ``type`` alone covers rows that
    never had a role (``"human"`` becomes ``user``). Block lists are read the way the old shape
    wrote them (Anthropic-style blocks, and the OpenAI-style text kinds some cleaners copied).
    """
    kinds: list[dict] = []
    for role, names, out in (
        ("user", USER_NAMES, "user"),
        ("assistant", ASSISTANT_NAMES, "assistant"),
        ("system", SYSTEM_NAMES, "system"),
        ("tool", TOOL_NAMES, "observation"),
    ):
        kinds.append({"name": f"message.role {role}", "match": {"message.role": names}, "role": out,
                      "content": "message.content"})
    for role, names, out in (
        ("user", USER_NAMES, "user"),
        ("assistant", ASSISTANT_NAMES, "assistant"),
        ("system", SYSTEM_NAMES, "system"),
        ("tool", TOOL_NAMES, "observation"),
    ):
        kinds.append({"name": f"type {role} (no message.role)", "match": {"type": names},
                      "lacks": ["message.role"], "role": out, "content": "message.content"})
    text = {"as": "text", "field": ["text", "content"]}
    skip = {"as": "skip"}
    return {
        "mapping_version": 1,
        "source": source,
        "source_profile": "generic",
        "input": {"container": "auto", "include": OLD_INCLUDE, "invalid_lines": "skip"},
        "session": {"by": "file"},
        "timestamps": {"fields": ["timestamp"], "format": "auto", "timezone": tz,
                       "fallback": "file_mtime" if fallback_mtime else "none"},
        "meta": {"cwd": ["cwd"], "git_branch": ["gitBranch", "git_branch"], "model": ["message.model", "model"]},
        "kinds": kinds,
        "unknown_kinds": "skip",
        "blocks": {
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
        },
        "tools": {"error_prefix": "", "orphan_results": "skip"},
        "sessions": {"without_user": "keep", "without_assistant": "keep"},
        "privacy": {"redact": redact},
    }


BINARY_BLOCKS = ("image", "input_image", "document", "file", "audio", "input_audio", "redacted_thinking")


def _converter(mapping: dict):
    convert = runtime_module("convert")
    full = runtime_module("mapping").with_defaults(mapping)
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


def _is_naive(value: Any) -> bool:
    if not isinstance(value, str) or not value.strip():
        return False
    timestamps = runtime_module("timestamps")
    if timestamps.ISO_WITH_ZONE.fullmatch(value.strip()):
        return False
    try:
        return datetime.fromisoformat(value.strip()).tzinfo is None
    except ValueError:
        return False


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


def _describe(records: list[dict]) -> str:
    parts = []
    for record in records:
        role = record["role"]
        parts.append("assistant(tool_calls)" if role == "assistant" and record.get("tool_calls") else role)
    return ", ".join(parts)


def convert_old_file(path: Path, shown: str, mapping: dict, mtime: float | None = None) -> FileResult:
    """Convert one old-shape file in memory (nothing written); never raises for bad data."""
    convert = runtime_module("convert")
    readers = runtime_module("readers")
    converter, privacy = _converter(mapping)
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
        if isinstance(entry, readers.BadLine):
            result.not_old_shape.append(f"{shown}:{entry.where.line}: {entry.reason}")
            continue
        where, record = entry
        where = readers.Where(shown, where.line, where.unit)
        reason = not_old_shape(record, converter)
        if reason is not None:
            result.not_old_shape.append(f"{where}: {reason}")
            continue
        result.rows += 1
        ts = record.get("timestamp")
        row = len(result.old_times)
        result.old_times.append(ts)
        if ts is None or (isinstance(ts, str) and not ts.strip()):
            result.derived.append(where.line)
        elif _is_naive(ts):
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
        kind = converter.classify(record)
        said = record["message"].get("role")
        said = f"message.role={said}" if said is not None else f"type={record.get('type')}"
        result.roles[f"{said} -> {kind.role}"] += 1
        if isinstance(content, list) and content:
            if len(made) > 1:
                result.split.append(f"{where}: 1 row -> {_describe(made)}")
            elif len(made) == 1 and made[0]["role"] != "tool" and not made[0].get("tool_calls"):
                result.flattened.append(where.line)
    if result.rows == 0:
        result.error = (f"{shown}: no old-shape rows"
                        + (" (is it already trajectory-v1? check it with `trajectory-cleaner validate`)"
                           if result.not_old_shape else " (the file is empty)"))
        return result
    try:
        out = builder.finish()
    except convert.SessionSkipped as exc:
        result.error = f"{shown}: nothing to write ({exc})"
        return result
    except convert.SessionFailed as exc:
        message = str(exc)
        if "no record has a timestamp" in message:
            message = (f"{shown}: every timestamp is null, so none can be derived; pass --fallback-mtime to "
                       "use the file's modification time (reported), or fix the old file")
        result.error = message
        return result
    result.dropped.update(builder.stats.skipped)
    result.dropped_where.update(builder.stats.examples)
    result.repaired.update(builder.stats.repaired)
    result.redactions.update(privacy.counts)
    result.truncated = privacy.truncated
    result.trajectory = out
    result.origins = [-1, *origins]
    return result


def _validator(schema: str | None):
    validate = runtime_module("validate")
    try:
        path, origin = validate.find_schema(schema)
        return validate.TrajectoryValidator(validate.load_schema(path)), f"{path} ({origin})"
    except validate.SchemaError as exc:
        raise MigrateError(str(exc)) from None


def check_trajectory(records: list[dict], validator) -> tuple[list[str], list[str]]:
    """(errors, warnings) of the runtime validator, one line each."""
    errors, warnings = [], []
    for problem in validator.check_records(records):
        text = f"record line {problem.line}: {problem.rule}: {problem.message}" if problem.line else \
            f"{problem.rule}: {problem.message}"
        (errors if problem.severity == "error" else warnings).append(text)
    return errors, warnings


def _old_files(inputs: list[str], output: Path) -> list[tuple[Path, str, Path]]:
    """(file, as the user names it, output relative path) for every old file, mirroring folders."""
    readers = runtime_module("readers")
    writer = runtime_module("writer")
    found: list[tuple[Path, str, Path]] = []
    several = len(inputs) > 1
    for given in inputs:
        root = Path(given)
        if not root.exists():
            raise MigrateError(f"{given}: no such file or folder")
        if root.resolve() == output.resolve():
            raise MigrateError(f"{given}: --output must not be the same folder as the input")
        exclude = output if root.is_dir() and output.resolve().is_relative_to(root.resolve()) else None
        try:
            items = readers.discover(given, OLD_INCLUDE, exclude)
        except readers.InputError as exc:
            raise MigrateError(str(exc)) from None
        if root.is_dir() and not items:
            raise MigrateError(f"{given}: no .jsonl/.json files found in this folder")
        prefix = Path(root.resolve().name) if several and root.is_dir() else Path()
        for item in items:
            stem = writer.stem_for_file(item.rel)
            rel = prefix / stem.with_name(stem.name + ".jsonl")
            shown = str(item.path)
            found.append((item.path, shown, rel))
    taken: dict[str, str] = {}
    for _, shown, rel in found:
        key = rel.as_posix().lower()
        if key in taken:
            raise MigrateError(f"{shown}: would be written to the same file as {taken[key]} ({rel}); "
                               "migrate them into separate --output folders")
        taken[key] = shown
    return found


@dataclass
class TracesReport:
    files: list[FileResult]
    output: str
    source: str
    timezone: str
    schema: str
    fallback_mtime: bool

    @property
    def failed(self) -> list[FileResult]:
        return [f for f in self.files if f.error]

    @property
    def problems(self) -> bool:
        return bool(self.failed) or any(f.not_old_shape for f in self.files)

    def to_json(self) -> dict:
        def one(f: FileResult) -> dict:
            return {
                "input": f.input, "output": f.output, "error": f.error, "old_rows": f.rows, "records": f.records,
                "split": f.split, "flattened_lines": f.flattened, "derived_timestamp_lines": f.derived,
                "zoneless_timestamps": f.naive, "roles": dict(f.roles), "dropped": dict(f.dropped), "repaired": dict(f.repaired),
                "redactions": dict(f.redactions), "truncated": f.truncated, "not_old_shape": f.not_old_shape,
                "warnings": f.warnings,
            }

        return {
            "output": self.output, "source": self.source, "timezone": self.timezone, "schema": self.schema,
            "fallback_mtime": self.fallback_mtime,
            "files_read": len(self.files), "files_written": sum(1 for f in self.files if f.output),
            "files_failed": len(self.failed), "files": [one(f) for f in self.files],
        }


def migrate_traces(inputs: list[str], output: str, source: str, tz: str = "UTC", fallback_mtime: bool = False,
                   schema: str | None = None, progress=None) -> TracesReport:
    """Convert old-shape files into trajectory-v1 files under ``output``; see TracesReport."""
    if not source.strip():
        raise MigrateError("--source must name your agent or workflow (it becomes the meta record's source)")
    timestamps = runtime_module("timestamps")
    try:
        timestamps.zone(tz)
    except ValueError as exc:
        raise MigrateError(f"--timezone: {exc}") from None
    out_root = Path(output).expanduser()
    if out_root.exists() and not out_root.is_dir():
        raise MigrateError(f"{output}: exists and is not a folder (choose another --output)")
    files = _old_files(inputs, out_root)
    validator, schema_text = _validator(schema)
    mapping = old_shape_mapping(source, tz, fallback_mtime)
    writer = runtime_module("writer")
    try:
        out_root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MigrateError(f"{output}: cannot write there ({exc.strerror or exc})") from None
    results = []
    for n, (path, shown, rel) in enumerate(files, 1):
        if progress:
            progress(n, len(files))
        try:
            mtime = path.stat().st_mtime
        except OSError:
            mtime = None
        result = convert_old_file(path, shown, mapping, mtime)
        if not result.error:
            errors, warnings = check_trajectory(result.trajectory, validator)
            result.warnings = warnings
            if errors:
                result.error = f"{shown}: the converted file fails validation: {errors[0]} ({len(errors)} problem(s); nothing written)"
        if not result.error:
            data, _ = writer.serialise(result.trajectory)
            target = out_root / rel
            try:
                writer.write_atomic(target, data)
            except OSError as exc:
                raise MigrateError(f"{Path(output) / rel}: cannot write ({exc.strerror or exc})") from None
            result.output = str(Path(output) / rel)
            result.records = len(result.trajectory)
        results.append(result)
    return TracesReport(results, output, source, tz, schema_text, fallback_mtime)


def _lines(numbers: list[int], limit: int = 8) -> str:
    shown = ", ".join(map(str, numbers[:limit]))
    return shown + (f", ... ({len(numbers)} in all)" if len(numbers) > limit else "")


def format_traces_report(report: TracesReport) -> str:
    """The people's summary: what was split, derived, dropped and why; what failed and where."""
    out = []
    written = [f for f in report.files if f.output]
    out.append(f"files read:        {len(report.files)}")
    out.append(f"files written:     {len(written)}  (to {report.output}, source {report.source!r})")
    out.append(f"records written:   {sum(f.records for f in written)}  (old rows: {sum(f.rows for f in written)})")
    out.append(f"schema:            {report.schema}")
    naive = sum(f.naive for f in report.files)
    out.append(f"time zone:         {report.timezone} - zone-less old timestamps are read in this zone "
               f"({naive} found; change with --timezone)")
    roles: Counter = Counter()
    for f in report.files:
        roles.update(f.roles)
    out.append("roles:             " + "; ".join(f"{n} x {name}" for name, n in sorted(roles.items())))
    split = [s for f in report.files for s in f.split]
    out.append(f"split:             {len(split)} block-list row(s) became several records "
               "(text -> message, thinking -> reasoning, tool_use -> tool_calls, tool_result -> tool)")
    for line in split[:10]:
        out.append(f"  {line}")
    if len(split) > 10:
        out.append(f"  ... {len(split) - 10} more (see --json)")
    flattened = sum(len(f.flattened) for f in report.files)
    out.append(f"flattened:         {flattened} block-list row(s) of text only, joined into one string")
    derived = [(f.input, f.derived) for f in report.files if f.derived]
    out.append(f"derived times:     {sum(len(d) for _, d in derived)} null/missing timestamp(s) took the previous "
               "record's time (the next one's at the start of a file); none invented")
    for name, lines in derived:
        out.append(f"  {name}: line(s) {_lines(lines)}")
    fallback = [(f.input, n) for f in report.files for reason, n in f.repaired.items() if "fallback" in reason]
    for name, n in fallback:
        out.append(f"  {name}: no timestamp at all; {n} record(s) use the file's modification time (--fallback-mtime)")
    dropped: Counter = Counter()
    where: dict[str, str] = {}
    for f in report.files:
        dropped.update(f.dropped)
        for reason, w in f.dropped_where.items():
            where.setdefault(reason, w)
    out.append(f"dropped:           {sum(dropped.values())}")
    for reason, count in sorted(dropped.items(), key=lambda kv: (-kv[1], kv[0])):
        out.append(f"  {count} x {_why_dropped(reason)} (first at {where.get(reason, '?')})")
    redactions: Counter = Counter()
    for f in report.files:
        redactions.update(f.redactions)
    out.append(f"redactions:        {sum(redactions.values())}" + (" (secrets the old output had leaked)" if redactions else ""))
    for kind, count in sorted(redactions.items()):
        out.append(f"  {count} x {kind}")
    truncated = sum(f.truncated for f in report.files)
    if truncated:
        out.append(f"truncated:         {truncated} very long string(s), head and tail kept")
    bad = [line for f in report.files for line in f.not_old_shape]
    out.append(f"not old-shape:     {len(bad)} row(s), not converted")
    for line in bad[:20]:
        out.append(f"  {line}")
    if len(bad) > 20:
        out.append(f"  ... {len(bad) - 20} more (see --json)")
    warnings = [(f.input, w) for f in report.files for w in f.warnings]
    if warnings:
        out.append(f"warnings:          {len(warnings)}")
        for name, w in warnings[:10]:
            out.append(f"  {name}: {w}")
    out.append(f"files failed:      {len(report.failed)}")
    return "\n".join(out)


def _why_dropped(reason: str) -> str:
    match = re.fullmatch(r"block type '(.+)' \(skipped by the mapping\)", reason)
    if match:
        kind = match.group(1)
        if kind == "redacted_thinking":
            return "redacted_thinking block (encrypted reasoning, no text to keep)"
        return f"{kind} block (binary content has no place in trajectory-v1)"
    if reason.startswith("unknown block type"):
        return reason + " (not a block kind the old shape defined; its content was not converted)"
    if "no content" in reason:
        return reason + " (an empty message is not a valid record)"
    if "no earlier call" in reason or "no unanswered call" in reason:
        return reason + " (trajectory-v1 needs every result linked to an earlier call)"
    return reason
