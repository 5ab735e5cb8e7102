"""`migrate traces`: folders of old output rewritten as validated trajectory-v1 files, and the summary.

Lerim no longer reads what the old cleaners wrote. The conversion itself is mechanical
(old_traces.py); this module finds the files, mirrors folders under --output, validates every
converted file with the runtime's validator and writes it atomically, so that a file which would
not validate is reported and never half-written.

Contract: ``migrate_traces`` raises MigrateError (exit 2) for bad options or unwritable output
only; a file that fails is reported in the ``TracesReport`` and the others are still written.
The conversion loses nothing silently: ``format_traces_report`` is where people read what it did
to their files (what was split, derived, dropped and why), ``TracesReport.to_json`` gives
machines the same facts.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from generator.migrate.old_traces import OLD_INCLUDE, FileResult, MigrateError, convert_old_file, old_shape_mapping


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
        return {
            "output": self.output, "source": self.source, "timezone": self.timezone, "schema": self.schema,
            "fallback_mtime": self.fallback_mtime,
            "files_read": len(self.files), "files_written": sum(1 for f in self.files if f.output),
            "files_failed": len(self.failed), "files": [_file_json(f) for f in self.files],
        }


def _file_json(f: FileResult) -> dict:
    return {
        "input": f.input, "output": f.output, "error": f.error, "old_rows": f.rows, "records": f.records,
        "split": f.split, "flattened_lines": f.flattened, "derived_timestamp_lines": f.derived,
        "zoneless_timestamps": f.naive, "roles": dict(f.roles), "dropped": dict(f.dropped), "repaired": dict(f.repaired),
        "redactions": dict(f.redactions), "truncated": f.truncated, "not_old_shape": f.not_old_shape,
        "warnings": f.warnings,
    }


def migrate_traces(inputs: list[str], output: str, source: str, tz: str = "UTC", fallback_mtime: bool = False,
                   schema: str | None = None, progress=None) -> TracesReport:
    """Convert old-shape files into trajectory-v1 files under ``output``; see TracesReport."""
    out_root = _check_options(output, source, tz)
    files = _old_files(inputs, out_root)
    validator, schema_text = trajectory_validator(schema)
    mapping = old_shape_mapping(source, tz, fallback_mtime)
    try:
        out_root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MigrateError(f"{output}: cannot write there ({exc.strerror or exc})") from None
    results = []
    for n, (path, shown, rel) in enumerate(files, 1):
        if progress:
            progress(n, len(files))
        results.append(_migrate_file(path, shown, rel, mapping, validator, out_root, output))
    return TracesReport(results, output, source, tz, schema_text, fallback_mtime)


def _check_options(output: str, source: str, tz: str) -> Path:
    """The output folder, once --source, --timezone and --output make sense; MigrateError otherwise."""
    if not source.strip():
        raise MigrateError("--source must name your agent or workflow (it becomes the meta record's source)")
    from cleaner_runtime import timestamps
    try:
        timestamps.zone(tz)
    except ValueError as exc:
        raise MigrateError(f"--timezone: {exc}") from None
    out_root = Path(output).expanduser()
    if out_root.exists() and not out_root.is_dir():
        raise MigrateError(f"{output}: exists and is not a folder (choose another --output)")
    return out_root


def _migrate_file(path: Path, shown: str, rel: Path, mapping: dict, validator, out_root: Path,
                  output: str) -> FileResult:
    """Convert, validate and (when valid) write one old file to ``output/rel``."""
    from cleaner_runtime import writer
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
    return result


def trajectory_validator(schema: str | None):
    """(the runtime's TrajectoryValidator, "path (origin)") for --schema or the default schema."""
    from cleaner_runtime import validate
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
    several = len(inputs) > 1
    found: list[tuple[Path, str, Path]] = []
    for given in inputs:
        found += _files_under(given, output, several)
    taken: dict[str, str] = {}
    for _, shown, rel in found:
        key = rel.as_posix().lower()
        if key in taken:
            raise MigrateError(f"{shown}: would be written to the same file as {taken[key]} ({rel}); "
                               "migrate them into separate --output folders")
        taken[key] = shown
    return found


def _files_under(given: str, output: Path, several: bool) -> list[tuple[Path, str, Path]]:
    """The old files of one input (a file, or a folder searched below, --output left out)."""
    from cleaner_runtime import readers, writer
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
    found = []
    for item in items:
        stem = writer.stem_for_file(item.rel)
        found.append((item.path, str(item.path), prefix / stem.with_name(stem.name + ".jsonl")))
    return found


# --- the printed summary ---------------------------------------------------------------------

def format_traces_report(report: TracesReport) -> str:
    """The people's summary: what was split, derived, dropped and why; what failed and where."""
    out = []
    for section in (_totals, _roles, _splits, _times, _dropped, _redactions, _not_old_shape, _warnings):
        out += section(report)
    out.append(f"files failed:      {len(report.failed)}")
    return "\n".join(out)


def _totals(report: TracesReport) -> list[str]:
    written = [f for f in report.files if f.output]
    naive = sum(f.naive for f in report.files)
    return [
        f"files read:        {len(report.files)}",
        f"files written:     {len(written)}  (to {report.output}, source {report.source!r})",
        f"records written:   {sum(f.records for f in written)}  (old rows: {sum(f.rows for f in written)})",
        f"schema:            {report.schema}",
        (f"time zone:         {report.timezone} - zone-less old timestamps are read in this zone "
         f"({naive} found; change with --timezone)"),
    ]


def _roles(report: TracesReport) -> list[str]:
    roles: Counter = Counter()
    for f in report.files:
        roles.update(f.roles)
    return ["roles:             " + "; ".join(f"{n} x {name}" for name, n in sorted(roles.items()))]


def _splits(report: TracesReport) -> list[str]:
    split = [s for f in report.files for s in f.split]
    out = [(f"split:             {len(split)} block-list row(s) became several records "
            "(text -> message, thinking -> reasoning, tool_use -> tool_calls, tool_result -> tool)")]
    out += [f"  {line}" for line in split[:10]]
    if len(split) > 10:
        out.append(f"  ... {len(split) - 10} more (see --json)")
    flattened = sum(len(f.flattened) for f in report.files)
    out.append(f"flattened:         {flattened} block-list row(s) of text only, joined into one string")
    return out


def _times(report: TracesReport) -> list[str]:
    derived = [(f.input, f.derived) for f in report.files if f.derived]
    out = [(f"derived times:     {sum(len(d) for _, d in derived)} null/missing timestamp(s) took the previous "
            "record's time (the next one's at the start of a file); none invented")]
    out += [f"  {name}: line(s) {_lines(lines)}" for name, lines in derived]
    fallback = [(f.input, n) for f in report.files for reason, n in f.repaired.items() if "fallback" in reason]
    out += [f"  {name}: no timestamp at all; {n} record(s) use the file's modification time (--fallback-mtime)"
            for name, n in fallback]
    repairs: Counter = Counter()
    for f in report.files:
        repairs.update({k: v for k, v in f.repaired.items()
                        if "derived from neighbouring" not in k and "fallback" not in k})
    out += [f"  also: {count} x {reason}" for reason, count in sorted(repairs.items())]
    return out


def _lines(numbers: list[int], limit: int = 8) -> str:
    shown = ", ".join(map(str, numbers[:limit]))
    return shown + (f", ... ({len(numbers)} in all)" if len(numbers) > limit else "")


def _dropped(report: TracesReport) -> list[str]:
    dropped: Counter = Counter()
    where: dict[str, str] = {}
    for f in report.files:
        dropped.update(f.dropped)
        for reason, w in f.dropped_where.items():
            where.setdefault(reason, w)
    out = [f"dropped:           {sum(dropped.values())}"]
    for reason, count in sorted(dropped.items(), key=lambda kv: (-kv[1], kv[0])):
        out.append(f"  {count} x {_why_dropped(reason)} (first at {where.get(reason, '?')})")
    return out


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


def _redactions(report: TracesReport) -> list[str]:
    redactions: Counter = Counter()
    for f in report.files:
        redactions.update(f.redactions)
    out = [f"redactions:        {sum(redactions.values())}" + (" (secrets the old output had leaked)" if redactions else "")]
    out += [f"  {count} x {kind}" for kind, count in sorted(redactions.items())]
    truncated = sum(f.truncated for f in report.files)
    if truncated:
        out.append(f"truncated:         {truncated} very long string(s), head and tail kept")
    return out


def _not_old_shape(report: TracesReport) -> list[str]:
    bad = [line for f in report.files for line in f.not_old_shape]
    out = [f"not old-shape:     {len(bad)} row(s), not converted"]
    out += [f"  {line}" for line in bad[:20]]
    if len(bad) > 20:
        out.append(f"  ... {len(bad) - 20} more (see --json)")
    return out


def _warnings(report: TracesReport) -> list[str]:
    warnings = [(f.input, w) for f in report.files for w in f.warnings]
    if not warnings:
        return []
    return [f"warnings:          {len(warnings)}"] + [f"  {name}: {w}" for name, w in warnings[:10]]
