"""NATIVE_RULES for claude-code and codex: what Letta's own adapters (letta-ai/trajectory 0.3.0) do with
rows no structure names, so that a custom cleaner for these harnesses writes what Letta writes.
Each test fails on the code before the rules: the rows were questions (`--yes` refused) or kept."""

from __future__ import annotations

import json

from generator.infer import infer


def _claude(tmp_path) -> list[str]:
    rows = [
        {"type": "user", "sessionId": "s1", "uuid": "u1", "timestamp": "2026-07-01T10:00:00Z", "cwd": "/w",
         "message": {"role": "user", "content": "Review the parser and run its tests."}},
        {"type": "assistant", "sessionId": "s1", "uuid": "a1", "timestamp": "2026-07-01T10:00:01Z",
         "message": {"role": "assistant", "model": "claude-sonnet-4-5", "content": [
             {"type": "text", "text": "Running the parser tests now."},
             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}}]}},
        {"type": "user", "sessionId": "s1", "uuid": "u2", "timestamp": "2026-07-01T10:00:02Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                   "content": "3 passed", "is_error": False}]}},
        {"type": "queue-operation", "sessionId": "s1", "timestamp": "2026-07-01T10:00:03Z",
         "content": "<task-notification>\n<status>failed</status>\n</task-notification>"},
        {"type": "assistant", "sessionId": "s1", "uuid": "a2", "timestamp": "2026-07-01T10:00:04Z", "isSidechain": True,
         "message": {"role": "assistant", "model": "claude-opus-4", "content": "A subagent's private note."}},
        {"type": "assistant", "sessionId": "s1", "uuid": "a3", "timestamp": "2026-07-01T10:00:05Z",
         "message": {"role": "assistant", "model": "claude-sonnet-4-5", "content": [
             {"type": "text", "text": "All three parser tests pass."}]}},
    ]
    (tmp_path / "s1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return [str(tmp_path)]


def test_claude_code_transport_rows_and_sidechains_are_skipped_as_letta_skips_them(tmp_path):
    inference = infer(_claude(tmp_path), source="claude-code")
    assert not inference.questions, [(q.key, q.evidence) for q in inference.questions]
    kinds = inference.mapping["kinds"]
    assert kinds[0]["match"] == {"isSidechain": True} and kinds[0]["role"] == "skip"
    types = [(k.get("match") or {}).get("type") for k in kinds if k["role"] == "skip"]
    skipped = [t for v in types for t in (v if isinstance(v, list) else [v])]
    assert "queue-operation" in skipped and "progress" in skipped, kinds


def test_codex_injected_context_is_harness_noise(tmp_path):
    rows = [
        {"timestamp": "2026-06-05T04:58:20.653Z", "type": "session_meta",
         "payload": {"id": "r1", "cwd": "/w", "cli_version": "0.135.0", "originator": "codex_exec"}},
        {"timestamp": "2026-06-05T04:58:21.000Z", "type": "turn_context",
         "payload": {"cwd": "/w", "model": "gpt-5.5", "approval_policy": "never"}},
        {"timestamp": "2026-06-05T04:58:22.000Z", "type": "response_item", "payload": {
            "type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "<environment_context>\n<cwd>/w</cwd>\n</environment_context>"}]}},
        {"timestamp": "2026-06-05T04:58:23.000Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": "List the files here."}]}},
        {"timestamp": "2026-06-05T04:58:24.000Z", "type": "response_item", "payload": {
            "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Two files: a and b."}]}},
    ]
    (tmp_path / "rollout-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    inference = infer([str(tmp_path)], source="codex")
    assert "<environment_context>" in inference.mapping["sessions"]["harness_noise"]
    assert "<command-name>" in inference.mapping["sessions"]["harness_noise"]  # the core's stay
    roles = {k["match"].get("type") if isinstance(k["match"].get("type"), str) else None: k["role"]
             for k in inference.mapping["kinds"] if k.get("match")}
    assert roles.get("session_meta") in ("skip", None) and roles.get("turn_context") in ("skip", None), roles
    assert inference.mapping["meta"]["model"], inference.mapping["meta"]


def _rollout(tmp_path, items: list[dict]) -> list[str]:
    rows = [{"timestamp": f"2026-03-30T05:38:{n:02d}.000Z", "type": "response_item", "payload": item}
            for n, item in enumerate(items)]
    (tmp_path / "rollout.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return [str(tmp_path)]


USER = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Inspect both files please."}]}
DONE = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Both files inspected."}]}


def test_an_output_kind_is_never_a_call_even_when_its_ids_repeat(tmp_path):
    # Letta's cleanup fixture: one id used by every call and output of the session, so the id link is
    # dropped as a session constant; `function_call_output` was then a call named `function_call_output`
    calls = [{"type": "function_call", "name": "exec", "call_id": "call_DUP", "arguments": json.dumps({"cmd": c})}
             for c in ("cat a", "cat b")]
    outputs = [{"type": "function_call_output", "call_id": "call_DUP", "output": o} for o in ("alpha", "beta")]
    inference = infer(_rollout(tmp_path, [USER, *calls, *outputs, DONE]), source="codex")
    [rule] = [k for k in inference.mapping["kinds"] if k.get("match", {}).get("payload.type") == "function_call_output"]
    assert rule["role"] != "tool_call", rule


def test_a_kind_named_as_a_call_of_something_names_that_tool(tmp_path):
    items = [USER, {"type": "tool_search_call", "call_id": "c1", "arguments": {"query": "filesystem tools"}},
             {"type": "tool_search_output", "call_id": "c1", "tools": [{"name": "read_file"}]}, DONE]
    inference = infer(_rollout(tmp_path, items), source="codex")
    [rule] = [k for k in inference.mapping["kinds"] if k.get("match", {}).get("payload.type") == "tool_search_call"]
    assert rule["tool_name"] == {"value": "tool_search"}, rule


def test_a_subagent_s_own_transcript_keeps_its_sidechain_rows(tmp_path):
    paths = _claude(tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "s1.jsonl").read_text().splitlines()]
    (tmp_path / "s1.jsonl").write_text("".join(json.dumps({**r, "isSidechain": True}) + "\n" for r in rows))
    kinds = infer(paths, source="claude-code").mapping["kinds"]
    assert not any(k.get("match") == {"isSidechain": True} for k in kinds), kinds
