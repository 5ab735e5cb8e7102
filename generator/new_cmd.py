"""`trajectory-cleaner new`: render a cleaner project from sample traces.

Three ways to get the mapping: `--answers FILE` (reproduce exactly, no questions), `--yes`
(inference alone; refuses, listing the open questions, when it is not sure of everything), or
the interactive survey on a terminal (asks only what inference could not settle, with previews).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

from generator.answers import AnswersError, dump_mapping, load_answers
from generator.paths import shown_inputs
from generator.render import LossesFound, NothingWritten, RenderError, SessionsFailed, render_new

DESCRIPTION = """\
Render a cleaner project for the raw traces in SAMPLES: clean_to_trajectory_jsonl.py, its
runtime, its tests (with the samples and the outputs they produce), README.md, AGENT_PROMPT.md
and the answers file (.copier-answers.yml) that records the mapping.

On a terminal, `new` inspects the samples and asks only what it cannot infer, showing a preview
of the records the cleaner will write. --yes renders what inference is sure of without asking
(and exits 1 listing the open questions when it is not sure of everything); --answers FILE
renders a mapping you already have."""

EPILOG = """\
examples:
  trajectory-cleaner new ./raw-traces -o ./support-cleaner                 # the survey
  trajectory-cleaner new ./raw-traces -o ./support-cleaner --yes           # no questions
  trajectory-cleaner new ./raw-traces -o ./support-cleaner --answers mapping.yml
  cd support-cleaner && python -m pytest

exit codes: 0 rendered; 1 open questions under --yes, the cleaner failed on the samples, or it
            wrote nothing for them (nothing rendered); 2 usage error (missing samples, bad
            answers file, output exists); 130 interrupted
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("samples", nargs="+", metavar="SAMPLES", help="sample raw trace files or folders")
    parser.add_argument("-o", "--output", required=True, help="folder for the new cleaner project (must not exist)")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--answers", metavar="FILE", help="render this mapping (YAML) without asking anything")
    how.add_argument("--yes", action="store_true", help="render the inferred mapping; refuse when unsure")
    parser.add_argument("--source", help="the agent or workflow name for the meta record (default: inferred)")
    parser.add_argument("--source-profile", metavar="NAME", help="the Lerim source profile (default: inferred)")
    parser.add_argument("--save-answers", metavar="FILE", help="also write the mapping to FILE (for --answers)")
    parser.add_argument("--json", action="store_true", help="with --yes: report open questions as JSON")


def _check_samples(args: argparse.Namespace) -> list[Path] | None:
    samples = [Path(s) for s in args.samples]
    for given, sample in zip(args.samples, samples):
        if not sample.exists():
            print(f"error: {given}: no such file or folder", file=sys.stderr)
            return None
    return samples


