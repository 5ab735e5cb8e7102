"""How often `new --yes` is right on the golden format corpus, and how many questions it asks
where it refuses (issue 16's acceptance: right on at least 70%, the median refusal at most 3
questions, and never a wrong render with exit 0).

For every case under tests/fixtures/<format>/<case>/ with a hand-written expected.jsonl, it runs
`new --yes --json --source <the mapping's source>` on a copy of the raw files, then the rendered
cleaner, and compares the output with expected.jsonl byte for byte. Each case is one of:
right (same bytes), refused (exit 1; the questions it names are counted), wrong (exit 0 and
different bytes: a defect). It prints one line per case and the totals; it asserts nothing.

    python benchmarks/bench_generality.py
    python benchmarks/bench_generality.py --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.formats.support import cases, first_difference, generator, only_output, run_cleaner


def judge(case, work: Path) -> dict:
    raw = case.raw_copy(work)
    done = generator("new", raw, "--yes", "--json", "--source", case.mapping["source"], "-o", work / "cleaner")
    if done.returncode == 1:
        try:
            report = json.loads(done.stdout)
        except ValueError:
            report = {}
        questions = [q.get("key", "?") for q in report.get("questions", [])]
        losses = [f"loss: {x['kind']}: {x['what']}" for x in report.get("losses", [])]
        failures = [f"fails: {x}" for x in report.get("failures", [])[:2]]
        why = "; ".join(questions + losses + failures) or report.get("error") or (
            done.stderr.strip().splitlines() or ["?"])[-1]
        return {"case": case.name, "verdict": "refused", "questions": len(questions), "why": why[:160]}
    if done.returncode != 0:
        return {"case": case.name, "verdict": "error", "why": (done.stderr or done.stdout).strip()[-160:]}
    cleaned = run_cleaner(work / "cleaner", raw, work / "out")
    try:
        got = only_output(work / "out")
    except AssertionError as exc:
        return {"case": case.name, "verdict": "wrong", "why": f"{exc} (cleaner exit {cleaned.returncode})"}
    if got.read_bytes() == case.expected.read_bytes():
        return {"case": case.name, "verdict": "right"}
    return {"case": case.name, "verdict": "wrong", "why": first_difference(got, case.expected).replace("\n", " ")[:300]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    results = []
    for case in cases():
        with tempfile.TemporaryDirectory() as work:
            results.append(judge(case, Path(work)))
        if not args.json:
            r = results[-1]
            print(f"{r['verdict']:8} {r['case']:45} {r.get('why', '')}", flush=True)
    right = sum(r["verdict"] == "right" for r in results)
    refused = [r for r in results if r["verdict"] == "refused"]
    wrong = sum(r["verdict"] in ("wrong", "error") for r in results)
    summary = {
        "cases": len(results), "right": right, "refused": len(refused), "wrong": wrong,
        "right_share": round(right / len(results), 3) if results else 0.0,
        "median_questions_refused": statistics.median([r["questions"] for r in refused]) if refused else 0,
    }
    if args.json:
        print(json.dumps({"results": results, "summary": summary}, indent=2))
    else:
        print(f"\nright {right}/{len(results)} ({summary['right_share']:.0%}), refused {len(refused)} "
              f"(median questions {summary['median_questions_refused']}), wrong {wrong}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
