"""How often `new --yes` is right, on the real formats nobody here wrote and on our own fixtures,
judged separately (issue 35: right on at least 60% of the real formats, at least as often as on our
own, and never wrong).

Two groups of cases:
- real: every format of tests/fixtures/real/<format>/ (case.yml) and of
  ../shared/reference/real-world/<format>/ (its table in tests/fixtures/real/_shared/<format>.yml);
  one verdict per format, over all its raw files at once (tests/formats/real_support.py). A format
  whose raw or expected files are not on this machine is listed as `absent`, not counted.
  A format whose expected files Letta's rules reject (`trajectory-cleaner validate`: a shared
  yardstick with no user record) is judged and printed, but set aside from the totals: a cleaner
  never writes a file Letta's validator rejects, so no cleaner can meet that yardstick.
- own: every case of tests/fixtures/<format>/<case>/ with a hand-written expected.jsonl.

For each case it runs `new --yes --json --source <source>` on a copy of the raw files, then the
rendered cleaner, and compares what it wrote with the expected files. A case is right (the same
output), refused (`new` exit 1: the questions it names are counted) or wrong (exit 0 and a different
output, a cleaner that fails after exit 0, or an exit of `new` other than 0 and 1: a defect).

How a format with no time at all gets its `timestamp_fallback`: `new` has no flag or partial answer
for a time, and `--answers` (a whole mapping) excludes `--yes`. What a user can do is what their
exporter does anyway: the raw files' modification time is that instant, and inference takes
`timestamps.fallback: file_mtime`. So the raw copies' mtime is set to it; the runtime writes it in
UTC, and the judge reads both spellings of that instant as the same (real_support.py).

The survey half: for every case of both groups, the survey's open questions in the order it asks
them (generator.survey.next_question), each shown as the survey shows it: a choice between what
each candidate writes (generator.choices). A scripted answerer holding only those choices and the
case's expected files picks the choice whose output holds the expected record where the choices
differ (`answer`); a question whose choices all write the same is settled unasked, as the survey
does. When no question is left and the output still differs, it changes, as the survey's summary
lets a person, the first decision inference was sure of that has a closer choice (one question
each). The final mapping is rendered with `new --answers` and its cleaner judged as above. A case
reaches a correct cleaner after N questions, or is "not reachable", with the question that had no
matching choice or the difference left. It never reads a fixture's mapping.yml (only the source).

    python benchmarks/bench_generality.py                  # both halves
    python benchmarks/bench_generality.py --half survey    # the survey half only
    python benchmarks/bench_generality.py --json
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.formats.real_support import (
    RealCase,
    Verdict,
    compare_outputs,
    judge_own,
    judge_real,
    real_cases,
    yardstick_rejected,
)
from tests.formats.support import Case, cases, first_difference, generator, run_cleaner


def run_group(items: Iterable, judge: Callable[[object, Path], Verdict], show: bool) -> list[Verdict]:
    """Each item judged in a fresh temporary folder, printed as it finishes when ``show``."""
    results = []
    for item in items:
        with tempfile.TemporaryDirectory() as work:
            results.append(judge(item, Path(work)))
        if show:
            r = results[-1]
            aside = f"[set aside: Letta's rules reject the expected files: {r.yardstick[:200]}] " if r.yardstick else ""
            print(f"  {r.verdict:8} {r.case:45} {aside}{r.why[:300]}", flush=True)
    return results


def absent(case: RealCase) -> Verdict:
    return Verdict(case=case.id, verdict="absent", format=case.name,
                   why="raw or expected files not on this machine" if case.source != "?" else
                   "no table under tests/fixtures/real/_shared/")


def summary(results: list[Verdict]) -> dict:
    """Totals of one group and the median questions of its refusals. Not counted: absent cases, and
    formats set aside because Letta's rules reject their expected files (no cleaner may write them;
    their verdict is still printed, and a wrong one still fails test_never_wrong)."""
    counted = [r for r in results if r.verdict != "absent" and not r.yardstick]
    right = sum(r.verdict == "right" for r in counted)
    refused = [r for r in counted if r.verdict == "refused"]
    return {
        "cases": len(counted), "right": right, "refused": len(refused),
        # a wrong render is counted wherever it happens, a set-aside yardstick or not
        "wrong": sum(r.verdict == "wrong" for r in results), "absent": sum(r.verdict == "absent" for r in results),
        "set_aside": [r.case for r in results if r.yardstick and r.verdict != "absent"],
        "right_share": round(right / len(counted), 3) if counted else 0.0,
        "median_questions_refused": statistics.median([r.questions for r in refused]) if refused else 0,
    }


def per_format(results: list[Verdict]) -> dict[str, dict[str, int]]:
    """right/refused/wrong counted per format (own fixtures have several cases a format)."""
    table: dict[str, dict[str, int]] = {}
    for r in results:
        row = table.setdefault(r.format, {"right": 0, "refused": 0, "wrong": 0, "absent": 0, "set_aside": 0})
        row[r.verdict] += 1
        row["set_aside"] += bool(r.yardstick) and r.verdict != "absent"
    return table


def totals_line(group: str, s: dict) -> str:
    line = (f"{group}: right {s['right']}/{s['cases']} ({s['right_share']:.0%}), refused {s['refused']} "
            f"(median questions {s['median_questions_refused']}), wrong {s['wrong']}")
    line += f", absent {s['absent']}" if s["absent"] else ""
    if s["set_aside"]:
        line += (f"; set aside {len(s['set_aside'])} whose expected files Letta's rules reject "
                 f"({', '.join(s['set_aside'])})")
    return line


@dataclass
class Target:
    """What the scripted answerer knows of a case: its raw copy, `new`'s source, and the expected
    output (canonical lines, as the judge compares them). Never the fixture's own mapping."""

    case: str
    raw: Path
    source: str
    canon: Callable[[bytes, bool], bytes]
    expected: Counter
    judge: Callable[[Path], tuple[bool, str]]  # the rendered cleaner's output folder -> right, why


