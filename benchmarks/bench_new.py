"""Wall time of `trajectory-cleaner new` against its budget of one second (issue 10).

Why: `new` is the first thing a user runs after `inspect`, and it should answer at once. This
script generates 10 sessions of 10 pi records (benchmarks/corpus.py), then times, each in a fresh
process as a user runs it, `new --answers examples/answers/pi.yml` and `new --yes`, several runs
each, and prints the median wall time and its ratio to the budget. One untimed run of each comes
first, with bytecode writing on, so that the runs find the compiled modules an installed package
has. It asserts nothing: a machine busy with other work is slower (`new` uses a second core for
the cleaner's run on the samples), so read the medians and the spread rather than one run.

    python benchmarks/bench_new.py              # 7 runs of each
    python benchmarks/bench_new.py --runs 15
    python benchmarks/bench_new.py --json       # machine-readable results
    python benchmarks/bench_new.py --checkout ../before   # also time another checkout, runs interleaved
    python benchmarks/bench_new.py --floor      # also what no change of ours can remove (below)

`--floor` times, in the same interleaved runs, what `new` cannot do without: the interpreter
starting (`python -c pass`), `import copier`, and copier rendering the template alone (a process
that imports copier and calls `copier.run_copy` with the data `new --answers pi.yml` passes, as
`generator.render.render_template` calls it). `new` minus that last one is this project's own
work: its imports, jsonschema, the mapping check, the runtime and the cleaner's run on the
samples, the agent prompt, the manifest.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUDGET = 1.0  # seconds
sys.path.insert(0, str(REPO / "benchmarks"))

from corpus import Options, write_corpus  # the benchmarks folder is not a package


def run_once(checkout: Path, argv: list[str], work: Path) -> float:
    """Seconds for one `trajectory-cleaner new ARGV` of ``checkout`` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(checkout) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: modules compiled once, not on every run
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "generator", "new", *argv], cwd=work, env=env,
                            capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"`trajectory-cleaner new {' '.join(argv)}` ({checkout}) exited {result.returncode}:\n"
                         f"{result.stderr}")
    return elapsed


# copier.run_copy as generator.render.render_template calls it, and nothing else (--floor)
COPIER_ONLY = """
import json, sys
import copier
template, dest, data = sys.argv[1], sys.argv[2], json.loads(open(sys.argv[3], encoding="utf-8").read())
copier.run_copy(template, dest, data=data, answers_file=".copier-answers.yml", defaults=True, overwrite=True,
                unsafe=True, settings=copier.Settings(), quiet=True)
"""


def floor_commands(work: Path) -> dict[str, list[str]]:
    """The floor subjects: argv of a fresh `python` each (the template's Jinja extension is imported
    from this checkout, so PYTHONPATH is set as for `new`)."""
    sys.path.insert(0, str(REPO))  # this checkout's generator, not whichever one is installed
    from generator.answers import load_answers
    from generator.paths import template_dir
    from generator.render import complete, copier_data

    data = work / "copier-data.json"
    mapping = complete(load_answers(REPO / "examples" / "answers" / "pi.yml"))
    data.write_text(json.dumps(copier_data(mapping)), encoding="utf-8")
    return {
        "floor: python -c pass": ["-c", "pass"],
        "floor: import copier": ["-c", "import copier"],
        "floor: copier.run_copy only": ["-c", COPIER_ONLY, str(template_dir()), "{out}", str(data)],
    }


def run_python(argv: list[str], work: Path) -> float:
    """Seconds for one fresh `python ARGV` run as `run_once` runs `new` (this checkout on PYTHONPATH)."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    started = time.perf_counter()
    result = subprocess.run([sys.executable, *argv], cwd=work, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"`python {' '.join(argv[:2])}` exited {result.returncode}:\n{result.stderr}")
    return elapsed


def summary(checkout: Path, name: str, argv: list[str], times: list[float]) -> dict:
    median = statistics.median(times)
    return {"checkout": str(checkout), "command": name, "argv": argv, "runs": len(times),
            "median_s": round(median, 3), "min_s": round(min(times), 3), "max_s": round(max(times), 3),
            "budget_ratio": round(median / BUDGET, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="runs of each command (default 7)")
    parser.add_argument("--checkout", action="append", default=[], type=Path, metavar="DIR",
                        help="also time the generator of this checkout (runs interleaved, for before/after)")
    parser.add_argument("--floor", action="store_true",
                        help="also time the interpreter start, `import copier` and copier.run_copy alone")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    checkouts = [REPO, *(c.resolve() for c in args.checkout)]
    with tempfile.TemporaryDirectory(prefix="bench-new-") as tmp:
        work = Path(tmp)
        samples = work / "pi-10x10"
        write_corpus(Options("pi", 10, 10), samples)
        commands = {
            "new --answers pi.yml": ["--answers", str(REPO / "examples" / "answers" / "pi.yml"), str(samples)],
            "new --yes": ["--yes", str(samples)],
        }
        times: dict[tuple[Path, str], list[float]] = {(c, name): [] for c in checkouts for name in commands}
        floors = floor_commands(work) if args.floor else {}
        times.update({(REPO, name): [] for name in floors})
        for n in range(-1, args.runs):  # run -1 warms up (bytecode, file system caches)
            for checkout in checkouts:
                for name, argv in commands.items():
                    out = work / f"out-{n}"
                    elapsed = run_once(checkout, [*argv, "-o", str(out)], work)
                    if n >= 0:
                        times[checkout, name].append(elapsed)
                    shutil.rmtree(out)
            for name, argv in floors.items():
                out = work / f"out-{n}"
                elapsed = run_python([arg.replace("{out}", str(out)) for arg in argv], work)
                if n >= 0:
                    times[REPO, name].append(elapsed)
                shutil.rmtree(out, ignore_errors=True)
    results = [summary(c, name, commands[name], times[c, name]) for c in checkouts for name in commands]
    results += [summary(REPO, name, floors[name], times[REPO, name]) for name in floors]
    if args.json:
        print(json.dumps({"budget_s": BUDGET, "cpus": os.cpu_count(), "results": results}, indent=2))
        return 0
    print(f"trajectory-cleaner new on 10 sessions x 10 pi records; median of {args.runs} fresh processes "
          f"({os.cpu_count()} CPUs); budget {BUDGET:.1f} s")
    for row in results:
        where = "" if len(checkouts) == 1 else f"{row['checkout']}: "
        print(f"  {where}{row['command']:<28} median {row['median_s']:.3f} s  "
              f"(min {row['min_s']:.3f}, max {row['max_s']:.3f})  {row['budget_ratio']:.2f} x budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
