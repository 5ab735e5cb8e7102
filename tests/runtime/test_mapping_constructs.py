"""The mapping constructs that let one raw record become several records, content come from
several fields, and sessions stored as trees or out of order come out in the order they happened
(docs/mapping.md: emit, join, ok, trees, order_by, opening/closing, timezone_field).

Each test is one rule: a small raw input, the mapping construct, and the records the rule means,
written by hand.
"""

from __future__ import annotations

from cleaner_runtime import trees
from cleaner_runtime.mapping import compile_paths

from ..render.conftest import build_session as build

T0 = "2026-05-16T09:00:00Z"
T1 = "2026-05-16T09:00:05Z"
T2 = "2026-05-16T09:00:09Z"


def body(out: list[dict]) -> list[dict]:
    assert out[0]["role"] == "meta"
    return out[1:]


# -- emit: several records from one raw record -------------------------------------------------------
OPENAI = {
    "timestamps": {"fields": ["at"]},
    "kinds": [
        {"name": "user", "match": {"role": "user"}, "role": "user", "content": "content"},
        {"name": "assistant", "match": {"role": "assistant"}, "role": "assistant", "emit": [
            {"as": "reasoning", "field": "reasoning_content"},
            {"as": "text", "field": "content"},
            {"as": "tool_call", "each": "tool_calls", "call_id": "id",
             "tool_name": ["function.name", "name"], "args": ["function.arguments", "args"]},
        ]},
        {"name": "tool", "match": {"role": "tool"}, "role": "tool_result", "content": "content",
         "result_link": "tool_call_id"},
    ],
}


def test_emit_writes_reasoning_text_and_calls_of_one_message_in_order():
    out = build(OPENAI, [
        {"role": "user", "content": "Weather in Oslo and Bergen?", "at": T0},
        {"role": "assistant", "at": T1, "reasoning_content": "Two cities: two lookups.",
         "content": "Checking both cities.",
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Oslo\"}"}},
                        {"id": "c2", "name": "weather", "args": {"city": "Bergen"}}]},
        {"role": "tool", "tool_call_id": "c2", "content": "rain", "at": T2},
        {"role": "tool", "tool_call_id": "c1", "content": "sun", "at": T2},
    ])
    assert body(out) == [
        {"role": "user", "content": "Weather in Oslo and Bergen?", "timestamp": T0},
        {"role": "reasoning", "content": "Two cities: two lookups.", "timestamp": T1},
        {"role": "assistant", "content": "Checking both cities.", "timestamp": T1},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "name": "weather", "args": '{"city":"Oslo"}'},
            {"id": "c2", "name": "weather", "args": '{"city":"Bergen"}'}], "timestamp": T1},
        {"role": "tool", "tool_call_id": "c2", "content": "rain", "timestamp": T2},
        {"role": "tool", "tool_call_id": "c1", "content": "sun", "timestamp": T2},
    ]


def test_emit_entries_that_hold_nothing_write_nothing_and_count_nothing():
    out = build(OPENAI, [
        {"role": "user", "content": "hi", "at": T0},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "ping", "args": {}}], "at": T1},
        {"role": "tool", "tool_call_id": "c1", "content": "pong", "at": T1},
        {"role": "assistant", "content": "Done.", "tool_calls": None, "reasoning_content": None, "at": T2},
    ])
    assert [r["role"] for r in body(out)] == ["user", "assistant", "tool", "assistant"]
    assert body(out)[1]["tool_calls"] == [{"id": "c1", "name": "ping", "args": "{}"}]
    assert body(out)[3]["content"] == "Done."


def test_emit_reads_call_lists_nested_anywhere_and_text_roles_per_entry():
    mapping = {
        "timestamps": {"fields": ["at"]},
        "kinds": [{"name": "turn", "match": {"kind": "turn"}, "role": "assistant", "emit": [
            {"as": "text", "role": "user", "field": "input"},
            {"as": "text", "field": "response.output.text"},
            {"as": "tool_call", "each": "response.output.calls", "call_id": "ref", "tool_name": "tool",
             "args": "params"},
        ]}],
    }
    out = build(mapping, [{"kind": "turn", "at": T0, "input": "Restart the worker.", "response": {"output": {
        "text": "Restarting.", "calls": [{"ref": "r1", "tool": "restart", "params": {"svc": "worker"}}]}}}])
    assert body(out) == [
        {"role": "user", "content": "Restart the worker.", "timestamp": T0},
        {"role": "assistant", "content": "Restarting.", "timestamp": T0},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "r1", "name": "restart",
                                                             "args": '{"svc":"worker"}'}], "timestamp": T0},
    ]


