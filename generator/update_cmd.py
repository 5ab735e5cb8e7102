"""`trajectory-cleaner update`: regenerate a rendered cleaner with the installed template."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from generator import TEMPLATE_VERSION
from generator.answers import AnswersError
from generator.render import RenderError
from generator.update import (
    OutputChange,
    UpdateError,
    accept_outputs,
    apply_plan,
    compare_outputs,
    load_project_mapping,
    plan_update,
    render_fresh,
    stale_script,
    stored_prompt_context,
)

DESCRIPTION = """\
Re-render a cleaner project with the installed trajectory-cleaner template and its stored
answers (.copier-answers.yml), optionally with changed answers. Generated files you edited by
hand are kept and reported (--force replaces them, keeping a .orig copy); cleaner_hooks.py and
anything else you own is never touched. Afterwards the cleaner runs on the project's samples and
any change in output records is shown; tests/expected is refreshed only with --accept-output."""

EPILOG = """\
examples:
  trajectory-cleaner update ./support-cleaner --check        # in CI: exit 1 when out of date
  trajectory-cleaner update ./support-cleaner --diff         # show what would change
  trajectory-cleaner update ./support-cleaner --set timestamps.fallback=file_mtime
  trajectory-cleaner update ./support-cleaner --accept-output
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("project", metavar="DIR", help="a project rendered by `trajectory-cleaner new`")
    parser.add_argument("--answers", help="render from this mapping instead of the stored answers")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                        help="change one answer (dotted key, YAML value); repeatable")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the project is out of date")
    parser.add_argument("--diff", action="store_true", help="write nothing; show the changes an update would make")
    parser.add_argument("--force", action="store_true", help="also replace generated files edited by hand (keeps .orig)")
    parser.add_argument("--accept-output", action="store_true",
                        help="refresh tests/expected when the cleaner's output on the samples changed")
    parser.add_argument("--json", action="store_true", help="machine-readable report on stdout")


def run(args: argparse.Namespace) -> int:
    project = Path(args.project)
    if not project.is_dir():
        print(f"error: {args.project}: no such folder", file=sys.stderr)
        return 2
    try:
        mapping = load_project_mapping(project, args.answers, args.sets)
        with tempfile.TemporaryDirectory(prefix="tc-update-") as tmp:
            fresh = render_fresh(mapping, Path(tmp), stored_prompt_context(project))
            plan = plan_update(project, fresh, mapping)
            if args.check or args.diff:
                return _report_only(args, plan)
            kept = apply_plan(project, fresh, plan, args.force)
            stale = stale_script(project, fresh, kept)
    except (AnswersError, UpdateError, RenderError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if stale:
        _print_report(args, plan, kept, OutputChange([], [], "not run"), False)
        print(f"error: {stale}", file=sys.stderr)
        return 1
    change = compare_outputs(project)
    accepted = bool(change.changed) and args.accept_output and accept_outputs(project)
    report = {
        "template_version": {"before": plan.old_template_version, "after": TEMPLATE_VERSION},
        "updated": plan.added + plan.changed + (plan.edited if args.force else []),
        "removed": plan.removed,
        "kept_edited": kept,
        "kept_stale": plan.kept_stale,
        "created": plan.created_user,
        "answers_changed": plan.answers_changed,
        "output_changed": change.changed,
        "output_accepted": accepted,
        "cleaner_error": change.error,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print_report(args, plan, kept, change, accepted)
    if change.error:
        print(f"error: the updated cleaner fails on the samples:\n{change.error}", file=sys.stderr)
        return 1
    return 1 if kept or (change.changed and not accepted) else 0


def _report_only(args: argparse.Namespace, plan) -> int:
    if args.json:
        print(json.dumps({
            "out_of_date": plan.out_of_date, "added": plan.added, "changed": plan.changed,
            "edited": plan.edited, "removed": plan.removed, "answers_changed": plan.answers_changed,
            "template_version": {"project": plan.old_template_version, "installed": TEMPLATE_VERSION},
        }, indent=2))
    elif args.diff:
        for rel in plan.added + plan.changed + plan.edited + plan.removed:
            sys.stdout.write(plan.diffs.get(rel, ""))
        if plan.edited:
            print(f"note: edited by hand (kept unless --force): {', '.join(plan.edited)}", file=sys.stderr)
    else:
        if plan.out_of_date:
            print(f"{args.project}: out of date with the installed template (version "
                  f"{plan.old_template_version} -> {TEMPLATE_VERSION})")
            for label, items in (("would add", plan.added), ("would update", plan.changed),
                                 ("edited by hand", plan.edited), ("would remove", plan.removed)):
                for rel in items:
                    print(f"  {label}: {rel}")
            if plan.answers_changed:
                print("  answers changed")
        else:
            print(f"{args.project}: up to date")
    if args.check:
        return 1 if plan.out_of_date else 0
    return 0


def _print_report(args, plan, kept, change, accepted) -> None:
    shown = args.project
    updated = plan.added + plan.changed + (plan.edited if args.force else [])
    print(f"updated {shown} (template version {plan.old_template_version} -> {TEMPLATE_VERSION})")
    for rel in updated:
        print(f"  updated: {rel}")
    for rel in plan.removed:
        print(f"  removed (no longer generated): {rel}")
    for rel in plan.created_user:
        print(f"  created (yours from now on): {rel}")
    for rel in plan.kept_stale:
        print(f"  kept (no longer generated, but edited by you): {rel}")
    if plan.answers_changed:
        print("  answers changed")
    for rel in kept:
        print(f"warning: {rel} was edited by hand and differs from the template; kept. "
              f"Move your change to cleaner_hooks.py, or rerun with --force (keeps {rel}.orig):", file=sys.stderr)
        sys.stderr.write(plan.diffs.get(rel, ""))
    if change.changed:
        verb = "accepted into tests/expected" if accepted else "NOT accepted (rerun with --accept-output to refresh tests/expected)"
        print(f"output changed for {len(change.changed)} sample session(s), {verb}:")
        for detail in change.details:
            sys.stdout.write(detail)
    elif not change.error:
        print("output on the samples: unchanged")
    print(f"run the project's tests: cd {shown} && python -m pytest")
