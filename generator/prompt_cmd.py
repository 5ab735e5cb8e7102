"""`trajectory-cleaner prompt`: the coding-agent prompt for a folder of samples, on its own."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from generator.paths import shown_inputs
from generator.prompt import prompt_from_inference

DESCRIPTION = """\
Render the coding-agent prompt for the raw traces in SAMPLES: the trajectory-v1 contract with
the schema path resolved on this machine, the hard constraints, the mapping guidance, what
inspection found in the samples (structure only: kinds, counts, fields, timestamps, links), the
inferred mapping with its open questions, and the steps to run and register the result.

By default the prompt carries structure, not transcript prose; --include-samples adds a few
records, shortened and passed through the secret redaction."""

EPILOG = """\
examples:
  trajectory-cleaner prompt ./raw-traces > AGENT_PROMPT.md
  trajectory-cleaner prompt ./raw-traces --include-samples --source-profile support -o AGENT_PROMPT.md
  codex "$(trajectory-cleaner prompt ./raw-traces)"          # hand it to an agent in one command
"""

PROFILES = ("coding", "support", "research", "ops", "compliance", "generic")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("samples", nargs="+", metavar="SAMPLES", help="sample raw trace files or folders")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the prompt to FILE (default: stdout)")
    parser.add_argument("--source-profile", metavar="NAME",
                        help=f"Lerim source profile ({', '.join(PROFILES)}, or a custom id); default: inferred")
    parser.add_argument("--source", help="the agent or workflow name (default: inferred)")
    parser.add_argument("--include-samples", action="store_true",
                        help="add a few sample records, shortened and redacted")


def run(args: argparse.Namespace) -> int:
    from generator.infer import infer

    for given in args.samples:
        if not Path(given).exists() and not any(ch in given for ch in "*?["):
            print(f"error: {given}: no such file or folder", file=sys.stderr)
            return 2
    try:
        inference = infer(list(args.samples), source=args.source, progress=sys.stderr.isatty())
    except FileNotFoundError as exc:
        print(f"error: {exc} (give sample trace files or folders that hold them)", file=sys.stderr)
        return 2
    if not inference.profile.recs:
        print(f"error: no record could be read from {shown_inputs(args.samples)}", file=sys.stderr)
        return 1
    text = prompt_from_inference(inference, args.samples, source_profile=args.source_profile,
                                 include_samples=args.include_samples)
    if args.output:
        from cleaner_runtime.writer import write_atomic

        try:
            write_atomic(Path(args.output), text.encode("utf-8"))
        except OSError as exc:
            print(f"error: {args.output}: cannot write ({exc.strerror or exc})", file=sys.stderr)
            return 2
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False)
