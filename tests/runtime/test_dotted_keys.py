"""A key that holds dots itself (OpenTelemetry's `gen_ai.operation.name` under `attributes`) is read
by the dotted path every other path is written as: a `match` key can be nothing but a string, and it
matched no record (issue 35: every execute_tool span of an OTLP trace failed as an unknown kind)."""

from __future__ import annotations

from cleaner_runtime.mapping import MISSING, compile_path, get_path

from ..render.conftest import build_session as build


def test_the_longest_run_of_segments_that_is_a_key_is_read():
    record = {"attributes": {"gen_ai.operation.name": "chat", "gen_ai.tool": {"call.id": "c1"}}}
    assert get_path(record, compile_path("attributes.gen_ai.operation.name")) == "chat"
    assert get_path(record, compile_path("attributes.gen_ai.tool.call.id")) == "c1"  # two dotted keys in a row
    assert get_path(record, compile_path("attributes.gen_ai.operation")) is MISSING


def test_a_nested_reading_wins_over_a_dotted_key():
    record = {"a": {"b": 1}, "a.b": 2}
    assert get_path(record, compile_path("a.b")) == 1
    assert get_path({"a.b": 2}, compile_path("a.b")) == 2


def test_the_dotted_key_is_looked_for_where_the_walk_missed():
    """The slow path goes on from the dict that lacked the step, also when the path names that
    step's key more than once (the step is found by where the walk stood, not by the key)."""
    assert get_path({"a": {"a": {"a.c": 7}}}, ("a", "a", "a", "c")) == 7
    assert get_path({"a": {"a.c": 1, "x": {"a": {"a.c": 2}}}}, ("a", "x", "a", "a", "c")) == 2
    assert get_path({"l": [{"x.y": 5}]}, compile_path("l.0.x.y")) == 5
    assert get_path({"a": {"a": {"b": 1}}}, ("a", "a", "a", "c")) is MISSING
    # the walk goes on as any walk does, into JSON a string holds (it did not, re-walking from the root)
    assert get_path({"a.b": '{"c.d": 1}'}, compile_path("a.b.c.d")) == 1


def test_a_match_on_a_dotted_key_classifies_the_record():
    mapping = {"timestamps": {"fields": ["at"]},
               "kinds": [{"name": "ask", "match": {"attributes.gen_ai.operation.name": "invoke_agent"}, "role": "user",
                          "content": "attributes.gen_ai.prompt"},
                         {"name": "reply", "match": {"attributes.gen_ai.operation.name": "chat"}, "role": "assistant",
                          "content": [["attributes", "gen_ai.completion"]]}]}
    out = build(mapping, [
        {"at": "2026-05-16T09:00:00Z", "attributes": {"gen_ai.operation.name": "invoke_agent",
                                                      "gen_ai.prompt": "Which cluster runs 1.29?"}},
        {"at": "2026-05-16T09:00:02Z", "attributes": {"gen_ai.operation.name": "chat",
                                                      "gen_ai.completion": "stg-us-2 does."}}])
    assert out[1:] == [{"role": "user", "content": "Which cluster runs 1.29?", "timestamp": "2026-05-16T09:00:00Z"},
                       {"role": "assistant", "content": "stg-us-2 does.", "timestamp": "2026-05-16T09:00:02Z"}]
