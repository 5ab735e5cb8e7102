"""Runtime rules every format shares, exercised directly on cleaner_runtime."""

from __future__ import annotations

from ..render.conftest import build_session

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


def _built_with_skips(mapping: dict, records: list[dict]) -> tuple[list[dict], dict]:
    from cleaner_runtime import convert, readers
    from generator.render import complete

    full = complete({"mapping_version": 1, "source": "t", **mapping})
    session = convert.Converter(full, convert.Privacy(full["privacy"])).session("s")
    for n, record in enumerate(records, 1):
        session.add(readers.Where("f.jsonl", n), record)
    return session.finish(), dict(session.stats.skipped)


def _call(call_id: str, ts: int) -> dict:
    return {"role": "assistant", "content": "", "ts": ts, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": "a", "arguments": "{}"}}]}


def test_a_result_repeats_an_answer_only_for_an_id_a_call_had():
    """A result whose id matches no open call is a duplicate when the id was a source's call id or
    an answered call's; a renamed id (x__2) that is still open, and an id nobody gave, are orphans."""
    out, skipped = _built_with_skips(CHAT, [
        {"role": "user", "content": "go", "ts": 1},
        _call("x", 2), _call("x", 3),  # the second becomes x__2
        {"role": "tool", "tool_call_id": "x__2", "content": "names the renamed id", "ts": 4},
        {"role": "tool", "tool_call_id": "x", "content": "first", "ts": 5},
        {"role": "tool", "tool_call_id": "x", "content": "second", "ts": 6},
        {"role": "tool", "tool_call_id": "x__2", "content": "again, now answered", "ts": 7},
        {"role": "tool", "tool_call_id": "x", "content": "third", "ts": 8},
        {"role": "tool", "tool_call_id": "nobody", "content": "?", "ts": 9},
        _call("x__2", 10),  # the source now gives x__2 itself: renamed to x__2__2
        {"role": "tool", "tool_call_id": "x__2", "content": "answers x__2__2", "ts": 11},
        {"role": "tool", "tool_call_id": "x__2", "content": "once more", "ts": 12},
    ])
    assert [(r["tool_call_id"], r["content"]) for r in out if r["role"] == "tool"] == [
        ("x", "first"), ("x__2", "second"), ("x__2__2", "answers x__2__2")]
    assert skipped == {"tool result with no earlier call": 2, "duplicate tool result": 3}
