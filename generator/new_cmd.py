"""`trajectory-cleaner new`: render a cleaner project from sample traces."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.answers import AnswersError, load_answers
from generator.render import RenderError, render_new

DESCRIPTION = """\
Render a cleaner project for the raw traces in SAMPLES: clean_to_trajectory_jsonl.py, its
runtime, its tests (with the samples and the outputs they produce), README.md, AGENT_PROMPT.md
and the answers file (.copier-answers.yml) that records the mapping.

With --answers the mapping comes from a file (a mapping YAML or another project's
.copier-answers.yml) and nothing is asked."""

EPILOG = """\
examples:
  trajectory-cleaner new ./raw-traces --answers mapping.yml -o ./support-cleaner
  cd support-cleaner && python -m pytest
  python clean_to_trajectory_jsonl.py --input ../raw-traces --output ~/lerim-traces/support-clean
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("samples", nargs="+", metavar="SAMPLES", help="sample raw trace files or folders")
    parser.add_argument("-o", "--output", required=True, help="folder for the new cleaner project (must not exist)")
    parser.add_argument("--answers", help="mapping YAML to render from (no questions asked)")


def run(args: argparse.Namespace) -> int:
    samples = [Path(s) for s in args.samples]
    for given, sample in zip(args.samples, samples):
        if not sample.exists():
            print(f"error: {given}: no such file or folder", file=sys.stderr)
            return 2
    if not args.answers:
        print("error: give --answers FILE (the survey and --yes are not available in this build)", file=sys.stderr)
        return 2
    try:
        mapping = load_answers(args.answers)
        rendered = render_new(mapping, samples, Path(args.output))
    except (AnswersError, RenderError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return report(rendered, args.output)


def report(rendered, shown: str) -> int:
    print(f"rendered {shown}")
    if rendered.cleaner_exit != 0:
        print(rendered.cleaner_output, file=sys.stderr)
        print(f"error: the rendered cleaner failed on the samples (exit {rendered.cleaner_exit}); "
              f"fix the mapping in {shown}/.copier-answers.yml and run `trajectory-cleaner update {shown}`",
              file=sys.stderr)
        return 1
    print(f"  cd {shown} && python -m pytest")
    print(f"  python {shown}/clean_to_trajectory_jsonl.py --input RAW --output CLEAN")
    return 0
