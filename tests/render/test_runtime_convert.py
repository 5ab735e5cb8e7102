"""Runtime rules every format shares, exercised directly on the template's cleaner_runtime."""

from __future__ import annotations

from .conftest import build_session

build = build_session


CHAT = {
    "kinds": [
        {"name": "user", "match": {"role": "user"}, "role": "user", "content": "content"},
        {"name": "assistant", "match": {"role": "assistant"}, "role": "assistant", "content": ["content", "tool_calls"]},
        {"name": "tool", "match": {"role": "tool"}, "role": "tool_result", "content": "content",
         "result_link": "tool_call_id"},
    ],
    "blocks": {"type_field": "type", "types": {
        "function": {"as": "tool_call", "call_id": "id", "tool_name": "function.name", "args": "function.arguments"},
    }},
    "timestamps": {"fields": ["ts"]},
}


def test_empty_content_gives_way_to_the_tool_calls_beside_it():
    out = build(CHAT, [
        {"role": "user", "content": "list files", "ts": 1},
        {"role": "assistant", "content": "", "ts": 2, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{\"dir\": \".\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt", "ts": 3},
        {"role": "assistant", "content": "One file: a.txt.", "ts": 4, "tool_calls": []},
    ])
    assert [r["role"] for r in out] == ["meta", "user", "assistant", "tool", "assistant"]
    assert out[2]["content"] is None and out[2]["tool_calls"] == [{"id": "c1", "name": "ls", "args": '{"dir":"."}'}]
    assert out[3]["tool_call_id"] == "c1"
    assert out[4]["content"] == "One file: a.txt."


def test_duplicate_ids_are_renamed_and_results_follow_in_order():
    out = build(CHAT, [
        {"role": "user", "content": "go", "ts": 1},
        {"role": "assistant", "content": "", "ts": 2, "tool_calls": [
            {"id": "x", "type": "function", "function": {"name": "a", "arguments": "{}"}}]},
        {"role": "assistant", "content": "", "ts": 3, "tool_calls": [
            {"id": "x", "type": "function", "function": {"name": "b", "arguments": "not json"}}]},
        {"role": "tool", "tool_call_id": "x", "content": "first", "ts": 4},
        {"role": "tool", "tool_call_id": "x", "content": "second", "ts": 5},
        {"role": "tool", "tool_call_id": "x", "content": "third (no call left)", "ts": 6},
    ])
    calls = [r["tool_calls"][0] for r in out if r.get("tool_calls")]
    assert [c["id"] for c in calls] == ["x", "x__2"]
    assert calls[1]["args"] == '{"_raw":"not json"}'
    assert [(r["tool_call_id"], r["content"]) for r in out if r["role"] == "tool"] == [("x", "first"),
                                                                                       ("x__2", "second")]


def test_missing_times_come_from_neighbours_never_invented():
    out = build(CHAT, [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b", "ts": "2026-01-01T00:00:05Z"},
        {"role": "user", "content": "c"},
        {"role": "assistant", "content": "d", "ts": "2026-01-01T00:00:09+02:00"},
    ])
    assert [r.get("timestamp") for r in out] == [None, "2026-01-01T00:00:05Z", "2026-01-01T00:00:05Z",
                                                 "2026-01-01T00:00:05Z", "2026-01-01T00:00:09+02:00"]
