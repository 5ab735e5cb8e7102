"""`trajectory-cleaner inspect`: profile sample raw traces and propose a mapping.

Why a separate step: before trusting a generated cleaner, people want to see what is in their
traces (privacy-safe: structure and counts, redacted short examples) and what the tool would
decide and why. `--mapping FILE` writes the proposed mapping for review or `new --answers`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from generator.infer import CONFIDENT, Inference, infer_profile
from generator.inspect import MAX_BYTES, human_size, profile_paths, report_text

DESCRIPTION = """\
Profile sample raw traces (files, folders, globs; JSONL, JSON arrays, JSON objects holding a
record list, gzip of either) and propose a mapping: what one session is, the record kinds and
their roles, timestamps, tool linkage, content blocks, meta fields and noise. Each decision has
a confidence and its evidence; the ones that are not sure are listed as questions.

The report is privacy-safe by default: structure and counts first, example values shortened and
passed through the same secret redaction a cleaner uses (prose is shown only with
--show-values). Large inputs are read by bounded sampling; the report says which part was read."""

EPILOG = """\
examples:
  trajectory-cleaner inspect ./raw-traces
  trajectory-cleaner inspect 'exports/**/*.jsonl.gz' --json > profile.json
  trajectory-cleaner inspect ./raw-traces --mapping mapping.yml
  trajectory-cleaner new ./raw-traces --answers mapping.yml -o ./support-cleaner

exit codes: 0 inspected (questions, if any, are listed); 1 no record could be read;
            2 usage error (missing input, unwritable --mapping file); 130 interrupted
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="sample raw trace files, folders or globs")
    parser.add_argument("--json", action="store_true", help="print the profile and the inference as JSON")
    parser.add_argument("--show-values", action="store_true",
                        help="show longer example values, prose included (still redacted)")
    parser.add_argument("--mapping", metavar="FILE", help="write the proposed mapping YAML to FILE (no rendering)")
    parser.add_argument("--source", help="the source name for the meta record (default: derived, see docs)")
    parser.add_argument("--max-mb", type=float, default=MAX_BYTES / (1024 * 1024), metavar="MB",
                        help=f"bytes of samples to read at most (default {MAX_BYTES // (1024 * 1024)})")


def run(args: argparse.Namespace) -> int:
    if args.max_mb <= 0:
        print("error: --max-mb must be a positive number of megabytes", file=sys.stderr)
        return 2
    if args.mapping:
        target = Path(args.mapping)
        if not target.parent.is_dir() if str(target.parent) else False:
            print(f"error: {args.mapping}: the folder does not exist (create it or choose another --mapping path)",
                  file=sys.stderr)
            return 2
    try:
        profile = profile_paths(args.paths, max_bytes=int(args.max_mb * 1024 * 1024), progress=True)
    except FileNotFoundError as exc:
        print(f"error: {exc} (give sample trace files or folders that hold them)", file=sys.stderr)
        return 2
    for problem in profile.problems:
        print(f"warning: {problem}", file=sys.stderr)
    if not profile.records:
        reasons = "; ".join(f"{f.path}: {f.problem}" for f in profile.files if f.problem)[:500]
        print(f"error: no JSON record could be read from {len(profile.files)} file(s)"
              + (f" ({reasons})" if reasons else "") + "; inspect expects JSONL, JSON arrays or JSON objects",
              file=sys.stderr)
        return 1
    inference = infer_profile(profile, source=args.source)
    if args.mapping:
        try:
            write_mapping(Path(args.mapping), inference)
        except OSError as exc:
            print(f"error: {args.mapping}: cannot write ({exc.strerror or exc})", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps({"profile": profile.to_dict(args.show_values), "inference": inference.to_dict()},
                         indent=2, default=str))
    else:
        sys.stdout.write(report_text(profile, show_values=args.show_values))
        sys.stdout.write(decisions_text(inference))
    if args.mapping:
        print(f"wrote the proposed mapping to {args.mapping}"
              + (f" ({len(inference.questions)} open question(s) marked in it)" if inference.questions else ""),
              file=sys.stderr)
    return 0


def decisions_text(inference: Inference) -> str:
    """The proposed mapping for people: decisions with evidence, noise skipped, open questions."""
    lines = ["", "Proposed mapping (confidence; evidence):"]
    for d in inference.decisions:
        mark = "  " if d.confidence >= CONFIDENT else "? "
        lines.append(f"  {mark}{d.key} = {_short(d.value)}  ({d.confidence:.2f}; {d.evidence})")
    skipped = [r for r in inference.mapping["kinds"] if r["role"] == "skip"]
    if skipped:
        lines += ["", "Skipped as noise or bookkeeping (counted by the cleaner, never written):"]
        for rule in skipped:
            lines.append(f"  - {rule.get('name')}: " + ", ".join(f"{k}={_short(v)}" for k, v in rule.get("match", {})
                                                                .items()))
    if inference.native_source:
        lines += ["", (f"Native format: Letta's trajectory normalizer reads `{inference.native_source}` directly; "
                  "prefer the native path. The mapping above reproduces its conventions for a custom cleaner.")]
    lines.append("")
    if inference.questions:
        lines.append(f"Open questions ({len(inference.questions)}): answer them in the mapping, or in the "
                     "survey of `trajectory-cleaner new`:")
        for q in inference.questions:
            lines.append(f"  - {q.key}: {q.evidence}")
            lines.append(f"      candidates: {', '.join(_short(c) for c in q.candidates)}")
    else:
        lines.append("No open questions: `trajectory-cleaner new SAMPLES -o DIR --yes` can render this mapping.")
    profile = inference.profile
    if not profile.complete:
        lines.append(f"(from a bounded sample: {human_size(sum(f.bytes_read for f in profile.files))} of "
                     f"{human_size(profile.bytes_total)}; --max-mb reads more)")
    return "\n".join(lines) + "\n"


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 90 else text[:89] + "…"


def mapping_yaml(inference: Inference) -> str:
    """The mapping YAML with a header saying where it came from and what is still open."""
    from generator.answers import dump_mapping

    profile = inference.profile
    head = [
        ("# Proposed by `trajectory-cleaner inspect` from "
        f"{len(profile.files)} sample file(s), {profile.records} record(s)."),
        "# Review it, then: trajectory-cleaner new SAMPLES --answers THIS_FILE -o DIR",
    ]
    if inference.native_source:
        head.append(f"# Native format: Letta's normalizer reads `{inference.native_source}` directly (preferred).")
    for q in inference.questions:
        head.append(f"# QUESTION {q.key}: {q.evidence}")
        head.append(f"#   candidates: {', '.join(_short(c) for c in q.candidates)}")
    return "\n".join(head) + "\n" + dump_mapping(inference.mapping)


def write_mapping(target: Path, inference: Inference) -> None:
    """Atomically: a reader never sees half a mapping file."""
    text = mapping_yaml(inference)
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
