"""calls.py: tool calls and results recognised by structure, whatever the keys are called and
however deep they sit; one input and its expected decision per rule."""

from __future__ import annotations

from generator.infer.calls import call_shape, find_call_lists, find_result_lists


def test_untyped_calls_with_object_args():
    records = [{"role": "assistant", "content": "Checking.", "tool_calls": [
        {"id": "t1", "name": "search_docs", "args": {"q": "x"}}, {"id": "t2", "name": "get_ticket", "args": {}}]}]
    [found] = find_call_lists(records)
    assert (found.path, found.call_id, found.tool_name, found.args) == (("tool_calls",), ("id",), ("name",), ("args",))
    assert found.calls == 2 and found.ids == {"t1", "t2"}


def test_typed_openai_calls_nested_in_a_response_with_json_text_args():
    records = [{"choices": [{"message": {"content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]}}]}]
    [found] = find_call_lists(records)
    assert found.path == ("choices", 0, "message", "tool_calls")
    assert (found.tool_name, found.args) == (("function", "name"), ("function", "arguments"))


def test_a_list_holding_anything_but_calls_is_not_a_call_list():
    # content blocks: text beside a call (the blocks reader handles those), and a list of people
    assert find_call_lists([{"content": [{"type": "text", "text": "hi"}, {"name": "f", "input": {}}]}]) == []
    assert find_call_lists([{"people": [{"name": "Ada Lovelace", "id": "p1"}]}]) == []
    # a Slack message's files: a name and an id, no arguments
    assert find_call_lists([{"text": "see", "files": [{"id": "F1", "name": "deploy-error.png"}]}]) == []
    assert find_call_lists([{"tool_calls": [{"id": "c1", "name": "ping"}]}])[0].args is None  # called calls


def test_a_name_needs_arguments_or_an_id_to_be_a_call():
    assert call_shape({"name": "search"}) is None
    assert call_shape({"name": "search", "arguments": "not json"}) is None
    assert call_shape({"call_id": "x", "name": "search"}) == (("call_id",), ("name",), None)


def test_results_answering_the_calls_by_id_are_a_result_list():
    records = [{"type": "ToolCallExecutionEvent", "content": [
        {"call_id": "c1", "content": "42", "is_error": False, "name": "calc"}]}]
    [found] = find_result_lists(records, {"c1"})
    assert (found.path, found.link, found.content, found.tool_name) == (("content",), ("call_id",), ("content",),
                                                                        ("name",))
    assert find_result_lists(records, {"other"}) == []


def test_fields_named_for_their_encoding_or_cut_are_args_and_outputs():
    # hermes: `arguments_json` held the args (written as an invented "{}" before) and `output_preview`
    # the result (written empty before)
    from generator.infer.calls import bare_name

    assert bare_name("arguments_json") == "arguments" and bare_name("jsonArgs") == "args"
    assert bare_name("output_preview") == "output" and bare_name("json") == "json"
    call = {"action_id": "call-1", "tool_name": "read_file", "arguments_json": "{\"path\": \"a.py\"}"}
    assert call_shape(call) == (("action_id",), ("tool_name",), ("arguments_json",))
    # the plain name wins over an encoded one beside it
    assert call_shape({**call, "arguments": {"path": "a.py"}})[2] == ("arguments",)
    records = [{"role": "tool", "tool_results": [{"action_id": "call-1", "is_error": False, "exit_code": 0,
                                                  "output_preview": "def test_parse_empty(): ..."}]}]
    [found] = find_result_lists(records, {"call-1"})
    assert (found.link, found.content) == (("action_id",), ("output_preview",))
