"""One old-shape file converted in memory, with a record of everything the conversion did.

Both subcommands need this: ``migrate traces`` writes the result, ``migrate script`` aligns the
old script's output (converted the same way) with the raw samples and compares it with the new
cleaner's. Nothing is written here, and bad data never raises: it ends up in ``FileResult``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.migrate.old_shape import is_naive, not_old_shape, old_converter
from generator.paths import runtime_module


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
    convert = runtime_module("convert")
    readers = runtime_module("readers")
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
        found = _old_row(entry, shown, converter, result)
        if found is None:
            continue
        where, record = found
        row = _note_time(result, where.line, record.get("timestamp"))
        before = len(builder.records)
        content = record["message"].get("content")
        try:
            builder.add(where, record)
        except convert.SessionFailed as exc:
            result.error = str(exc)
            return result
        made = builder.records[before:]
        origins.extend([row] * len(made))
        _note_conversion(result, where, record, content, converter.classify(record), made)
    if result.rows == 0:
        result.error = (f"{shown}: no old-shape rows"
                        + (" (is it already trajectory-v1? check it with `trajectory-cleaner validate`)"
                           if result.not_old_shape else " (the file is empty)"))
        return result
    return _finish(result, builder, privacy, origins)


def _old_row(entry: Any, shown: str, converter, result: FileResult) -> tuple[Any, dict] | None:
    """(where, record) of an old-shape row; None, with the reason noted, for any other line."""
    readers = runtime_module("readers")
    if isinstance(entry, readers.BadLine):
        result.not_old_shape.append(f"{shown}:{entry.where.line}: {entry.reason}")
        return None
    where, record = entry
    where = readers.Where(shown, where.line, where.unit)
    reason = not_old_shape(record, converter)
    if reason is not None:
        result.not_old_shape.append(f"{where}: {reason}")
        return None
    return where, record


def _note_time(result: FileResult, line: int, ts: Any) -> int:
    """Count the row and keep its raw timestamp (null: derived; no zone: naive); the row's index."""
    result.rows += 1
    row = len(result.old_times)
    result.old_times.append(ts)
    if ts is None or (isinstance(ts, str) and not ts.strip()):
        result.derived.append(line)
    elif is_naive(ts):
        result.naive += 1
    return row


def _note_conversion(result: FileResult, where: Any, record: dict, content: Any, kind: Any,
                     made: list[dict]) -> None:
    """Which role the row was read as, and whether its block list was split or flattened."""
    said = record["message"].get("role")
    said = f"message.role={said}" if said is not None else f"type={record.get('type')}"
    result.roles[f"{said} -> {kind.role}"] += 1
    if isinstance(content, list) and content:
        if len(made) > 1:
            result.split.append(f"{where}: 1 row -> {_describe(made)}")
        elif len(made) == 1 and made[0]["role"] != "tool" and not made[0].get("tool_calls"):
            result.flattened.append(where.line)


def _describe(records: list[dict]) -> str:
    parts = []
    for record in records:
        role = record["role"]
        parts.append("assistant(tool_calls)" if role == "assistant" and record.get("tool_calls") else role)
    return ", ".join(parts)


def _finish(result: FileResult, builder: Any, privacy: Any, origins: list[int]) -> FileResult:
    """Close the session: the trajectory and the converter's counts, or why there is none."""
    convert = runtime_module("convert")
    shown = result.input
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
