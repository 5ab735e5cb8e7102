"""Inspect time and peak memory on 10 MB, 100 MB (and optionally 1 GB) of generated raw traces.

Why: `inspect` promises that gigabytes of samples are profiled by bounded sampling in seconds and
bounded memory. This script generates agent traces of growing size (one big JSONL file, and a
folder of many files), profiles each in a fresh process, and prints wall time, peak RSS and the
bytes actually read, so a regression in the sampling shows up as growth with the input size.

    python benchmarks/bench_inspect.py              # 10 MB and 100 MB
    python benchmarks/bench_inspect.py --with-1gb   # also 1 GB (takes a minute to generate)
    python benchmarks/bench_inspect.py --json       # machine-readable results
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MB = 1024 * 1024


def _block(session: int, start: float) -> list[str]:
    """One session's lines: a header, turns with tool calls and results, and noise."""
    sid = f"sess-{session:07d}"
    lines = [json.dumps({"type": "session", "session_id": sid, "cwd": "/work/app", "ts": start})]
    t = start
    for turn in range(6):
        t += 3.5
        lines.append(json.dumps({"type": "message", "session_id": sid, "ts": t, "role": "user",
                                 "content": f"Please check build {session}-{turn}: the deploy step failed twice."}))
        call = f"call_{session}_{turn}"
        t += 1.25
        lines.append(json.dumps({"type": "tool_call", "session_id": sid, "ts": t, "call_id": call,
                                 "name": "run_command", "arguments": json.dumps({"cmd": f"make deploy N={turn}"})}))
        t += 2.0
        lines.append(json.dumps({"type": "tool_result", "session_id": sid, "ts": t, "call_id": call,
                                 "output": "step 3/5 failed: timeout contacting registry " * 4, "is_error": True}))
        lines.append(json.dumps({"type": "heartbeat", "session_id": sid, "ts": t + 0.5}))
        t += 1.0
        lines.append(json.dumps({"type": "message", "session_id": sid, "ts": t, "role": "assistant",
                                 "content": "The registry timed out; I retried with a longer timeout and it passed. "
                                            * 3}))
    return lines


def generate(path: Path, size: int, files: int = 1) -> None:
    """``size`` bytes of traces in one file, or spread over ``files`` files in a folder."""
    if files > 1:
        path.mkdir(parents=True, exist_ok=True)
    per_file = size // files
    session = 0
    start = 1778922000.0
    for index in range(files):
        target = path / f"part-{index:05d}.jsonl" if files > 1 else path
        written = 0
        with open(target, "w", encoding="utf-8") as out:
            while written < per_file:
                chunk = "\n".join(_block(session, start + session * 60)) + "\n"
                out.write(chunk)
                written += len(chunk)
                session += 1


def measure(path: str, max_mb: float) -> dict:
    """Run in a fresh process: profile + infer, report time, peak RSS and bytes read."""
    sys.path.insert(0, str(REPO))
    from generator.infer import infer_profile
    from generator.inspect import profile_paths

    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    profile = profile_paths([path], max_bytes=int(max_mb * MB))
    inference = infer_profile(profile)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(peak / 1024, 1),
        "rss_growth_mb": round((peak - base) / 1024, 1),
        "bytes_read_mb": round(sum(f.bytes_read for f in profile.files) / MB, 1),
        "files_read": len(profile.files),
        "records": profile.records,
        "kinds": len(profile.kinds),
        "questions": len(inference.questions),
    }


def run_case(path: Path, max_mb: float) -> dict:
    result = subprocess.run([sys.executable, __file__, "--measure", str(path), "--max-mb", str(max_mb)],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--with-1gb", action="store_true", help="also generate and inspect 1 GB of samples")
    parser.add_argument("--max-mb", type=float, default=16.0, help="inspect's sampling budget (default 16)")
    parser.add_argument("--dir", help="where to generate samples (default: a temporary folder, removed)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.max_mb)))
        return 0
    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench-inspect-"))
    root.mkdir(parents=True, exist_ok=True)
    cases = [("10 MB, one file", 10 * MB, 1), ("100 MB, one file", 100 * MB, 1),
             ("100 MB, 1000 files", 100 * MB, 1000)]
    if args.with_1gb:
        cases.append(("1 GB, one file", 1024 * MB, 1))
    results = []
    try:
        for label, size, files in cases:
            path = root / (label.replace(" ", "").replace(",", "_") + ("" if files > 1 else ".jsonl"))
            if not path.exists():
                began = time.perf_counter()
                generate(path, size, files)
                print(f"generated {label} in {time.perf_counter() - began:.1f}s", file=sys.stderr)
            result = {"case": label, **run_case(path, args.max_mb)}
            results.append(result)
            print(f"  {label}: {result['seconds']}s, peak RSS {result['peak_rss_mb']} MB", file=sys.stderr)
    finally:
        if not args.dir:
            shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"inspect (profile + infer), sampling budget {args.max_mb:g} MB, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs")
    print(f"{'case':<22}{'time s':>8}{'peak RSS MB':>13}{'RSS growth':>12}{'read MB':>9}{'files':>7}"
          f"{'records':>9}{'kinds':>7}")
    for r in results:
        print(f"{r['case']:<22}{r['seconds']:>8}{r['peak_rss_mb']:>13}{r['rss_growth_mb']:>12}"
              f"{r['bytes_read_mb']:>9}{r['files_read']:>7}{r['records']:>9}{r['kinds']:>7}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
