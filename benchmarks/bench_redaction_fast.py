"""Redaction throughput with the pure-Python anchor search and with hyperscan's, side by side.

    python benchmarks/bench_redaction_fast.py [--repeat 5] [--json]

Times, in one run and interleaved (pure, native, pure, native, ...; best of ``--repeat``, in CPU
seconds of this process, so other work on the machine inflates both paths less), on the
realistic trace text of ``bench_redaction.py`` (2 MB of tool results, logs, shell sessions and
JSON tool calls; without and with corpus secrets; per message and as one string) and on short
prose strings with and without keyword anchors ("the session ... the token budget"):

* ``redact`` end to end (what a cleaner pays), in MB/s or microseconds per string;
* the anchor search alone (``_Compiled.anchor_starts``, the part hyperscan replaces).

The pure path is forced with ``engine.NATIVE_ANCHORS = False``; outputs are checked to be equal
before anything is timed. Without hyperscan installed only the pure column is printed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "redaction"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_redaction import realistic_trace, with_secrets
from redaction_support import load_redact

engine = load_redact().engine

# the trace's own assistant prose (kind 3 of realistic_trace): "session" and "token" are anchors
KEYWORD_PROSE = ("I'll look at the failing test first. The traceback shows the encoder returns bytes where "
                 "the caller expects str; the fix is to decode before joining. Let me check how the session "
                 "handles retries and where the token budget is computed before editing.")
PLAIN_PROSE = ("I'll look at the failing test first. The traceback shows the encoder returns bytes where "
               "the caller expects str; the fix is to decode before joining. Let me check how the worker "
               "handles retries and where the batch budget is computed before editing.")


def datasets() -> dict[str, list[str]]:
    """Named lists of strings, each redacted one ``redact`` call per string."""
    rng = random.Random(7)
    clean = realistic_trace(rng)
    dirty = with_secrets(rng, clean)
    return {
        "trace, no secrets, per message": clean,
        "trace, no secrets, one string": ["\n".join(clean)],
        "trace, secrets, per message": dirty,
        "trace, secrets, one string": ["\n".join(dirty)],
        "keyword prose (per string)": [KEYWORD_PROSE] * 2000,
        "plain prose (per string)": [PLAIN_PROSE] * 2000,
    }


def _timed(fn: Callable[[str], object], data: list[str], native: bool) -> float:
    """CPU seconds of one pass: on a shared machine, time spent waiting for a core is not counted."""
    engine.NATIVE_ANCHORS = native
    t = time.process_time()
    for s in data:
        fn(s)
    return time.process_time() - t


def best_pair(fn: Callable[[str], object], data: list[str], repeat: int, native_too: bool) -> tuple[float, float]:
    """Best seconds of the pure and the native path, measured alternately so load hits both alike."""
    pure = fast = float("inf")
    for _ in range(repeat):
        pure = min(pure, _timed(fn, data, False))
        if native_too:
            fast = min(fast, _timed(fn, data, True))
    engine.NATIVE_ANCHORS = True
    return pure, fast


def check_identical(data: list[str]) -> None:
    """The two paths give the same text and counts (the tests prove it; a benchmark re-checks)."""
    runs = []
    for native in (False, True):
        engine.NATIVE_ANCHORS = native
        r = engine.Redactor()
        runs.append(([r.redact(s) for s in data], dict(r.counts)))
    engine.NATIVE_ANCHORS = True
    if runs[0] != runs[1]:
        raise SystemExit("native and pure redaction differ")


def measure(repeat: int) -> dict:
    native_too = engine._compiled(False, ()).native is not None
    r = engine.Redactor()
    compiled = r._c
    rows = {}
    for name, data in datasets().items():
        if native_too:
            check_identical(data)
        lows = [s.encode("ascii", "replace").lower() for s in data]
        mb = sum(len(s.encode("utf-8")) for s in data) / 1e6
        red = best_pair(r.redact, data, repeat, native_too)
        anc = best_pair(compiled.anchor_starts, lows, repeat, native_too)
        rows[name] = {"strings": len(data), "mb": mb,
                      "redact_s": red, "anchors_s": anc}
    return {"native": native_too, "rows": rows}


def _rate(name: str, row: dict, key: str, i: int) -> str:
    secs = row[key][i]
    if secs == float("inf"):
        return "-"
    if "per string" in name:
        return f"{secs / row['strings'] * 1e6:.2f} us"
    return f"{row['mb'] / secs:.1f} MB/s"


def report(res: dict) -> None:
    print("hyperscan:", "installed" if res["native"] else "not installed (pure path only)")
    head = f"{'text':32} {'what':14} {'pure':>12} {'hyperscan':>12} {'ratio':>7}"
    print(head)
    print("-" * len(head))
    for name, row in res["rows"].items():
        for key, what in (("redact_s", "redact"), ("anchors_s", "anchor search")):
            pure, fast = row[key]
            ratio = f"{pure / fast:.2f}x" if fast != float("inf") else "-"
            print(f"{name:32} {what:14} {_rate(name, row, key, 0):>12} {_rate(name, row, key, 1):>12} {ratio:>7}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="best of this many runs per path")
    ap.add_argument("--json", action="store_true", help="print machine-readable results")
    args = ap.parse_args()
    res = measure(args.repeat)
    if args.json:
        print(json.dumps(res, indent=2, default=str))
    else:
        report(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
