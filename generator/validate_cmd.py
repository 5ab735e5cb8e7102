"""`trajectory-cleaner validate`: check trajectory-v1 JSONL files the way Lerim reads them.

The checks live in ``cleaner_runtime/validate.py`` (the very module every rendered cleaner ships a
copy of); this command imports it and only handles paths and reporting.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from types import ModuleType

DESCRIPTION = """\
Check trajectory-v1 JSONL files (or folders of them, searched recursively for *.jsonl) and
say exactly why Lerim would skip a file: the trajectory-v1 JSON Schema applied to the whole
file, plus the rules it cannot express (UTF-8 without BOM, one JSON object per line, no blank
lines or duplicate keys, meta first and only once, a source that names the agent, real ISO-8601
timestamps with a zone, assistant content null exactly when tool_calls is present, args a string
holding a JSON object, unique tool call ids, each tool result after its call, a user and an
assistant record).

Each rule's origin is listed below: the trajectory-v1 schema, Lerim's rules for custom trace
folders (the seed), Letta's runtime validator (validateTranscript, which Letta's normaliser runs
on every transcript it writes), JSON itself, or, for one warning, trajectory-cleaner's own advice.
Whatever Letta's validator rejects is an error here; --partial accepts what Letta's
{partial: true} accepts (no user or no assistant record), with a warning.

Every problem is printed as `path:line: rule: message`. Warnings (lines that are not compact,
empty lines or a carriage return between tokens, which JSON-lines readers and Letta's validator
accept; timestamps going backwards; a second result for one call) do not fail a file unless
--strict is given. On line ends and whitespace Letta's validator is the authority: a file fails
for them only where Letta's fails it (a line of only whitespace is not JSON).

The schema is the one Lerim uses: --schema FILE if given, else the normalizer's copy under the
Lerim data dir ([data] dir in $LERIM_CONFIG or ~/.lerim/config.toml, default ~/.lerim), else
the copy bundled with trajectory-cleaner. Which one was used is said on stderr."""

EPILOG = """\
examples:
  trajectory-cleaner validate ~/lerim-traces/support-clean
  trajectory-cleaner validate run-001.jsonl run-002.jsonl --strict
  trajectory-cleaner validate ./clean --schema trajectory-v1.schema.json --json > report.json