def test_an_exchange_entry_writes_the_result_at_its_own_time():
    mapping = {
        "timestamps": {"fields": ["started"]},
        "kinds": [
            {"name": "ask", "match": {"type": "ask"}, "role": "user", "content": "text"},
            {"name": "step", "match": {"type": "step"}, "role": "assistant", "emit": [
                {"as": "tool_exchange", "call_id": "id", "tool_name": "tool", "args": "input", "content": "output",
                 "result_timestamp": "finished", "ok": {"path": "status", "values": ["success"]}},
            ]},
        ],
    }
    out = build(mapping, [{"type": "ask", "text": "ls", "started": T0},
                          {"type": "step", "id": "s1", "tool": "shell", "input": {"cmd": "ls"}, "output": "a b",
                           "status": "failed", "started": T1, "finished": T2}])
    assert body(out)[1:] == [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "s1", "name": "shell", "args": '{"cmd":"ls"}'}],
         "timestamp": T1},
        {"role": "tool", "tool_call_id": "s1", "content": "a b", "ok": False, "timestamp": T2},
    ]


def test_a_block_with_its_own_time_is_written_at_it_and_one_without_at_its_records():
    mapping = {
        "timestamps": {"fields": ["at"]},
        "kinds": [
            {"name": "ask", "match": {"role": "user"}, "role": "user", "content": "text"},
            {"name": "reply", "match": {"role": "assistant"}, "role": "assistant", "content": "items"},
        ],
        "blocks": {"type_field": "type", "types": {
            "reasoning": {"as": "reasoning", "field": "text", "timestamp": "started_at"},
            "message": {"as": "text", "field": "text", "timestamp": "started_at"},
        }},
    }
    out = build(mapping, [{"role": "user", "text": "why is the sky blue?", "at": T0},
                          {"role": "assistant", "at": T2, "items": [
                              {"type": "reasoning", "text": "Rayleigh scattering", "started_at": T1},
                              {"type": "message", "text": "Short wavelengths scatter more."}]}])
    assert body(out)[1:] == [
        {"role": "reasoning", "content": "Rayleigh scattering", "timestamp": T1},
        {"role": "assistant", "content": "Short wavelengths scatter more.", "timestamp": T2},
    ]


# -- join: content from several fields -----------------------------------------------------------------
def joined(content: dict, record: dict) -> str | None:
    mapping = {"timestamps": {"fields": ["at"]},
               "kinds": [{"name": "m", "match": {"t": "m"}, "role": "user", "content": content}]}
    out = body(build(mapping, [{"t": "m", "at": T0, **record}]))
    return out[0]["content"] if out else None


def test_join_writes_the_pieces_that_hold_something_with_their_prefixes():
    spec = {"join": ["stdout", {"path": "stderr", "prefix": "stderr:\n"}], "sep": "\n"}
    assert joined(spec, {"stdout": "ok", "stderr": "warn"}) == "ok\nstderr:\nwarn"
    assert joined(spec, {"stdout": "ok", "stderr": ""}) == "ok"
    assert joined(spec, {"stderr": "boom"}) == "stderr:\nboom"


def test_join_lists_each_item_and_fills_placeholders_or_leaves_the_piece_out():
    spec = {"join": ["body", {"path": "links", "each": "url", "prefix": "Links:\n"},
                     {"text": "[attachment: {file.name}] {{literal}}"}]}
    assert joined(spec, {"body": "See docs.", "links": [{"url": "https://a.example"}, {"url": "https://b.example"}],
                         "file": {"name": "log.txt"}}) == (
        "See docs.\nLinks:\nhttps://a.example\nhttps://b.example\n[attachment: log.txt] {literal}")
    assert joined(spec, {"body": "Only text."}) == "Only text."


# -- ok ------------------------------------------------------------------------------------------------
def outcome(ok: dict, record: dict):
    mapping = {"timestamps": {"fields": ["at"]}, "kinds": [
        {"name": "call", "match": {"t": "c"}, "role": "tool_call", "call_id": "id", "tool_name": "n"},
        {"name": "res", "match": {"t": "r"}, "role": "tool_result", "content": "out", "result_link": "id", "ok": ok}]}
    out = body(build(mapping, [{"t": "c", "id": "x", "n": "run", "at": T0}, {"t": "r", "id": "x", "out": "o", "at": T0,
                                                                           **record}]))
    return out[1].get("ok", "absent")


def test_ok_from_values_ranges_and_presence():
    assert outcome({"path": "exit_code", "values": [0]}, {"exit_code": 0}) is True
    assert outcome({"path": "exit_code", "values": [0]}, {"exit_code": 2}) is False
    assert outcome({"path": "exit_code", "values": [0]}, {"exit_code": "0"}) is True  # a CSV cell
    assert outcome({"path": "exit_code", "values": [0]}, {}) == "absent"
    assert outcome({"path": "http", "range": [200, 399]}, {"http": 302}) is True
    assert outcome({"path": "http", "range": [200, 399]}, {"http": 503}) is False
    assert outcome({"path": "error", "presence": True, "negate": True}, {}) is True
    assert outcome({"path": "error", "presence": True, "negate": True}, {"error": False}) is True
    assert outcome({"path": "error", "presence": True, "negate": True}, {"error": {"msg": "x"}}) is False


