"""Runtime features that let one mapping read shapes the first formats did not have.

Why: each feature (exchange blocks, blocks typed by the key they hold, document fields, nested
record lists) is a contract of docs/mapping.md; these tests pin what the template's
cleaner_runtime writes for each, directly, without rendering a project.
"""

from __future__ import annotations

import json

from cleaner_runtime import readers

from ..render.conftest import build_session

build = build_session


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


# -- blocks typed by the key they hold ------------------------------------------------------------
PARTS = {
    "kinds": [
        {"name": "user", "match": {"role": "user"}, "role": "user", "content": "parts"},
        {"name": "model", "match": {"role": "model"}, "role": "assistant", "content": "parts"},
    ],
    "blocks": {"by_key": {
        "thought": {"as": "reasoning", "field": "text"},
        "text": {"as": "text", "field": "text"},
        "functionCall": {"as": "tool_call", "call_id": "functionCall.id", "tool_name": "functionCall.name",
                         "args": "functionCall.args"},
        "functionResponse": {"as": "tool_result", "content": "functionResponse.response",
                             "result_link": "functionResponse.id", "tool_name": "functionResponse.name"},
        "inlineData": {"as": "placeholder", "text": "[image]"},
    }},
    "timestamps": {"fields": ["time"]},
}


def turn(role: str, *parts: dict, time: str = "2026-05-16T09:00:00Z") -> dict:
    return {"role": role, "parts": list(parts), "time": time}


def test_untyped_parts_are_read_by_the_key_they_hold():
    out = build(PARTS, [
        turn("user", {"text": "Weather in Oslo?"}, {"inlineData": {"mimeType": "image/png", "data": "iVBOR"}}),
        turn("model", {"thought": True, "text": "I should call the weather tool."},
             {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}),
        turn("user", {"functionResponse": {"name": "get_weather", "response": {"temp_c": 12}}}),
        turn("model", {"text": "12 degrees.", "thought": False}),
    ])
    assert [(r["role"], r.get("content")) for r in out[1:]] == [
        ("user", "Weather in Oslo?\n[image]"), ("reasoning", "I should call the weather tool."),
        ("assistant", None), ("tool", '{"temp_c":12}'), ("assistant", "12 degrees.")]
    assert out[3]["tool_calls"] == [{"id": "call_1", "name": "get_weather", "args": '{"city":"Oslo"}'}]
    assert out[4]["tool_call_id"] == "call_1"


