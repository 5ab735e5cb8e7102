"""Benchmark: whole-list jsonschema validation vs the compiled fast path of `validate`.

    python benchmarks/bench_validation.py                 # 100k records, whole-list on a 10k subset
    python benchmarks/bench_validation.py --records 20000 --subset 20000 --schema path/to/schema.json

The records are a realistic mix of roles (user, reasoning, assistant replies, assistant tool calls
with their tool results, now and then system/observation), generated deterministically. Whole-list
jsonschema validation (validator.is_valid on the list, the way the trajectory-v1 docs describe it)
is slow, so by default it runs on a subset and both sides are reported as records per second.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import jsonschema.validators

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = REPO.parent / "shared" / "reference" / "trajectory-v1.schema.json"

WORDS = [
    "the", "retry", "path", "uses", "bounded", "backoff", "customer", "renewal", "approval", "billing", "record",
    "inactive", "plan", "check", "threshold", "manager", "ticket", "incident", "deploy", "rollback", "query",
    "result", "file", "patch", "test", "Grüße", "日本",
]


def load_runtime():
    """cleaner_runtime.validate, the module the generator and every rendered cleaner run."""
    from cleaner_runtime import validate

    return validate


def make_records(count: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    clock = 1_779_008_400  # 2026-05-16T09:00:00Z

    def text(low: int, high: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    def stamp() -> str:
        nonlocal clock
        clock += rng.randint(1, 30)
        t = time.gmtime(clock)
        return time.strftime("%Y-%m-%dT%H:%M:%S", t) + rng.choice(["Z", ".123Z", "+00:00"])

    records: list[dict] = [{"role": "meta", "source": "support-agent", "cwd": "/srv/agent", "model": "gpt-5"}]
    call = 0
    while len(records) < count:
        records.append({"role": "user", "content": text(5, 40), "timestamp": stamp()})
        if rng.random() < 0.1:
            records.append({"role": rng.choice(["system", "observation"]), "content": text(3, 20), "timestamp": stamp()})
        for _ in range(rng.randint(0, 3)):
            if rng.random() < 0.5:
                records.append({"role": "reasoning", "content": text(5, 60), "timestamp": stamp()})
            calls = []
            for _ in range(rng.choice([1, 1, 1, 2])):
                call += 1
                calls.append({"id": f"call_{call}", "name": rng.choice(["read", "bash", "billing_lookup"]),
                              "args": json.dumps({"query": text(1, 6)}, separators=(",", ":"))})
            records.append({"role": "assistant", "content": None, "tool_calls": calls, "timestamp": stamp()})
            for c in calls:
                result = {"role": "tool", "tool_call_id": c["id"], "content": text(5, 120), "timestamp": stamp()}
                if rng.random() < 0.3:
                    result["ok"] = rng.random() < 0.9
                records.append(result)
        records.append({"role": "assistant", "content": text(5, 50), "timestamp": stamp()})
    return records[:count]


def rate(fn, records: list, repeat: int = 1) -> tuple[float, object]:
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn(records)
        best = min(best, time.perf_counter() - start)
    return len(records) / best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=100_000, help="records for the fast path (default 100000)")
    parser.add_argument("--subset", type=int, default=10_000,
                        help="records for whole-list jsonschema (default 10000; it does a few thousand per second)")
    parser.add_argument("--schema", help="schema file (default: shared/reference upstream copy if present, else bundled)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args(argv)

    rt = load_runtime()
    schema_path = Path(args.schema) if args.schema else (UPSTREAM if UPSTREAM.is_file() else rt.BUNDLED_SCHEMA)
    schema = rt.load_schema(schema_path)
    records = make_records(args.records)
    subset = records[: min(args.subset, len(records))]

    start = time.perf_counter()
    validator = rt.TrajectoryValidator(schema)
    startup = time.perf_counter() - start
    jsv = jsonschema.validators.validator_for(schema)(schema)

    whole_rate, whole_ok = rate(jsv.is_valid, subset)
    fast_subset_ok = validator.is_schema_valid(subset)
    assert fast_subset_ok == whole_ok, "fast path and jsonschema disagree on the subset"
    fast_rate, fast_ok = rate(validator.is_schema_valid, records, repeat=3)
    rules_rate, problems = rate(validator.check_records, records, repeat=2)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        path.write_text("".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in records),
                        encoding="utf-8")
        file_rate, file_problems = rate(lambda _: rt.check_file(path, validator), records)

    errors = [p for p in problems if p.severity == "error"]
    numbers = {
        "schema": str(schema_path),
        "mode": validator.mode,
        "startup_ms": round(startup * 1000, 1),
        "records": len(records),
        "whole_list_subset": len(subset),
        "whole_list_jsonschema_per_s": round(whole_rate),
        "fast_schema_verdict_per_s": round(fast_rate),
        "check_records_per_s": round(rules_rate),
        "check_file_per_s": round(file_rate),
        "ratio_schema_verdict": round(fast_rate / whole_rate, 1),
        "ratio_check_records": round(rules_rate / whole_rate, 1),
        "ratio_check_file": round(file_rate / whole_rate, 1),
        "verdict_valid": bool(fast_ok) and not errors,
    }
    if args.json:
        print(json.dumps(numbers, indent=2))
        return 0
    print(f"schema: {schema_path} ({validator.mode}, compiled in {numbers['startup_ms']} ms)")
    print(f"records: {len(records)} generated; whole-list jsonschema measured on the first {len(subset)}")
    print(f"whole-list jsonschema (is_valid on the list):   {whole_rate:>12,.0f} records/s")
    print(f"fast path, schema verdict (is_schema_valid):    {fast_rate:>12,.0f} records/s  "
          f"x{numbers['ratio_schema_verdict']}")
    print(f"fast path, schema + all rules (check_records):  {rules_rate:>12,.0f} records/s  "
          f"x{numbers['ratio_check_records']}")
    print(f"check_file (read, parse, compact, all rules):   {file_rate:>12,.0f} records/s  "
          f"x{numbers['ratio_check_file']}")
    print(f"verdict on the generated records: {'valid' if numbers['verdict_valid'] else 'INVALID'}"
          f" ({len(file_problems)} problems from check_file)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
