"""input.keyed_lists (cleaner_runtime/shapes.py): OpenTelemetry's OTLP/JSON writes every span's, resource's
and event's attributes as a list, `[{"key": "gen_ai.system", "value": {"stringValue": "openai"}}]`, so no
path could name an attribute and inference saw one `attributes` list per span, never its fields (our
otel_genai_spans fixture: every kind question had no working choice). Read as the object it spells, each
OTLP value as the value it wraps, the same in `inspect` and in the cleaner."""

from __future__ import annotations

import copy
import json

from cleaner_runtime import readers, shapes
from cleaner_runtime.mapping import compile_path
from generator.inspect import profile_paths


def _attr(key: str, value: dict) -> dict:
    return {"key": key, "value": value}


SPAN = {"spanId": "b1", "name": "chat gpt-4o", "attributes": [
    _attr("gen_ai.operation.name", {"stringValue": "chat"}),
    _attr("gen_ai.usage.input_tokens", {"intValue": "412"}),
    _attr("gen_ai.request.temperature", {"doubleValue": 0.2}),
    _attr("gen_ai.stream", {"boolValue": False}),
    _attr("gen_ai.response.finish_reasons", {"arrayValue": {"values": [{"stringValue": "stop"}]}}),
    _attr("server", {"kvlistValue": {"values": [_attr("address", {"stringValue": "api.example.test"})]}}),
]}


def test_attributes_are_read_as_the_object_they_spell():
    assert shapes.keyed_lists(copy.deepcopy(SPAN))["attributes"] == {
        "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 412, "gen_ai.request.temperature": 0.2,
        "gen_ai.stream": False, "gen_ai.response.finish_reasons": ["stop"], "server": {"address": "api.example.test"}}


def test_lists_that_are_not_attributes_stay_as_written():
    plain = [{"key": "a", "value": "b"}]  # a list of records that happen to have key and value
    repeated = [_attr("k", {"stringValue": "1"}), _attr("k", {"stringValue": "2"})]  # which one wins is no rule
    mixed = [_attr("k", {"stringValue": "1"}), {"key": "j", "value": {"stringValue": "2"}, "extra": 1}]
    assert shapes.keyed_lists({"a": plain, "b": repeated, "c": mixed}) == {"a": plain, "b": repeated, "c": mixed}
    assert shapes.keyed_lists([_attr("n", {"intValue": "not a number"})]) == {"n": "not a number"}


def test_a_deep_value_costs_no_recursion():
    deep: object = [_attr("leaf", {"stringValue": "x"})]
    for _ in range(5000):
        deep = {"child": deep}
    node = shapes.keyed_lists(deep)
    for _ in range(5000):
        node = node["child"]
    assert node == {"leaf": "x"}


def test_inspect_proposes_the_setting_and_the_cleaner_reads_the_same_records(tmp_path):
    document = {"resourceSpans": [{"scopeSpans": [{"spans": [SPAN, {**SPAN, "spanId": "b2"}]}]}]}
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    profile = profile_paths([str(path)])
    [report] = profile.files
    assert report.shaping.get("keyed_lists") is True
    shaping = shapes.Shaping.from_input({"keyed_lists": True})
    item = readers.InputFile(path, path.relative_to(tmp_path))
    got = [e[1] for e in readers.read_records(item, "auto", compile_path("resourceSpans.0.scopeSpans.*.spans"),
                                              shaping=shaping) if not isinstance(e, readers.BadLine)]
    assert [r["attributes"]["gen_ai.usage.input_tokens"] for r in got] == [412, 412]
    assert [r.data["attributes"]["gen_ai.operation.name"] for r in profile.recs] == ["chat", "chat"]