def real_target(case: RealCase, work: Path) -> Target:
    want = Counter(line for p in case.expectations().values()
                   for line in case.canonical(p.read_bytes(), True).splitlines())
    return Target(case.id, case.raw_copy(work), case.source, case.canonical, want,
                  lambda out: compare_outputs(case, out))


def own_target(case: Case, work: Path) -> Target:
    def judge(out: Path) -> tuple[bool, str]:
        files = sorted(out.rglob("*.jsonl"))
        if len(files) != 1:
            return False, f"{len(files)} output files, one session expected"
        same = files[0].read_bytes() == case.expected.read_bytes()
        return same, "" if same else first_difference(files[0], case.expected).replace("\n", " ")

    return Target(f"own:{case.name}", case.raw_copy(work), case.mapping["source"], lambda data, _: data,
                  Counter(case.expected.read_bytes().splitlines()), judge)


def _lines(target: Target, records: list[dict]) -> list[bytes]:
    """Output records as the judge compares them: written as the runtime writes a line, canonical."""
    return [target.canon(json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), False)
            for r in records]


def answer(target: Target, offered) -> object | None:
    """The choice a person holding the expected output picks: the one whose whole output is the
    expected, else one whose record where the choices differ is an expected record (or, when it
    writes none there, whose rivals' records there are all unexpected), the closest output first;
    None when no choice writes what is expected there."""
    from generator.choices import records_at

    working = offered.working
    whole = [o for o in working
             if Counter(_lines(target, [r for rs in o.trial.outputs.values() for r in rs])) == target.expected]
    if whole:
        return whole[0]
    here = {id(o): _lines(target, records_at(o, offered.position)) for o in working}
    written = [line for lines in here.values() for line in lines]
    agree = [o for o in working if (here[id(o)] and here[id(o)][0] in target.expected)
             or (not here[id(o)] and written and not any(line in target.expected for line in written))]
    if not agree:
        return None
    return max(agree, key=lambda o: closeness(target, o))  # max keeps the first of equals: inference's order


