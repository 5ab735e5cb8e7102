"""Cleaners for the ad-hoc raw samples: valid output that keeps every message, in order."""

from __future__ import annotations

import json

import pytest

from .conftest import ANSWERS, SHARED, cli, needs_shared, read_jsonl

SAMPLES = {
    "borderline_non_durable_incident": "role-content",
    "debug_session": "role-content",
    "codex_with_tools": "codex-payload",
    "opencode_short": "opencode-export",
}


def raw_messages(name: str) -> list[tuple[str, str]]:
    """(role, text) of every user/assistant message in the raw file, read independently."""
    out = []
    for line in (SHARED / "raw-samples" / f"{name}.jsonl").read_text().splitlines():
        record = json.loads(line)
        payload = record.get("payload", {})
        if record.get("role") in ("user", "assistant") and isinstance(record.get("content"), str):
            out.append((record["role"], record["content"]))
        elif payload.get("type") == "user_message":
            out.append(("user", payload["message"]))
        elif payload.get("type") == "message":
            out.append((payload["role"], "\n".join(block["text"] for block in payload["content"])))
    return out


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_raw_sample_cleaner(tmp_path, name):
    needs_shared()
    dest = tmp_path / "cleaner"
    result = cli("new", str(SHARED / "raw-samples" / f"{name}.jsonl"), "--answers",
                 str(ANSWERS / f"{SAMPLES[name]}.yml"), "-o", str(dest))
    assert result.returncode == 0, result.stderr
    out = dest / "tests" / "expected" / f"{name}.jsonl"
    check = cli("validate", str(out))
    assert check.returncode == 0, check.stdout + check.stderr
    records = read_jsonl(out)
    kept = [(r["role"], r["content"]) for r in records if r["role"] in ("user", "assistant") and r.get("content")]
    assert kept == raw_messages(name)
    calls = [c for r in records if r["role"] == "assistant" and r.get("tool_calls") for c in r["tool_calls"]]
    results = [r for r in records if r["role"] == "tool"]
    call_ids = [c["id"] for c in calls]
    assert len(set(call_ids)) == len(call_ids)
    for result_record in results:
        assert result_record["tool_call_id"] in call_ids
