"""Runtime features that let one mapping read shapes the first formats did not have.

Why: each feature (exchange blocks, blocks typed by the key they hold, document fields, nested
record lists) is a contract of docs/mapping.md; these tests pin what the template's
cleaner_runtime writes for each, directly, without rendering a project.
"""

from __future__ import annotations

import json

from generator.paths import runtime_module
from generator.render import complete

convert = runtime_module("convert")
readers = runtime_module("readers")


def build(mapping: dict, records: list[dict]) -> list[dict]:
    full = complete({"mapping_version": 1, "source": "t", **mapping})
    converter = convert.Converter(full, convert.Privacy(full["privacy"]))
    session = converter.session("s")
    for n, record in enumerate(records, 1):
        session.add(readers.Where("f.jsonl", n), record)
    return session.finish()


def calls_and_results(out: list[dict]) -> list[tuple]:
    return [(r["role"], [(c["id"], c["name"], c["args"]) for c in r["tool_calls"]] if r.get("tool_calls")
             else (r.get("tool_call_id"), r["content"], r.get("ok"))) for r in out[1:]]


# -- blocks carrying a call and its output ---------------------------------------------------------
STEPS = {
    "kinds": [
        {"name": "message", "match": {"object": "thread.message"}, "role": "assistant", "content": "content"},
        {"name": "step", "match": {"object": "thread.run.step"}, "role": "assistant",
         "content": "step_details.tool_calls"},
    ],
    "blocks": {"type_field": "type", "types": {
        "text": {"as": "text", "field": "text.value"},
        "function": {"as": "tool_exchange", "call_id": "id", "tool_name": "function.name",
                     "args": "function.arguments", "content": "function.output",
                     "ok": {"path": "function.failed", "negate": True}},
    }},
    "timestamps": {"fields": ["created_at"]},
    "tools": {"error_prefix": "Error: "},
}


def step(*calls: dict, ts: int = 1778922000) -> dict:
    return {"object": "thread.run.step", "created_at": ts, "step_details": {"tool_calls": list(calls)}}


def fn(call_id, name, args, output=None, **extra) -> dict:
    function = {"name": name, "arguments": args, **extra}
    if output is not None:
        function["output"] = output
    return {"id": call_id, "type": "function", "function": function}


def test_exchange_blocks_write_the_calls_then_each_output_linked_to_its_call():
    out = build(STEPS, [step(fn("c1", "get", '{"id": 1}', "one"), fn("c2", "get", '{"id": 2}', "two"))])
    assert calls_and_results(out) == [
        ("assistant", [("c1", "get", '{"id":1}'), ("c2", "get", '{"id":2}')]),
        ("tool", ("c1", "one", None)), ("tool", ("c2", "two", None))]


def test_exchange_blocks_without_output_give_the_call_alone_and_failures_are_marked():
    out = build(STEPS, [step(fn("c1", "get", "{}")), step(fn("c2", "put", "{}", "denied", failed=True), ts=1778922009)])
    assert calls_and_results(out) == [
        ("assistant", [("c1", "get", "{}")]),
        ("assistant", [("c2", "put", "{}")]), ("tool", ("c2", "Error: denied", False))]


def test_exchange_blocks_with_duplicate_ids_or_no_name_stay_consistent():
    out = build(STEPS, [step(fn("c1", "get", "{}", "a"), fn("c1", "get", "{}", "b"), fn("c3", "", "{}", "lost"))])
    assert calls_and_results(out) == [
        ("assistant", [("c1", "get", "{}"), ("c1__2", "get", "{}")]),
        ("tool", ("c1", "a", None)), ("tool", ("c1__2", "b", None))]


def test_text_after_exchange_blocks_follows_their_results():
    out = build(STEPS, [{"object": "thread.message", "created_at": 1778922000, "content": [
        fn("c1", "get", "{}", "42"), {"type": "text", "text": {"value": "The answer is 42."}}]}])
    assert [r["role"] for r in out] == ["meta", "assistant", "tool", "assistant"]
    assert out[3]["content"] == "The answer is 42."
    assert json.loads(out[1]["tool_calls"][0]["args"]) == {}