# -- paths that pick a list item -------------------------------------------------------------------------
def test_a_selector_reads_a_list_of_name_value_pairs():
    mapping = {"timestamps": {"fields": ["at"]}, "kinds": [
        {"name": "m", "match": {"t": "m"}, "role": "user",
         "content": [["attributes", {"key": "gen_ai.prompt"}, "value", "stringValue"]]}]}
    out = body(build(mapping, [{"t": "m", "at": T0, "attributes": [
        {"key": "gen_ai.system", "value": {"stringValue": "openai"}},
        {"key": "gen_ai.prompt", "value": {"stringValue": "Hello"}}]}]))
    assert out == [{"role": "user", "content": "Hello", "timestamp": T0}]


# -- order and trees ---------------------------------------------------------------------------------------
TEXT = {"name": "m", "match": {"t": "m"}, "role": "user", "content": "c"}


def test_order_by_sorts_a_session_and_a_record_without_the_field_follows_its_predecessor():
    mapping = {"timestamps": {"fields": ["at"]}, "session": {"order_by": ["at"]},
               "kinds": [TEXT, {"name": "a", "match": {"t": "a"}, "role": "assistant", "content": "c"}]}
    out = body(build(mapping, [{"t": "a", "c": "third", "at": T2}, {"t": "a", "c": "after third"},
                               {"t": "m", "c": "first", "at": "2026-05-16T11:00:00+02:00"},
                               {"t": "a", "c": "second", "at": T1}]))
    assert [r["content"] for r in out] == ["first", "second", "third", "after third"]


def test_a_tree_by_parent_is_written_depth_first_with_siblings_in_order():
    mapping = {"timestamps": {"fields": ["at"]}, "session": {"tree": {"id": "id", "parent": "parent"},
                                                             "order_by": ["at"]}, "kinds": [TEXT]}
    records = [{"t": "m", "id": "b1", "parent": "a", "c": "b1", "at": T1},
               {"t": "m", "id": "a", "c": "a", "at": T0},
               {"t": "m", "id": "c", "parent": "b0", "c": "c", "at": T2},
               {"t": "m", "id": "b0", "parent": "a", "c": "b0", "at": T0},
               {"t": "m", "id": "x", "parent": "y", "c": "x2", "at": T2},
               {"t": "m", "id": "y", "parent": "x", "c": "y2", "at": T2}]
    assert [r["content"] for r in body(build(mapping, records))] == ["a", "b0", "c", "b1", "x2", "y2"]


def test_nested_children_are_flattened_depth_first_and_taken_out_of_their_parent():
    paths = compile_paths(["child_runs", "extra.children"])
    root = {"id": 1, "child_runs": [{"id": 2, "child_runs": [{"id": 3}]}, {"id": 4, "extra": {"children": [{"id": 5}]}}]}
    flat = trees.flatten_children(root, paths)
    assert [r["id"] for r in flat] == [1, 2, 3, 4, 5]
    assert all("child_runs" not in r for r in flat) and flat[3]["extra"] == {}


# -- records from the session's first record ----------------------------------------------------------------
def test_opening_and_closing_records_come_from_the_first_record():
    mapping = {"timestamps": {"fields": ["at"]}, "session": {
        "opening": [{"as": "text", "role": "user", "field": ["document.subject", "document.description"],
                     "timestamp": "document.created"}],
        "closing": [{"as": "text", "field": "document.resolution"}]},
        "kinds": [{"name": "reply", "match": {"t": "reply"}, "role": "assistant", "content": "c"}]}
    doc = {"subject": "Refund", "created": T0, "resolution": "Refunded."}
    out = body(build(mapping, [{"t": "reply", "c": "Looking.", "at": T1, "document": doc},
                               {"t": "reply", "c": "Done.", "at": T2, "document": doc}]))
    assert out == [{"role": "user", "content": "Refund", "timestamp": T0},
                   {"role": "assistant", "content": "Looking.", "timestamp": T1},
                   {"role": "assistant", "content": "Done.", "timestamp": T2},
                   {"role": "assistant", "content": "Refunded.", "timestamp": T2}]


# -- the zone of naive times ----------------------------------------------------------------------------------
def test_the_zone_of_naive_times_comes_from_a_header_record():
    mapping = {"timestamps": {"fields": ["at"], "timezone_field": ["tz"], "timezone": "UTC"},
               "kinds": [{"name": "h", "match": {"t": "h"}, "role": "meta"}, TEXT]}
    out = body(build(mapping, [{"t": "m", "c": "before the header", "at": "2026-01-16 10:00:00"},
                               {"t": "h", "tz": "Europe/Berlin"},
                               {"t": "m", "c": "summer", "at": "2026-05-16 11:00:03"}]))
    assert [r["timestamp"] for r in out] == ["2026-01-16T10:00:00.000+01:00", "2026-05-16T11:00:03.000+02:00"]