def test_results_without_ids_answer_the_oldest_waiting_call_of_their_tool():
    out = build(PARTS, [
        turn("model", {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
             {"functionCall": {"name": "get_time", "args": {"zone": "Europe/Oslo"}}},
             {"functionCall": {"name": "get_weather", "args": {"city": "Porto"}}}),
        turn("user", {"functionResponse": {"name": "get_time", "response": {"time": "11:00"}}},
             {"functionResponse": {"name": "get_weather", "response": {"temp_c": 12}}},
             {"functionResponse": {"name": "unknown_tool", "response": {"temp_c": 21}}}),
    ])
    calls = {c["id"]: (c["name"], c["args"]) for c in out[1]["tool_calls"]}
    answers = [(calls[r["tool_call_id"]], r["content"]) for r in out[2:]]
    assert answers == [(("get_time", '{"zone":"Europe/Oslo"}'), '{"time":"11:00"}'),
                       (("get_weather", '{"city":"Oslo"}'), '{"temp_c":12}'),
                       (("get_weather", '{"city":"Porto"}'), '{"temp_c":21}')]


def test_results_with_ids_still_link_by_id_and_typed_blocks_keep_their_type():
    mapping = {**PARTS, "blocks": {**PARTS["blocks"], "types": {"text": {"as": "text", "field": "text"}}}}
    out = build(mapping, [
        turn("model", {"functionCall": {"id": "a", "name": "f", "args": {}}},
             {"functionCall": {"id": "b", "name": "f", "args": {}}}),
        turn("user", {"functionResponse": {"id": "b", "name": "f", "response": "B"}},
             {"type": "text", "text": "typed", "functionCall": {"name": "ignored"}}),
    ])
    assert [(r["role"], r.get("tool_call_id"), r.get("content")) for r in out[2:]] == [
        ("tool", "b", "B"), ("user", None, "typed")]


def test_a_list_with_an_item_holding_no_known_key_is_not_read_as_blocks():
    out = build(PARTS, [turn("user", {"text": "hi"}, {"videoMetadata": {"fps": 2}})])
    assert out[1]["content"] == '[{"text":"hi"},{"videoMetadata":{"fps":2}}]'


# -- fields outside the record list -------------------------------------------------------------
def read(path, **settings) -> list:
    item = readers.InputFile(path, readers.Path(path.name))
    return list(readers.read_records(item, **settings))


def test_document_fields_are_reachable_under_the_document_key(tmp_path):
    path = tmp_path / "conv.json"
    path.write_text(json.dumps({"id": "c-1", "model": "m-2", "create_time": 1778922000,
                                "export": {"version": 3, "messages": [{"role": "user", "content": "hi"},
                                                                      {"role": "assistant", "content": "hello"}]}},
                               indent=2))
    entries = read(path, records_path=("export", "messages"), document_key="document")
    records = [record for _, record in entries]
    assert records[0]["document"] == {"id": "c-1", "model": "m-2", "create_time": 1778922000,
                                      "export": {"version": 3}}
    assert records[1]["document"] is records[0]["document"]
    assert [r["content"] for r in records] == ["hi", "hello"]
    mapping = {
        "kinds": [{"name": "user", "match": {"role": "user"}, "role": "user", "content": "content"},
                  {"name": "assistant", "match": {"role": "assistant"}, "role": "assistant", "content": "content"}],
        "timestamps": {"fields": ["ts"], "fallback": "field", "fallback_field": "document.create_time"},
        "meta": {"model": ["model", "document.model"]},
    }
    out = build(mapping, records)
    assert out[0] == {"role": "meta", "source": "t", "model": "m-2"}
    assert [r["timestamp"] for r in out[1:]] == ["2026-05-16T09:00:00.000Z"] * 2


def test_the_document_key_is_off_by_default_and_found_lists_are_removed(tmp_path):
    path = tmp_path / "conv.json"
    path.write_text(json.dumps({"title": "t", "items": [{"a": 1}]}))  # one line: named explicitly
    assert [r for _, r in read(path, container="json_object")] == [{"a": 1}]
    assert [r for _, r in read(path, container="json_object", document_key="_doc")] == [
        {"a": 1, "_doc": {"title": "t"}}]


# -- nested record lists -----------------------------------------------------------------------------
def test_a_star_reads_the_records_of_every_element_with_their_element(tmp_path):
    path = tmp_path / "convs.json"
    path.write_text(json.dumps([{"id": "a", "messages": [{"n": 1}, {"n": 2}]}, {"id": "b", "messages": []},
                                {"id": "c", "messages": [{"n": 3}]}, {"id": "d"}, "junk"], indent=1))
    entries = read(path, records_path=("*", "messages"), document_key="doc")
    good = [(str(w), r["n"], r["doc"]) for w, r in (e for e in entries if not isinstance(e, readers.BadLine))]
    assert good == [(f"{path} (element 1, record 1)", 1, {"id": "a"}), (f"{path} (element 1, record 2)", 2, {"id": "a"}),
                    (f"{path} (element 3, record 1)", 3, {"id": "c"})]
    bad = [(str(e.where), e.reason) for e in entries if isinstance(e, readers.BadLine)]
    assert bad == [(f"{path} (element 4)", "input.records_path 'messages' not found in this element"),
                   (f"{path} (element 5)", "a JSON string, not an object holding records at 'messages'")]


def test_a_star_goes_over_object_values_and_jsonl_lines(tmp_path):
    doc = tmp_path / "by-id.json"
    doc.write_text(json.dumps({"version": 2, "chats": {"x1": {"turns": [{"n": 1}]}, "x2": {"turns": [{"n": 2}]}}},
                              indent=1))
    assert [(w.element, r["n"]) for w, r in read(doc, records_path=("chats", "*", "turns"))] == [("x1", 1), ("x2", 2)]
    lines = tmp_path / "convs.jsonl"
    lines.write_text('{"id": "a", "messages": [{"n": 1}, {"n": 2}]}\n{"id": "b", "messages": [{"n": 3}]}\n')
    assert [(w.element, w.line, r["n"]) for w, r in read(lines, records_path=("*", "messages"))] == [
        ("1", 1, 1), ("1", 2, 2), ("2", 1, 3)]
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps([{"n": 1}], indent=1))
    assert [r for _, r in read(plain, records_path=("records",))] == [{"n": 1}], "no star: arrays are the records"


def test_a_call_rule_may_write_the_step_thought_first():
    mapping = {"kinds": [{"name": "step", "match": {"event": "step"}, "role": "tool_exchange", "tool_name": "tool",
                          "args": "input", "args_key": "input", "content": "observation", "reasoning": "log"}],
               "timestamps": {"fields": ["t"]}}
    out = build(mapping, [{"event": "step", "tool": "search", "input": "q", "observation": "found", "log": "I look",
                           "t": 1778922000},
                          {"event": "step", "tool": "", "input": "q", "observation": "lost", "log": "no tool", "t": 1778922001},
                          {"event": "step", "tool": "search", "input": "r", "observation": "again", "t": 1778922002}])
    assert [(r["role"], r.get("content")) for r in out[1:]] == [
        ("reasoning", "I look"), ("assistant", None), ("tool", "found"), ("reasoning", "no tool"),
        ("assistant", None), ("tool", "again")]