rules (* warning; origin: schema = the trajectory-v1 JSON Schema, seed = Lerim's custom trace
folder rules, Letta = Letta's runtime validator validateTranscript, JSON = RFC 8259,
cleaner = trajectory-cleaner's own advice):
  unreadable          seed                 the file can be read
  bom                 seed, JSON           UTF-8 without a byte order mark
  utf8                seed, JSON           valid UTF-8
  blank-line*         seed                 no empty padding lines (Letta's reader skips them)
  json                seed, JSON           one complete JSON value per line (no NaN, no trailing comma,
                                           no line of only whitespace)
  duplicate-key       JSON                 no object repeats a key
  line-break*         seed                 no carriage return inside a line (JSON takes it for whitespace)
  compact-line*       seed                 compact: no spaces outside strings, LF line endings
  empty-file          schema, Letta        at least one record
  schema              schema, Letta        the schema on the whole file (Letta checks the same shapes)
  meta-first          seed, Letta          line 1 is the meta record
  meta-once           seed, Letta          no other meta record
  meta-source         schema, seed, Letta  source non-empty (schema, Letta), not only whitespace (seed)
  timestamp           schema, seed, Letta  ISO-8601 with a zone (schema, Letta), a real instant (seed)
  timestamp-order*    seed                 timestamps never go backwards
  assistant-content   schema, seed, Letta  content null exactly when tool_calls, else non-empty text
  args-object         seed, Letta          args a string holding a JSON object
  duplicate-call-id   Letta                tool call ids unique in the file
  tool-link           seed, Letta          a result answers a call (Letta) made earlier (seed)
  duplicate-result*   cleaner              at most one result per call
  no-user             Letta                a user record (--partial: a warning)
  no-assistant        Letta                an assistant record (--partial: a warning)

exit codes: 0 every file passes; 1 problems found; 2 usage or configuration error (missing
            path, not a regular file, over --max-size, unreadable schema); 130 interrupted

limits: only regular files are read (a FIFO, a device or a symlink to one is refused, exit 2);
  a file over --max-size (default 1 GiB) is refused, exit 2; a line over 64 MiB is reported as
  unreadable on its line and the lines after it are still checked. Files are read a line at a
  time, so memory stays a few lines' worth whatever the file holds.
"""

MAX_PROBLEMS_SHOWN = 50


def load_runtime() -> ModuleType:
    """``cleaner_runtime.validate``, imported on first use (it imports the schema compiler, and
    jsonschema when a schema or a record needs it, which the other commands and ``--help`` need not
    load)."""
    from cleaner_runtime import validate

    return validate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    if parser.description is None:
        parser.description = DESCRIPTION
    if parser.epilog is None:
        parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("paths", nargs="+", metavar="PATH", help="trajectory-v1 .jsonl files or folders of them")
    parser.add_argument("--schema", metavar="FILE", help="validate against this schema file instead of Lerim's")
    parser.add_argument("--json", action="store_true", help="print a machine-readable report on stdout")
    parser.add_argument("--strict", action="store_true", help="treat warnings as failures")
    parser.add_argument("--max-size", metavar="SIZE", type=parse_size, default=None,
                        help="refuse files larger than this (bytes, or with K, M, G: 1024-based; default 1G = 1 GiB)")
    parser.add_argument("--partial", action="store_true",
                        help="accept a session without a user or an assistant record, with a warning, as Letta's "
                             "validateTranscript does with {partial: true}")


_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20,
          "MIB": 1 << 20, "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30, "T": 1 << 40, "TB": 1 << 40, "TIB": 1 << 40}


def parse_size(text: str) -> int:
    """``--max-size``: a byte count, optionally with a 1024-based unit (``500M``, ``2GiB``)."""
    number = text.strip().upper().rstrip()
    digits = number.rstrip("BKMGTI")
    unit = number[len(digits):]
    try:
        value = int(digits.strip()) * _UNITS[unit]
    except (ValueError, KeyError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a size; give bytes, or e.g. 500M or 2G") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: the size must be positive")
    return value


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _shown_path(path: Path) -> str:
    """A schema path for people: under the home folder as ~/..."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


def _not_a_file(path: str) -> str | None:
    """Why a *.jsonl found in a folder is not checked (a FIFO would block, /dev/zero never end), or None."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return f"cannot read ({exc.strerror or exc})"
    from cleaner_runtime.validate import not_regular

    kind = not_regular(mode)
    return None if kind is None else f"not a regular file ({kind})"


def collect_files(paths: list[str]) -> tuple[list[tuple[str, Path]], list[str]]:
    """(display path, real path) for every file to check, plus notices; keeps the user's spelling."""
    files: list[tuple[str, Path]] = []
    notices: list[str] = []
    seen: set[str] = set()

    def add(shown: str, path: Path) -> None:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            files.append((shown, path))

    for given in paths:
        path = Path(given)
        if not path.is_dir():
            add(given, path)
            continue
        found: list[str] = []

        def walk_error(exc: OSError, given: str = given) -> None:
            notices.append(f"notice: {exc.filename or given}: cannot list this folder ({exc.strerror}); skipped")

        for folder, dirs, names in os.walk(path, onerror=walk_error):
            dirs.sort()
            relative = os.path.relpath(folder, path)
            for name in sorted(names):
                rel = name if relative == "." else os.path.join(relative, name)
                if name.endswith(".jsonl.gz"):
                    notices.append(f"notice: {os.path.join(given, rel)}: gzip-compressed, not checked; "
                                   "decompress it (gunzip -k) to validate it")
                if not name.endswith(".jsonl"):
                    continue
                skipped = _not_a_file(os.path.join(folder, name))
                if skipped:
                    notices.append(f"notice: {os.path.join(given, rel)}: {skipped}; skipped")
                else:
                    found.append(rel)
        if not found:
            notices.append(f"notice: {given}: no .jsonl files in this folder")
        for rel in found:
            add(os.path.join(given, rel), path / rel)
    return files, notices


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    for given in args.paths:
        if not os.path.exists(given):
            return _error(f"{given}: no such file or folder (give .jsonl files or folders of them)")
    try:
        rt = load_runtime()
    except (OSError, ImportError) as exc:
        return _error(f"cannot load the validation runtime: {exc}")
    try:
        schema_path, origin = rt.find_schema(args.schema)
        schema = rt.load_schema(schema_path)
    except rt.SchemaError as exc:
        return _error(str(exc))
    shown_schema = args.schema if origin == "--schema" else _shown_path(schema_path)
    try:
        validator = rt.TrajectoryValidator(schema, partial=bool(getattr(args, "partial", False)))
    except rt.SchemaError as exc:
        return _error(f"{shown_schema}: {exc}")
    print(f"schema: {shown_schema} ({origin})", file=sys.stderr)
    if validator.differs_from_bundled:
        print(
            f"notice: {shown_schema} differs from the schema bundled with trajectory-cleaner; verdicts follow it",
            file=sys.stderr,
        )

    files, notices = collect_files(args.paths)
    for notice in notices:
        print(notice, file=sys.stderr)
    if not files:
        return _error("no .jsonl files to check in " + ", ".join(args.paths))

    max_bytes = getattr(args, "max_size", None) or rt.MAX_FILE_BYTES
    refusal = _refuse_unreadable(rt, files, max_bytes)
    if refusal is not None:
        return _error(refusal)

    strict = bool(args.strict)
    reports = []
    totals = {"files": 0, "passed": 0, "failed": 0, "errors": 0, "warnings": 0}
    for shown, path in files:
        problems = rt.check_file(path, validator, max_bytes=max_bytes)
        errors = sum(1 for p in problems if p.severity == "error")
        warnings = len(problems) - errors
        ok = errors == 0 and not (strict and warnings)
        totals["files"] += 1
        totals["passed" if ok else "failed"] += 1
        totals["errors"] += errors
        totals["warnings"] += warnings
        reports.append({"path": shown, "ok": ok, "errors": errors, "warnings": warnings, "problems": problems})
        if not args.json:
            _print_problems(shown, problems)

    all_ok = totals["failed"] == 0
    if args.json:
        report = {
            "ok": all_ok,
            "strict": strict,
            "partial": validator.partial,
            "schema": {"path": str(schema_path), "origin": origin, "differs_from_bundled": validator.differs_from_bundled},
            "summary": totals,
            "files": [
                {
                    **{k: v for k, v in r.items() if k != "problems"},
                    "problems": [
                        {"line": p.line, "rule": p.rule, "severity": p.severity, "message": p.message}
                        for p in r["problems"]
                    ],
                }
                for r in reports
            ],
        }
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(_summary(totals, strict))
    return 0 if all_ok else 1


def _refuse_unreadable(rt: ModuleType, files: list[tuple[str, Path]], max_bytes: int) -> str | None:
    """Why a file named on the command line cannot be checked at all (not a regular file: a FIFO
    would block, /dev/zero never end; over ``--max-size``), before any is read; None when all can."""
    for shown, path in files:
        try:
            info = os.stat(path)
        except OSError as exc:
            return f"{shown}: cannot read ({exc.strerror or exc}); check the path and permissions"
        kind = rt.not_regular(info.st_mode)
        if kind is not None:
            return f"{shown}: not a regular file ({kind}); validate reads regular .jsonl files only"
        if info.st_size > max_bytes:
            return (f"{shown}: {info.st_size} bytes, over the --max-size limit of {max_bytes} bytes "
                    f"({rt.size_text(max_bytes)}); raise --max-size (e.g. --max-size 4G) or split the file")
    return None


def _print_problems(shown: str, problems: list) -> None:
    for problem in problems[:MAX_PROBLEMS_SHOWN]:
        where = f"{shown}:{problem.line}" if problem.line is not None else shown
        label = f"{problem.rule}: warning" if problem.severity != "error" else problem.rule
        print(f"{where}: {label}: {problem.message}")
    if len(problems) > MAX_PROBLEMS_SHOWN:
        print(f"{shown}: ... and {len(problems) - MAX_PROBLEMS_SHOWN} more problems (use --json to see all)")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _summary(totals: dict, strict: bool) -> str:
    text = (
        f"{_plural(totals['files'], 'file')} checked: {totals['passed']} passed, {totals['failed']} failed "
        f"({_plural(totals['errors'], 'error')}, {_plural(totals['warnings'], 'warning')}"
    )
    if totals["warnings"] and not strict:
        text += "; warnings pass without --strict"
    return text + ")"
