"""A Pi cleaner written by hand for speed: the lower bound on what a generated cleaner can cost.

Why: issue #19 asks for a cleaner at 0.5x the pure-Python JSON floor with validation and
redaction on. Whether any cleaner written in Python can get there depends on what the shared
concerns cost at the least, so this script does the Pi mapping with nothing general in the way:
one pass per line, the fields read by name, the text joined, a call's arguments serialized once,
results linked by their call id, and then the same redaction (``cleaner_runtime.redaction``'s
Redactor, every string) and the same validation (``TrajectoryValidator.check_records``, the
compiled schema plus the extra rules) as a rendered cleaner, each of which can be turned off.
``benchmarks/bench_instructions.py --bound`` counts it beside the rendered cleaner.

It is a measuring stick, not a product: no truncation, no repairs, no summary, no atomic write,
no error handling beyond what the bound needs; it writes what a rendered Pi cleaner writes for
the benchmark corpus (benchmarks/corpus.py), not for every Pi session.

    python benchmarks/handwritten_pi.py INPUT_DIR OUTPUT_DIR [--no-redact] [--no-validate]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from cleaner_runtime.redaction import Redactor  # the repo's runtime, as a cleaner ships it
from cleaner_runtime.validate import BUNDLED_SCHEMA, TrajectoryValidator, load_schema

try:  # the fast extra, as a rendered cleaner uses it
    import orjson
except ImportError:
    orjson = None


def dumps(value: object) -> str:
    if orjson is not None:
        return orjson.dumps(value).decode("utf-8")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def loads(line: bytes) -> dict:
    return orjson.loads(line) if orjson is not None else json.loads(line)


def joined(blocks: object, kind: str, key: str) -> str:
    """The texts of the blocks of one type, one paragraph each; a plain string is its own text."""
    if isinstance(blocks, str):
        return blocks if kind == "text" else ""
    return "\n\n".join(b[key] for b in blocks if b.get("type") == kind and b.get(key))


def session_records(lines: list[bytes], clean: callable) -> list[dict]:
    """The trajectory records of one Pi session; ``clean`` redacts a string."""
    meta: dict = {"role": "meta", "source": "pi"}
    out: list[dict] = [meta]
    for line in lines:
        record = loads(line)
        kind = record.get("type")
        if kind == "session":
            if record.get("cwd"):
                meta["cwd"] = clean(record["cwd"])
            continue
        if kind == "model_change":
            meta.setdefault("model", clean(record["modelId"]))
            continue
        if kind != "message":
            continue
        message = record["message"]
        role, at, blocks = message.get("role"), record["timestamp"], message.get("content")
        if role == "user":
            out.append({"role": "user", "content": clean(joined(blocks, "text", "text")), "timestamp": at})
        elif role == "assistant":
            thought = joined(blocks, "thinking", "thinking")
            if thought:
                out.append({"role": "reasoning", "content": clean(thought), "timestamp": at})
            text = joined(blocks, "text", "text")
            if text:
                out.append({"role": "assistant", "content": clean(text), "timestamp": at})
            calls = [{"id": clean(b["id"]), "name": clean(b["name"]),
                      "args": dumps({clean(k): _clean_value(v, clean) for k, v in b["arguments"].items()})}
                     for b in blocks if isinstance(blocks, list) and b.get("type") == "toolCall"]
            if calls:
                out.append({"role": "assistant", "content": None, "tool_calls": calls, "timestamp": at})
        elif role == "toolResult":
            out.append({"role": "tool", "tool_call_id": clean(message["toolCallId"]),
                        "content": clean(joined(blocks, "text", "text")), "ok": not message.get("isError"),
                        "timestamp": at})
    return out


def _clean_value(value: object, clean: callable) -> object:
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(k): _clean_value(v, clean) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean_value(v, clean) for v in value]
    return value


def redacting(redactor: Redactor) -> callable:
    """``redactor`` applied to a string, short strings remembered (they repeat: ids, names, keys),
    as a rendered cleaner does."""
    remembered: dict[str, str] = {}

    def clean(text: str) -> str:
        if len(text) > 64:
            return redactor.redact(text)
        out = remembered.get(text)
        if out is None:
            out = remembered[text] = redactor.redact(text)
        return out

    return clean


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--no-redact", action="store_true", help="write the strings as they are")
    parser.add_argument("--no-validate", action="store_true", help="skip the schema and the extra rules")
    args = parser.parse_args()
    clean = (lambda text: text) if args.no_redact else redacting(Redactor())
    validator = None if args.no_validate else TrajectoryValidator(load_schema(BUNDLED_SCHEMA))
    args.output.mkdir(parents=True, exist_ok=True)
    for path in sorted(args.input.rglob("*.jsonl")):
        with path.open("rb") as source:
            records = session_records(list(source), clean)
        if validator is not None:
            errors = [p for p in validator.check_records(records) if p.severity == "error"]
            if errors:
                raise SystemExit(f"{path}: {errors[0]}")
        with (args.output / path.name).open("w", encoding="utf-8") as sink:
            sink.writelines(dumps(record) + "\n" for record in records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
