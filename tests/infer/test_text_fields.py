"""planning.text_candidates: which fields of a kind can be its text (issue 35: an Anthropic managed-agent
session's status events carry `agent_name`, "Coding Assistant", which `--yes` asked about as a person's
message; a name labels text, it is never the text)."""

from __future__ import annotations

import json

from generator.infer import infer

T = "2026-07-06T16:26:3{}.000Z"


def _events() -> list[dict]:
    return [
        {"type": "user.message", "content": "What is the weather in Prague today?", "processed_at": T.format(0)},
        {"type": "agent.message", "content": "It is sunny and warm in Prague.", "processed_at": T.format(2)},
        {"type": "session.status_idle", "agent_name": "Coding Assistant", "processed_at": T.format(3)},
    ]


def test_a_qualified_name_field_is_not_a_kinds_text(tmp_path):
    for n in range(2):
        (tmp_path / f"s{n}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in _events()), encoding="utf-8")
    inference = infer([str(tmp_path)])
    decisions = {d.key: d for d in inference.decisions}
    status = decisions["kinds[type=session.status_idle].role"]
    assert status.value == "skip" and status.confidence >= 0.8, status
    assert "kinds[type=session.status_idle].content" not in decisions
