"""A key that is a dotted path of names (OpenTelemetry's `gen_ai.tool.call.arguments`) is known by
its endings too (`tool_call_arguments`, `call_arguments`, `arguments`): an execute_tool span's tool
name, arguments, call id and result were never found, and its records were asked as a person's."""

from __future__ import annotations

from generator.infer.fields import TOOL_NAME_NAMES, FieldFact, pick


def _fact(path: tuple) -> FieldFact:
    from generator.infer.fields import norm

    return FieldFact(path, 1.0, "string", 0.0, True, 10.0, 0.0, norm(path[-1]))


def test_a_dotted_key_is_named_by_its_endings_most_specific_first():
    assert _fact(("attributes", "gen_ai.tool.call.arguments")).names == [
        "gen_ai_tool_call_arguments", "tool_call_arguments", "call_arguments", "arguments"]
    assert _fact(("name",)).names == ["name"]


def test_the_dotted_tool_name_beats_a_plain_name_field():
    facts = [_fact(("name",)), _fact(("attributes", "gen_ai.tool.name"))]  # the span's name, the tool's
    assert pick(facts, TOOL_NAME_NAMES).path == ("attributes", "gen_ai.tool.name")
