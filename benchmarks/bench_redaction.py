"""Redaction quality and throughput benchmark.

    python benchmarks/bench_redaction.py [--json] [--no-throughput]

Quality over the labelled corpus in ``tests/redaction/``:

* per-class recall: a labelled secret counts as recalled when no 8+ character
  substring of it survives (raw or JSON-escaped) and the placeholder names
  its class;
* partial leaks: labelled secrets that were touched but of which 8+
  characters survive (must be zero), plus complete misses;
* false-positive rate: negatives that came back changed, also per kind of
  negative (hashes, UUIDs, ids, base64 images, Kubernetes objects, ...).

Every figure is reported per class (recall, partial leaks, misses, secrets
removed under another class's name) and the false positives per context.

Throughput (MB/s of input) on realistic synthetic trace text: tool results
holding source files, logs, shell sessions, JSON-serialised tool calls; once
without secrets, once with corpus secrets sprinkled in, both as one large
string and as per-message strings (the cleaner calls ``redact`` per string).

Exit status is 1 when a target is missed: recall >= 0.99, zero partial leaks,
false positives <= 0.02.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import sysconfig
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "redaction"))

from redaction_support import (
    NEGATIVE,
    POSITIVE,
    leaks,
    load_jsonl,
    load_redact,
    load_truncate,
)

RECALL_TARGET = 0.99  # issue 36
FP_TARGET = 0.02


def quality(redact_mod) -> dict:
    positives = load_jsonl(POSITIVE)
    negatives = load_jsonl(NEGATIVE)
    per_class: dict[str, Counter] = defaultdict(Counter)
    partial: list[dict] = []
    missed: list[dict] = []
    for case in positives:
        r = redact_mod.Redactor()
        out = r.redact(case["text"])
        for lab in case["labels"]:
            cls, secret = lab["class"], lab["secret"]
            c = per_class[cls]
            c["total"] += 1
            surviving = leaks(secret, out)
            named = f"[REDACTED:{cls}]" in out
            if not surviving:
                c["removed"] += 1
                if named:
                    c["recalled"] += 1
                else:
                    c["misnamed"] += 1
            elif secret in out:
                c["missed"] += 1
                missed.append({"id": case["id"], "class": cls})
            else:
                c["partial"] += 1
                partial.append({"id": case["id"], "class": cls, "surviving": surviving[:3]})
    fps = []
    per_context: dict[str, Counter] = defaultdict(Counter)
    for case in negatives:
        out = redact_mod.Redactor().redact(case["text"])
        per_context[case["context"]]["total"] += 1
        if out != case["text"]:
            per_context[case["context"]]["changed"] += 1
            fps.append({"id": case["id"], "output": out[:200]})
    total = sum(c["total"] for c in per_class.values())
    recalled = sum(c["recalled"] for c in per_class.values())
    return {
        "positives": len(positives),
        "labels": total,
        "classes": len(per_class),
        "per_class": {k: dict(v) for k, v in sorted(per_class.items())},
        "recall": recalled / total if total else 1.0,
        "removed": sum(c["removed"] for c in per_class.values()) / total if total else 1.0,
        "partial_leaks": len(partial),
        "partial": partial,
        "missed": missed,
        "negatives": len(negatives),
        "false_positives": len(fps),
        "fp_rate": len(fps) / len(negatives) if negatives else 0.0,
        "fp_per_context": {k: dict(v) for k, v in sorted(per_context.items())},
        "fp_cases": fps,
    }


# ---------------------------------------------------------------------------
# Throughput
# ---------------------------------------------------------------------------

def _stdlib_sources(limit_bytes: int) -> list[str]:
    """Real Python source files (what read_file tool results look like)."""
    out, size = [], 0
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in ("json/encoder.py", "json/decoder.py", "argparse.py", "subprocess.py",
                 "http/client.py", "urllib/request.py", "logging/__init__.py", "shutil.py",
                 "tarfile.py", "zipfile.py", "email/message.py", "smtplib.py", "ftplib.py",
                 "configparser.py", "tempfile.py", "pathlib.py", "csv.py", "difflib.py"):
        p = stdlib / name
        if p.exists():
            text = p.read_text(encoding="utf-8", errors="replace")
            out.append(text)
            size += len(text)
            if size >= limit_bytes:
                break
    return out


def realistic_trace(rng: random.Random, target: int = 2_000_000) -> list[str]:
    """Per-message strings of a synthetic agent trace, no secrets."""
    sources = _stdlib_sources(target)
    msgs: list[str] = []
    size = 0
    i = 0
    while size < target:
        kind = i % 6
        if kind == 0:
            src = sources[i % len(sources)]
            start = rng.randrange(max(1, len(src) - 12000))
            msgs.append(src[start:start + rng.randint(2000, 12000)])
        elif kind == 1:
            msgs.append(json.dumps({"command": f"cd /work/repo && python -m pytest tests/test_{i}.py -q",
                                    "timeout": 120}))
        elif kind == 2:
            lines = [f"2025-03-14T10:{i % 60:02d}:{j % 60:02d}Z INFO worker[{j}] processed batch "
                     f"{rng.randrange(10**6)} in {rng.random():.3f}s status=ok"
                     for j in range(rng.randint(20, 80))]
            msgs.append("\n".join(lines))
        elif kind == 3:
            msgs.append("I'll look at the failing test first. The traceback shows the encoder "
                        "returns bytes where the caller expects str; the fix is to decode before "
                        "joining. Let me check how the session handles retries and where the "
                        "token budget is computed before editing.")
        elif kind == 4:
            src = sources[(i + 3) % len(sources)]
            start = rng.randrange(max(1, len(src) - 4000))
            msgs.append(json.dumps({"stdout": src[start:start + 4000], "stderr": "", "exit_code": 0}))
        else:
            msgs.append(json.dumps({"role": "assistant", "content": [{"type": "text", "text":
                        "Running the linter and the type checker now."}], "usage": {
                        "input_tokens": rng.randrange(5000), "output_tokens": rng.randrange(900)}}))
        size += len(msgs[-1])
        i += 1
    return msgs


def with_secrets(rng: random.Random, msgs: list[str]) -> list[str]:
    positives = [c["text"] for c in load_jsonl(POSITIVE)]
    out = []
    for m in msgs:
        if rng.random() < 0.3:
            at = rng.randrange(len(m) + 1)
            m = m[:at] + "\n" + rng.choice(positives) + "\n" + m[at:]
        out.append(m)
    return out


def measure(fn, data: list[str], repeat: int = 3) -> float:
    size = sum(len(s.encode("utf-8")) for s in data)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for s in data:
            fn(s)
        best = min(best, time.perf_counter() - t)
    return size / 1e6 / best


def throughput(redact_mod) -> dict:
    rng = random.Random(7)
    clean = realistic_trace(rng)
    dirty = with_secrets(rng, clean)
    r = redact_mod.Redactor()
    prose = ["The quick brown fox jumps over the lazy dog while the build runs. " * 30] * 200
    res = {
        "clean_per_message_mb_s": measure(r.redact, clean),
        "clean_one_string_mb_s": measure(r.redact, ["\n".join(clean)]),
        "secrets_per_message_mb_s": measure(r.redact, dirty),
        "secrets_one_string_mb_s": measure(r.redact, ["\n".join(dirty)]),
        "prose_no_hints_mb_s": measure(r.redact, prose),
        "clean_mb": sum(len(s) for s in clean) / 1e6,
        "messages": len(clean),
    }
    t = load_truncate().truncate_head_tail
    res["truncate_calls_per_s"] = len(clean) / max(1e-9, min(
        _time(lambda: [t(s, 4000) for s in clean]) for _ in range(3)))
    return res


def _time(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="print machine-readable results")
    ap.add_argument("--no-throughput", action="store_true")
    args = ap.parse_args()
    mod = load_redact()
    q = quality(mod)
    tp = None if args.no_throughput else throughput(mod)
    ok = (q["recall"] >= RECALL_TARGET and q["partial_leaks"] == 0
          and q["fp_rate"] <= FP_TARGET)
    if args.json:
        print(json.dumps({"quality": q, "throughput": tp, "ok": ok}, indent=2))
        return 0 if ok else 1

    print(f"corpus: {q['positives']} positive texts, {q['labels']} labelled secrets, "
          f"{q['classes']} classes, {q['negatives']} negatives\n")
    print(f"{'class':30} {'n':>4} {'recall':>7} {'partial':>8} {'missed':>7} {'misnamed':>9}")
    for cls, c in q["per_class"].items():
        n = c.get("total", 0)
        print(f"{cls:30} {n:4d} {c.get('recalled', 0) / n:7.3f} {c.get('partial', 0):8d} "
              f"{c.get('missed', 0):7d} {c.get('misnamed', 0):9d}")
    print()
    print(f"{'negatives by context':30} {'n':>4} {'changed':>8}")
    for ctx, c in q["fp_per_context"].items():
        print(f"{ctx:30} {c.get('total', 0):4d} {c.get('changed', 0):8d}")
    print()
    print(f"recall (removed and correctly named): {q['recall']:.4f}  (target >= {RECALL_TARGET})")
    print(f"secrets fully removed:                {q['removed']:.4f}")
    print(f"partial leaks (8+ chars survive):     {q['partial_leaks']}  (target 0)")
    print(f"complete misses:                      {len(q['missed'])}")
    print(f"false positives:                      {q['false_positives']}/{q['negatives']} = "
          f"{q['fp_rate']:.4f}  (target <= {FP_TARGET})")
    for item in q["partial"] + q["missed"]:
        print("  LEAK", item)
    for item in q["fp_cases"]:
        print("  FP  ", item)
    if tp:
        print()
        print(f"throughput on {tp['clean_mb']:.1f} MB realistic trace text "
              f"({tp['messages']} messages):")
        print(f"  no secrets,   per message:  {tp['clean_per_message_mb_s']:8.1f} MB/s")
        print(f"  no secrets,   one string:   {tp['clean_one_string_mb_s']:8.1f} MB/s")
        print(f"  with secrets, per message:  {tp['secrets_per_message_mb_s']:8.1f} MB/s")
        print(f"  with secrets, one string:   {tp['secrets_one_string_mb_s']:8.1f} MB/s")
        print(f"  prose without any hint:     {tp['prose_no_hints_mb_s']:8.1f} MB/s")
        print(f"  truncate_head_tail:         {tp['truncate_calls_per_s']:8.0f} calls/s")
    print("\nRESULT:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
