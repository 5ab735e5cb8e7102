"""`trajectory-cleaner migrate`: convert old-shape trace folders, or regenerate the cleaner that wrote them."""

from __future__ import annotations

import argparse
import json
import sys

DESCRIPTION = """\
Leave the pre-trajectory shape {"type", "message": {"role", "content"}, "timestamp"} behind.
Lerim no longer reads it; two subcommands migrate what was written for it:

  migrate traces   convert folders of old output into trajectory-v1 (mechanical, loses nothing)
  migrate script   regenerate an old clean_to_lerim_jsonl.py as a tested trajectory-v1 cleaner"""

EPILOG = """\
examples:
  trajectory-cleaner migrate traces ~/lerim-traces/support-old -o ~/lerim-traces/support-clean \\
      --source support-agent
  trajectory-cleaner migrate script ./old/clean_to_lerim_jsonl.py --samples ./raw-traces \\
      -o ./support-cleaner --run-old

exit codes: 0 success; 1 the work ran and found problems (files that failed, rows that are not
            old-shape, an equivalence report that does not pass); 2 usage or configuration error;
            130 interrupted
"""

TRACES_DESCRIPTION = """\
Convert old-shape files (files or folders; folders are mirrored under --output) to trajectory-v1:
a leading meta record with --source; type / message.role -> role (human -> user); string content
kept; block lists split into the records they mean (text -> message, thinking -> reasoning,
tool_use -> an assistant tool_calls record, tool_result -> a tool record linked to its call) or
joined into one string when they hold only text; images and other binaries dropped and counted.
A null timestamp takes its neighbour's time (never invented); a file with no time at all fails
unless --fallback-mtime is given. Zone-less times are read in --timezone. Secrets the old output
leaked are redacted. Every file is validated before it is written, atomically."""

TRACES_EPILOG = """\
example:
  trajectory-cleaner migrate traces ~/lerim-traces/support-old -o ~/lerim-traces/support-clean \\
      --source support-agent --timezone Europe/Berlin

exit codes: 0 every file converted; 1 some file failed or some row was not old-shape (reported
            with file and line; the other files are written); 2 usage error; 130 interrupted
"""

SCRIPT_DESCRIPTION = """\
Regenerate an old cleaner script as a new trajectory-v1 cleaner project. The script is read (by
its syntax tree, never executed unless --run-old) to find where it writes the old shape. With
--run-old it is run on the samples in a subprocess (its --input/--output interface, a timeout)
and the mapping is learned by aligning its output with the raw samples; without it, the mapping
is inferred from the samples alone. The new project gets MIGRATION_REPORT.md (the old output
migrated mechanically vs the new cleaner's output on the same samples) and MIGRATION_PROMPT.md
(a prompt for a coding agent to finish the job). Nothing is asked: what could not be learned is
listed in the report (and printed with --yes)."""

SCRIPT_EPILOG = """\
example:
  trajectory-cleaner migrate script ./old/clean_to_lerim_jsonl.py --samples ./raw-traces \\
      -o ./support-cleaner --run-old --source support-agent

exit codes: 0 rendered, and the equivalence report passes; 1 rendered, but the report lists lost
            or reordered messages, or the old or new cleaner failed on the samples; 2 usage
            error (bad script, missing samples, existing --output); 130 interrupted
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="migrate_command", metavar="{traces,script}")
    traces = sub.add_parser("traces", help="convert old-shape trace files to trajectory-v1",
                            description=TRACES_DESCRIPTION, epilog=TRACES_EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    traces.add_argument("old", nargs="+", metavar="OLD", help="old-shape .jsonl files or folders")
    traces.add_argument("-o", "--output", required=True, help="folder for the trajectory-v1 files (mirrors the input)")
    traces.add_argument("--source", required=True, help="your agent or workflow name (the meta record's source)")
    traces.add_argument("--timezone", default="UTC",
                        help="zone of old timestamps written without one (default UTC; e.g. +02:00, Europe/Berlin)")
    traces.add_argument("--fallback-mtime", action="store_true",
                        help="a file with no timestamp at all uses its modification time (reported)")
    traces.add_argument("--schema", help="trajectory-v1 schema file (default: Lerim's data dir, else the bundled copy)")
    traces.add_argument("--json", action="store_true", help="print the report as JSON")
    traces.add_argument("--debug", action="store_true", help="show tracebacks of unexpected errors")
    traces.set_defaults(_run=run_traces)

    script = sub.add_parser("script", help="regenerate an old clean_to_lerim_jsonl.py as a trajectory-v1 cleaner",
                            description=SCRIPT_DESCRIPTION, epilog=SCRIPT_EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    script.add_argument("old_script", metavar="OLD_SCRIPT.py", help="the old cleaner script")
    script.add_argument("--samples", nargs="+", required=True, metavar="RAW", help="raw trace samples (files or folders)")
    script.add_argument("-o", "--output", required=True, help="folder for the new cleaner project (must not exist)")
    script.add_argument("--run-old", action="store_true",
                        help="execute the old script on the samples (opt-in: it runs your code) and learn from its output")
    script.add_argument("--timeout", type=float, default=120.0, metavar="S",
                        help="seconds the old script may run per sample (default 120)")
    script.add_argument("--yes", action="store_true", help="print what could not be learned (never asks anything)")
    script.add_argument("--source", help="the meta record's source (default: the old script's folder name)")
    script.add_argument("--source-profile", default="generic", help="the Lerim source profile (default generic)")
    script.add_argument("--timezone", help="zone of zone-less timestamps (default: learned, else UTC)")
    script.add_argument("--json", action="store_true", help="print the report as JSON")
    script.add_argument("--debug", action="store_true", help="show tracebacks of unexpected errors")
    script.set_defaults(_run=run_script)


def run(args: argparse.Namespace) -> int:
    handler = getattr(args, "_run", None)
    if handler is None or handler is run:
        print("error: say what to migrate: `trajectory-cleaner migrate traces ...` or "
              "`trajectory-cleaner migrate script ...` (see --help)", file=sys.stderr)
        return 2
    return handler(args)


def _progress(n: int, total: int) -> None:
    if sys.stderr.isatty():
        print(f"\r{n}/{total} files", end="" if n < total else "\n", file=sys.stderr)


def run_traces(args: argparse.Namespace) -> int:
    from generator.migrate import MigrateError, format_traces_report, migrate_traces

    try:
        report = migrate_traces(args.old, args.output, args.source, args.timezone, args.fallback_mtime,
                                args.schema, progress=None if args.json else _progress)
    except MigrateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        print(format_traces_report(report))
    for failed in report.failed:
        print(f"error: {failed.error}", file=sys.stderr)
    return 1 if report.problems else 0


def run_script(args: argparse.Namespace) -> int:
    from generator.migrate import MigrateError, format_script_report, migrate_script

    try:
        report = migrate_script(
            args.old_script, args.samples, args.output, run_old=args.run_old, timeout=args.timeout,
            source=args.source, source_profile=args.source_profile, tz=args.timezone,
            notice=lambda text: print(text, file=sys.stderr),
        )
    except MigrateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        print(format_script_report(report, list_open=args.yes))
    for error in report.errors:
        print(f"error: {error}", file=sys.stderr)
    return 0 if report.passed else 1