def closeness(target: Target, option) -> int:
    """Expected lines an option's output holds, less the lines it writes that are not expected."""
    got = Counter(_lines(target, [r for rs in option.trial.outputs.values() for r in rs]))
    return sum((got & target.expected).values()) - sum((got - target.expected).values())


def survey_case(target: Target, work: Path, limit: int = 12) -> dict:
    """The survey's questions in its order (generator.survey.next_question), each answered by
    ``answer`` from the choices it shows; then the final mapping rendered and judged."""
    from generator.inspect import profile_paths
    from generator.questions import phrase
    from generator.survey import State, next_question, settle

    state = State(profile_paths([str(target.raw)]), target.source, paths=[str(target.raw)])
    state.infer()
    seen: set[str] = set()
    asked = 0
    while asked <= limit:
        question, _ = next_question(state, seen)
        if question is None:
            break
        seen.add(question.key)
        offered = state.offer(question)
        with contextlib.redirect_stderr(io.StringIO()):
            settled = settle(state, question, offered)
        if not settled:
            asked += 1
            picked = answer(target, offered)
            if picked is None:
                where = f"at {offered.where}" if offered.working else "(every choice's cleaner fails)"
                return {"case": target.case, "questions": None,
                        "why": f"question {asked} ({phrase(question).question} {question.key}): no choice "
                               f"writes the expected record {where}: " + " | ".join(o.label for o in offered.options)}
            state.answers[question.key] = picked.value
        state.infer()
    right, why = render_answers(state.mapping(), target, work)
    while not right and asked < limit:
        changed = change_one(state, target)
        if changed is None:
            break
        asked += 1
        right, why = render_answers(state.mapping(), target, work)
    return {"case": target.case, "questions": asked if right else None,
            "why": "" if right else f"after {asked} question(s), no question or decision offers a choice closer "
                                    f"to the expected output; it differs: {why}"}


def change_one(state, target: Target) -> str | None:
    """The survey's summary lets a person change any decision inference was sure of: the first
    one with a choice whose output is closer to the expected is changed (a question answered);
    None when no decision offers one. Decisions with no other candidate offer nothing to pick."""
    for decision in list(state.inference.decisions):
        if not decision.candidates or decision.key in state.answers:
            continue
        offered = state.offer(decision)
        if offered.settled:
            continue
        current = next((o for o in offered.working if decision.value in o.values), None)
        picked = answer(target, offered)
        if picked is None or picked is current or (
                current is not None and closeness(target, picked) <= closeness(target, current)):
            continue
        state.answers[decision.key] = picked.value
        state.infer()  # the search that choice ran is kept: no second search
        return decision.key
    return None


def render_answers(mapping: dict, target: Target, work: Path) -> tuple[bool, str]:
    """`new --answers` with the survey's final mapping, then the rendered cleaner, judged."""
    from generator.answers import dump_mapping

    for old in ("survey-cleaner", "survey-out"):  # a mapping judged before, changed since
        shutil.rmtree(work / old, ignore_errors=True)
    answers = work / "survey-mapping.yml"
    answers.write_text(dump_mapping(mapping), encoding="utf-8")
    done = generator("new", target.raw, "--answers", answers, "-o", work / "survey-cleaner")
    if done.returncode != 0:
        return False, f"new --answers exit {done.returncode}: " + (done.stderr or done.stdout).strip()[-200:]
    out = work / "survey-out"
    cleaned = run_cleaner(work / "survey-cleaner", target.raw, out)
    if cleaned.returncode != 0:
        return False, f"the cleaner exit {cleaned.returncode}: " + (cleaned.stderr or cleaned.stdout).strip()[-200:]
    return target.judge(out)


