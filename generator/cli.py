"""The `trajectory-cleaner` command line: one subcommand per journey step.

Conventions (shared by every subcommand): people's output on stdout, progress and notices on
stderr, `--json` where a command reports something; exit 0 success, 1 the work ran and found
problems, 2 usage or configuration errors, 130 interrupted; errors are one line naming the file
(and line) and what would fix it; `--debug` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import traceback

from generator import __version__

# (name, module, one-line help). Modules expose add_arguments(parser) and run(args) -> int.
COMMANDS = [
    ("inspect", "generator.inspect_cmd", "profile sample raw traces and propose a mapping"),
    ("new", "generator.new_cmd", "render a cleaner project from samples (survey, --yes, or --answers)"),
    ("prompt", "generator.prompt_cmd", "render the coding-agent prompt for samples"),
    ("validate", "generator.validate_cmd", "check trajectory-v1 JSONL files and say exactly what is wrong"),
    ("migrate", "generator.migrate_cmd", "convert pre-trajectory traces, or regenerate the cleaners that wrote them"),
    ("update", "generator.update_cmd", "regenerate a rendered cleaner with the installed template"),
]

EPILOG = """\
journeys:
  trajectory-cleaner inspect ./raw-traces
  trajectory-cleaner new ./raw-traces -o ./support-cleaner
  trajectory-cleaner prompt ./raw-traces > AGENT_PROMPT.md
  trajectory-cleaner validate ~/lerim-traces/support-clean
  trajectory-cleaner update ./support-cleaner --check

exit codes: 0 success; 1 the work ran and found problems; 2 usage or configuration error;
            130 interrupted
"""


def _chosen(argv: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the chosen command's module is imported (``argv`` None: every command's).

    Command modules import what they need (copier, jsonschema, the inference engine); importing
    all of them to run one would cost a noticeable part of a second on every run.
    """
    parser = argparse.ArgumentParser(
        prog="trajectory-cleaner",
        description="Turn a folder of raw agent or workflow traces into a tested cleaner that writes trajectory-v1 JSONL.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"trajectory-cleaner {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = _chosen(argv) if argv is not None else None
    for name, module_name, help_text in COMMANDS:
        if argv is not None and name != chosen:
            if importlib.util.find_spec(module_name) is not None:
                sub.add_parser(name, help=help_text)  # listed in --help; never parsed in this run
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        command = sub.add_parser(
            name,
            help=help_text,
            description=getattr(module, "DESCRIPTION", help_text),
            epilog=getattr(module, "EPILOG", None),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        command.add_argument("--debug", action="store_true", help="show tracebacks of unexpected errors")
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("aborted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - a bug, not bad input: one line unless --debug
        if getattr(args, "debug", False):
            traceback.print_exc()
        else:
            print(f"error: unexpected {exc.__class__.__name__}: {exc} (rerun with --debug)", file=sys.stderr)
        return 2