def run(args: argparse.Namespace) -> int:
    samples = _check_samples(args)
    if samples is None:
        return 2
    target = Path(args.output)
    if target.exists() and not target.is_dir():
        print(f"error: {args.output}: exists and is a file; choose a new --output folder", file=sys.stderr)
        return 2
    if target.exists() and any(target.iterdir()):
        hint = "use `trajectory-cleaner update`" if (target / ".copier-answers.yml").exists() else \
            "choose a new --output folder"
        print(f"error: {args.output}: exists and is not empty; {hint}", file=sys.stderr)
        return 2
    context: dict = {}
    if args.answers:
        try:
            mapping = load_answers(args.answers)
        except AnswersError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    elif args.yes:
        result = _inferred(args, samples)
        if isinstance(result, int):
            return result
        mapping, context = result
    else:
        if not sys.stdin.isatty() or not sys.stdout.isatty():
            print("error: `new` asks questions and needs a terminal; use --yes (inference only) or "
                  "--answers FILE (a mapping you have)", file=sys.stderr)
            return 2
        from generator.survey import run_survey

        outcome = run_survey(args, samples)
        if isinstance(outcome, int):
            return outcome
        mapping, context, output = outcome
        args.output = output
    if args.source_profile:
        mapping["source_profile"] = args.source_profile
    if args.save_answers:
        try:
            Path(args.save_answers).write_text(dump_mapping(mapping), encoding="utf-8")
        except OSError as exc:
            print(f"error: {args.save_answers}: cannot write ({exc.strerror or exc})", file=sys.stderr)
            return 2
    try:
        rendered = render_new(mapping, samples, Path(args.output), context, require_output=True,
                              refuse_losses=bool(args.yes))
    except NothingWritten as exc:
        return _nothing_written(args, exc)
    except LossesFound as exc:
        return _losses_found(args, exc)
    except SessionsFailed as exc:
        return _sessions_failed(args, exc)
    except (AnswersError, RenderError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return report(rendered, args.output)


def _sessions_failed(args: argparse.Namespace, exc: SessionsFailed) -> int:
    """Some sessions fail on the samples: a project whose own tests would fail is not rendered."""
    errors = [line for line in exc.output.splitlines() if line.startswith("error:")]
    if args.json:
        print(json.dumps({"questions": [], "failures": errors or [str(exc)]}, indent=2, ensure_ascii=False))
    print(exc.output.rstrip("\n"), file=sys.stderr)
    where = args.answers or "the mapping"
    print(f"error: {shown_inputs(args.samples)}: {exc}; fix the key each error names in {where} (or the samples) "
          "and run `new` again; nothing was rendered", file=sys.stderr)
    return 1


def _losses_found(args: argparse.Namespace, exc: LossesFound) -> int:
    """Under --yes, a cleaner that would drop what the samples hold is not rendered: right or refuse."""
    if args.json:
        print(json.dumps({"questions": [], "losses": [loss.to_dict() for loss in exc.losses]}, indent=2,
                         ensure_ascii=False))
    else:
        print("the inferred mapping would lose what the samples hold; nothing was rendered:")
        for loss in exc.losses:
            print(f"  {loss}")
        print("run without --yes on a terminal to settle it in the survey, or write the mapping with "
              "`trajectory-cleaner inspect SAMPLES --mapping mapping.yml`, add what is lost, and use --answers")
    return 1


def _nothing_written(args: argparse.Namespace, exc: NothingWritten) -> int:
    """Every session skipped: show what was skipped and why, and render nothing."""
    if args.json:
        print(json.dumps({"questions": [], "failures": [line.strip() for line in exc.summary.splitlines()
                                                         if line.strip()], "error": str(exc)}, indent=2,
                         ensure_ascii=False))
    print(exc.summary.rstrip("\n"), file=sys.stderr)
    if args.answers:
        fix = f"change {args.answers} so their records are kept"
    else:
        fix = ("write the mapping with `trajectory-cleaner inspect SAMPLES --mapping mapping.yml`, change it so "
               "their records are kept, and use --answers")
    print(f"error: {shown_inputs(args.samples)}: {exc} (see the summary above), so the project's tests would "
          f"have nothing to check; give samples that hold a conversation, or {fix}; nothing was rendered", file=sys.stderr)
    return 1


def _inferred(args: argparse.Namespace, samples: list[Path]):
    from generator.infer import infer
    from generator.prompt import question_lines, structure_summary

    try:
        inference = infer([str(s) for s in samples], source=args.source, progress=sys.stderr.isatty())
    except FileNotFoundError as exc:
        print(f"error: {exc} (give sample trace files or folders that hold them)", file=sys.stderr)
        return 2
    if not inference.profile.recs:
        message = f"no record could be read from {shown_inputs(args.samples)} (see `trajectory-cleaner inspect`)"
        if args.json:
            print(json.dumps({"questions": [], "error": message}, indent=2, ensure_ascii=False))
        print(f"error: {message}", file=sys.stderr)
        return 1
    if inference.native_source:
        print(f"notice: Letta's trajectory normalizer supports {inference.native_source!r} natively; "
              "prefer that path when you can (rendering a custom cleaner anyway)", file=sys.stderr)
    if inference.questions:
        if args.json:
            print(json.dumps({"questions": [q.to_dict() for q in inference.questions]}, indent=2, ensure_ascii=False))
        else:
            print(f"{len(inference.questions)} question(s) need an answer; nothing was rendered:")
            for q in inference.questions:
                print(f"  {q.key}: best guess {q.value!r} ({q.confidence:.2f}: {q.evidence})")
                if q.candidates[1:]:
                    print(f"      candidates: {', '.join(repr(c) for c in q.candidates[1:])}")
            print("answer them in the survey (run without --yes on a terminal), or write the mapping with "
                  "`trajectory-cleaner inspect SAMPLES --mapping mapping.yml`, edit it, and use --answers")
        return 1
    if inference.doubled:
        return _refused(args, {"doubled": inference.doubled}, (
            f"the inferred cleaner writes {inference.doubled} text(s) or call(s) twice on the samples "
            "(one field read as two records, or one call read from two places), so no reading was "
            "sure; answer the survey (run without --yes on a terminal), or write the mapping with "
            "`trajectory-cleaner inspect SAMPLES --mapping mapping.yml`, edit it, and use --answers; "
            "nothing was rendered"))
    if inference.doubts:
        return _refused(args, {"doubts": inference.doubts}, (
            "; ".join(inference.doubts) + "; so nothing was rendered"))
    context = {"inspection": structure_summary(inference), "questions": question_lines(inference)}
    return inference.mapping, context


def _refused(args, found: dict, message: str) -> int:
    """A render refused for what the search measured: the JSON report (with ``found``) and the error."""
    if args.json:
        print(json.dumps({"questions": [], **found, "error": message}, indent=2, ensure_ascii=False))
    print(f"error: {message}", file=sys.stderr)
    return 1


def skipped_sessions(summary: str) -> list[str]:
    """The cleaner summary's ``sessions skipped`` lines (``<file>: <why>``): sample sessions that
    write nothing, said rather than passed over (a render is not silent about a sample it drops)."""
    lines = summary.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("sessions skipped:")), None)
    if start is None or lines[start].split(":", 1)[1].strip() in ("", "0"):
        return []
    return [line.strip() for line in itertools.takewhile(lambda x: x.startswith("  "), lines[start + 1:])]


def report(rendered, shown: str) -> int:
    for sample, copy in rendered.renamed:
        print(f"notice: {sample}: its name is not valid UTF-8; copied as {shown}/{copy}", file=sys.stderr)
    for line in skipped_sessions(rendered.summary):
        print(f"notice: a sample session writes nothing, skipped and counted as the cleaner will: {line}",
              file=sys.stderr)
    print(f"rendered {shown}")
    if rendered.cleaner_exit != 0:
        print(rendered.cleaner_output, file=sys.stderr)
        print(f"error: the rendered cleaner failed on some samples (exit {rendered.cleaner_exit}); "
              f"fix the mapping in {shown}/.copier-answers.yml and run `trajectory-cleaner update {shown}`",
              file=sys.stderr)
        return 1
    print(f"  cd {shown} && python -m pytest")
    print(f"  python {shown}/clean_to_trajectory_jsonl.py --input RAW --output CLEAN")
    return 0