def survey_questions_to_a_correct_cleaner(show: bool) -> dict:
    """The survey half of issue 35's benchmark: per case, the questions a scripted answerer
    (picking the choice whose output matches the expected one) needs to reach a correct cleaner,
    or not reachable with the reason; then reached N/M, the median and the most questions."""
    results = []
    items = [(real_target, c) for c in real_cases() if c.present] + [(own_target, c) for c in cases()]
    set_aside = []
    for make, case in items:
        with tempfile.TemporaryDirectory() as work:
            rejected = yardstick_rejected(case, Path(work)) if isinstance(case, RealCase) else ""
            if rejected:  # no answer may reach a file Letta's rules reject: not counted (summary())
                set_aside.append(case.id)
                if show:
                    print(f"  {'set aside':14} {case.id:45} Letta's rules reject the expected files: "
                          f"{rejected[:300]}", flush=True)
                continue
            try:
                result = survey_case(make(case, Path(work)), Path(work))
            except Exception as exc:  # noqa: BLE001 - a crash of the survey is a result to report, not the end
                result = {"case": getattr(case, "id", None) or f"own:{case.name}", "questions": None,
                          "why": f"the survey crashed: {exc.__class__.__name__}: {exc}"}
        results.append(result)
        if show:
            shown = result["questions"] if result["questions"] is not None else "not reachable"
            print(f"  {shown!s:14} {result['case']:45} {result['why'][:400]}", flush=True)
    reached = [r["questions"] for r in results if r["questions"] is not None]
    return {"measured": True, "results": results, "cases": len(results), "reached": len(reached),
            "reached_share": round(len(reached) / len(results), 3) if results else 0.0,
            "median_questions": statistics.median(reached) if reached else None,
            "max_questions": max(reached) if reached else None, "set_aside": set_aside}


def survey_line(s: dict) -> str:
    return (f"survey: reached {s['reached']}/{s['cases']} ({s['reached_share']:.0%}), median questions "
            f"{s['median_questions']}, max {s['max_questions']}"
            + (f"; set aside {len(s['set_aside'])} ({', '.join(s['set_aside'])})" if s.get("set_aside") else ""))


def print_group(group: str, results: list[Verdict], s: dict) -> None:
    formats = per_format(results)
    if len(formats) != len(results):
        print(f"{group} per format:")
        for name, row in formats.items():
            print(f"  {name:40} " + ", ".join(f"{k} {v}" for k, v in row.items() if v))
    print(totals_line(group, s))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--half", choices=("both", "yes", "survey"), default="both",
                        help="run both halves (the default), only `new --yes`, or only the survey")
    args = parser.parse_args()
    show = not args.json
    groups = {}
    if args.half != "survey":
        groups = yes_half(show)
    survey = {"measured": False}
    if args.half != "yes":
        if show:
            print("survey (questions to a correct cleaner):", flush=True)
        survey = survey_questions_to_a_correct_cleaner(show)
    if args.json:
        print(json.dumps({name: {"results": [r.as_dict() for r in rs], "per_format": per_format(rs), "summary": s}
                          for name, (rs, s) in groups.items()} | {"survey": survey}, indent=2))
        return 0
    print()
    for name, (rs, s) in groups.items():
        print_group(name, rs, s)
    if survey["measured"]:
        print(survey_line(survey))
    return 0


def yes_half(show: bool) -> dict:
    """`new --yes` on every case: the real formats and our own fixtures, judged separately."""
    if show:
        print("real formats:", flush=True)
    real = [absent(c) for c in real_cases() if not c.present]
    real = run_group([c for c in real_cases() if c.present], judge_real, show) + real
    if show:
        for r in real:
            if r.verdict == "absent":
                print(f"  {r.verdict:8} {r.case:45} {r.why}")
        print("own fixtures:", flush=True)
    own = run_group(cases(), judge_own, show)
    return {"real": (real, summary(real)), "own": (own, summary(own))}


if __name__ == "__main__":
    sys.exit(main())
