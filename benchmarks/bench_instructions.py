"""Work per raw record, in machine instructions: this checkout's cleaner beside another's and the JSON floor.

Why: on a shared machine wall-clock ratios move by 20-40% from run to run (the JSON floor alone
between 7.6k and 42k records/s within minutes while other work ran), too much to see a 5% change.
Instructions do not depend on the load. This script renders the Pi cleaner
(``examples/answers/pi.yml``) from this checkout, and from ``--checkout`` when given (a worktree of
another commit: ``git worktree add ../base b848e0d``), writes one Pi session (benchmarks/corpus.py),
and counts, with ``valgrind --tool=lackey --basic-counts=yes``, each cleaner (``--jobs 1``) and the
floor (read a line, ``json.loads``, ``json.dumps``, write) on the first N and the first 3N records.
The difference over 2N records is the work per record, start-up (imports, schema compilation,
detector tables) subtracted. Each run first cleans the 3N records once, as another session, so
that what a process does once on first use is not counted either: the redaction detectors are
compiled when a text first needs them (after 500 records of another benchmark session 10 regexes
were compiled, and the first 600 of this one needed 7 more, each a regex compile counted among
a few hundred records). Those warm-up records
also leave the short strings of the counted records (call ids, tool names, argument keys) in the
cache a long run keeps of them, which a long run has only for the strings that repeat: a small
bias in favour of every cleaner counted, the same for both checkouts. It prints instructions per record, each subject against the first
cleaner, and the floor's share (floor / subject: the ratio bench_cleaner.py reports in time).

    python benchmarks/bench_instructions.py                        # this checkout, N = 1000
    python benchmarks/bench_instructions.py --checkout ../base     # side by side with another
    python benchmarks/bench_instructions.py --pure                 # also without the fast extra
    python benchmarks/bench_instructions.py --bound                # also the hand-written Pi cleaner

``--bound`` adds benchmarks/handwritten_pi.py, a Pi cleaner written by hand for speed with the
runtime's redaction and validation, with both, with each alone and with neither: what a cleaner
costs with nothing general in the way, and what redaction and validation cost at the least.

valgrind runs a program about 50x slower: N = 1000 takes a few minutes per subject.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from corpus import Options, write_corpus  # the benchmarks folder is not a package

FLOOR = """
import json, sys
from pathlib import Path
src, out = Path(sys.argv[1]), Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
for f in sorted(src.rglob("*.jsonl")):
    with open(f, encoding="utf-8") as i, open(out / f.name, "w", encoding="utf-8") as o:
        for line in i:
            o.write(json.dumps(json.loads(line), ensure_ascii=False, separators=(",", ":")) + "\\n")
"""
COUNT = re.compile(r"guest instrs:\s+([\d,]+)")


def render(checkout: Path, samples: Path, dest: Path) -> Path:
    """The Pi cleaner as ``checkout``'s `trajectory-cleaner new` renders it."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    result = subprocess.run([sys.executable, "-m", "generator", "new", str(samples), "--answers",
                             str(checkout / "examples" / "answers" / "pi.yml"), "-o", str(dest)],
                            cwd=checkout, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"rendering with {checkout} failed:\n{result.stderr}")
    return dest


def instructions(argv: list[str], env: dict | None = None) -> int:
    result = subprocess.run(["valgrind", "--tool=lackey", "--basic-counts=yes", *argv], capture_output=True,
                            text=True, env=env, check=False)
    found = COUNT.search(result.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind for {argv}:\n{result.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1000, help="N: the runs read N and 3N records (default 1000)")
    parser.add_argument("--no-warm", dest="warm", action="store_false",
                        help="do not clean the 3N records once first in every run (then detectors compiled on "
                             "first use count as work per record)")
    parser.add_argument("--checkout", type=Path, help="another checkout whose cleaner is counted beside this one's")
    parser.add_argument("--pure", action="store_true",
                        help="also count this cleaner with TRAJECTORY_CLEANER_PURE_REDACTION=1 (no fast extra)")
    parser.add_argument("--bound", action="store_true",
                        help="also count benchmarks/handwritten_pi.py with and without redaction and validation")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    work = Path(tempfile.mkdtemp(prefix="bench-instructions-"))
    try:
        full = work / "corpus"
        write_corpus(Options("pi", 1, args.records * 3), full)
        lines = next(full.rglob("*.jsonl")).read_text(encoding="utf-8").splitlines(keepends=True)
        sizes = {"small": args.records, "large": args.records * 3}
        for name, count in sizes.items():
            (work / name).mkdir()
            (work / name / "session.jsonl").write_text("".join(lines[:count]), encoding="utf-8")
            if args.warm:  # cleaned first (files in name order), in both runs: what it costs cancels out
                (work / name / "a-warm-up.jsonl").write_text("".join(lines), encoding="utf-8")
        subjects: list[tuple[str, list[str], dict | None]] = []
        cleaners = [("this checkout", REPO)] + ([("--checkout", args.checkout.resolve())] if args.checkout else [])
        for label, checkout in cleaners:
            project = render(checkout, work / "small", work / f"cleaner-{len(subjects)}")
            subjects.append((f"cleaner, {label}", [sys.executable, str(project / "clean_to_trajectory_jsonl.py"),
                                                   "--jobs", "1", "--quiet"], None))
            if args.pure and checkout == REPO:
                subjects.append((f"cleaner, {label}, no fast extra", subjects[-1][1],
                                 dict(os.environ, TRAJECTORY_CLEANER_PURE_REDACTION="1")))
        if args.bound:
            handwritten = [sys.executable, str(REPO / "benchmarks" / "handwritten_pi.py")]
            for label, flags in (("", []), (", no redaction", ["--no-redact"]), (", no validation", ["--no-validate"]),
                                 (", neither", ["--no-redact", "--no-validate"])):
                subjects.append((f"hand-written{label}", handwritten + flags, None))
        (work / "floor.py").write_text(FLOOR, encoding="utf-8")
        subjects.append(("JSON floor", [sys.executable, str(work / "floor.py")], None))
        per_record = {}
        for label, argv, env in subjects:
            counts = []
            for name in sizes:
                out = work / f"out-{len(per_record)}-{name}"
                io = ["--input", str(work / name), "--output", str(out)] if label.startswith("cleaner") else \
                    [str(work / name), str(out)]
                counts.append(instructions(argv[:2] + io + argv[2:], env))
                shutil.rmtree(out, ignore_errors=True)
            per_record[label] = (counts[1] - counts[0]) / (2 * args.records)
            print(f"  {label}: {per_record[label] / 1000:,.1f}k instructions per record", file=sys.stderr)
        first = next(iter(per_record.values()))
        floor = per_record["JSON floor"]
        warm = f" after {3 * args.records} to warm up" if args.warm else ""
        print(f"\nPi records, per record (valgrind; {args.records} and {3 * args.records} records{warm}, "
              "start-up subtracted)\n")
        print("| subject | instructions per record | vs the first cleaner | floor / subject |")
        print("|---|---:|---:|---:|")
        for label, value in per_record.items():
            print(f"| {label} | {value / 1000:,.1f}k | {value / first:.3f}x | {floor / value:.3f}x |")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
