"""discriminators._per_file: a field holding one value a file is a setting of the session, never a kind
(issue 35, defect 5: a Codex rollout's `turn_context` records split on `payload.approval_policy`, one kind
per session, so the next session's value was a kind no rule knew and the cleaner failed)."""

from __future__ import annotations

import json

from generator.inspect import profile_paths


def _rollout(policy: str | None, sandbox: str | None) -> list[dict]:
    context = {"model": "gpt-5", "cwd": "/work/app"}
    if policy:
        context["approval_policy"] = policy
    if sandbox:
        context["sandbox_policy"] = {"type": sandbox}
    return [{"type": "turn_context", "payload": context},
            {"type": "message", "payload": {"role": "user", "text": "List the files in the project, please."}},
            {"type": "message", "payload": {"role": "assistant", "text": "There are three files in it."}}]


def _kinds(tmp_path, rollouts: list[list[dict]]) -> list[str]:
    for n, records in enumerate(rollouts):
        (tmp_path / f"rollout-{n}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return sorted(k.key for k in profile_paths([str(tmp_path)]).kinds)


def test_one_value_a_file_is_not_a_kind(tmp_path):
    keys = _kinds(tmp_path, [_rollout("never", None), _rollout("on-request", "read-only")])
    assert [k for k in keys if k.startswith("type=turn_context")] == ["type=turn_context"], keys

