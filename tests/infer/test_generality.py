"""Shapes inference once got wrong, checked beyond the decisions in each fixture's decisions.yml.

Why: the product is judged on formats nobody here has seen, so each closed gap keeps a test of
what the cleaner writes for it (calls answered in order, nothing dropped as an orphan), not only
of the decision that fixes it. Formats are written inline where a variant of a fixture is enough.
"""

from __future__ import annotations

import json
from pathlib import Path

from generator.answers import check_mapping

from ..inspect.helpers import FIXTURES, inference, render_and_read, samples, validation_problems


def _rule(inf, role: str) -> dict:
    found = [k for k in inf.mapping["kinds"] if k["role"] == role]
    assert len(found) == 1, inf.mapping["kinds"]
    return found[0]


def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _calls_answered_in_order(records: list[dict]) -> list[tuple[str, str, bool | None]]:
    """(tool name, result, ok) per call; each result directly follows the record holding its call."""
    out = []
    for i, record in enumerate(records):
        for n, call in enumerate(record.get("tool_calls") or ()):
            result = records[i + 1 + n]
            assert result["role"] == "tool" and result["tool_call_id"] == call["id"], (call, result)
            out.append((call["name"], result["content"], result.get("ok")))
    return out


# -- gap 1: a record carrying a call and its output together ---------------------------------------
def test_combined_step_records_keep_every_result_with_its_call(tmp_path):
    case = FIXTURES / "step_log" / "runs"
    inf = inference(samples(case))
    rule = _rule(inf, "tool_exchange")
    assert (rule["tool_name"], rule["args"], rule["content"]) == ("name", "input", "output")
    code, output, sessions = render_and_read(inf.mapping, samples(case), tmp_path / "cleaner")
    assert code == 0, output
    assert validation_problems(tmp_path / "cleaner") == []
    exchanges = [x for records in sessions for x in _calls_answered_in_order(records)]
    assert [name for name, _, _ in exchanges] == ["Query Metrics", "Search Incidents", "Get Runbook",
                                                  "List Pull Requests"]
    assert exchanges[2] == ("Get Runbook", "Error: runbook not found", False)
    assert all(ok is True for _, _, ok in exchanges[:2])
    assert "orphan" not in output and "no earlier call" not in output


def test_combined_step_without_ids_or_flags_is_still_an_exchange(tmp_path):
    records = []
    for n, (name, query, answer) in enumerate([("Web Search", "lisbon trams", "Tram 28 runs every 10 min"),
                                               ("Read Page", "https://example.org/t", "Timetable: 06:00-23:00")]):
        records += [{"type": "user", "content": f"Question {n}: when do trams run?", "at": f"2026-05-16T09:0{n}:00Z"},
                    {"type": "tool", "name": name, "input": {"q": query}, "output": answer,
                     "at": f"2026-05-16T09:0{n}:10Z"},
                    {"type": "assistant", "content": f"Answer {n}: {answer}.", "at": f"2026-05-16T09:0{n}:20Z"}]
    path = _write_jsonl(tmp_path / "in" / "trip.jsonl", records)
    inf = inference([path])
    assert _rule(inf, "tool_exchange")["tool_name"] == "name"
    check_mapping(inf.mapping)
    code, output, sessions = render_and_read(inf.mapping, [path], tmp_path / "cleaner")
    assert code == 0, output
    assert [(n, r) for n, r, _ in _calls_answered_in_order(sessions[0])] == [
        ("Web Search", "Tram 28 runs every 10 min"), ("Read Page", "Timetable: 06:00-23:00")]


# -- gap 2: assistant/bot records that hold only a tool call -------------------------------------
def test_bot_records_holding_only_an_action_become_calls(tmp_path):
    case = FIXTURES / "bot_platform" / "conversations"
    inf = inference(samples(case))
    call = _rule(inf, "tool_call")
    assert (call["match"], call["has"], call["tool_name"], call["args"]) == (
        {"sender": "bot"}, ["action"], "action.name", "action.params")
    text = _rule(inf, "assistant")
    assert text["lacks"] == ["action"] and text["content"] == "text"
    code, output, sessions = render_and_read(inf.mapping, samples(case), tmp_path / "cleaner")
    assert code == 0, output
    names = [n for records in sessions for n, _, _ in _calls_answered_in_order(records)]
    assert names == ["track_parcel", "list_lockers", "redirect_parcel", "find_shop"]


def test_legacy_function_call_messages_become_calls(tmp_path):
    """Chat messages of the older OpenAI shape: an assistant ``function_call`` with no content."""
    records = [
        {"role": "user", "content": "What is the weather in Oslo?", "created": 1778922000},
        {"role": "assistant", "content": None, "function_call": {"name": "get_weather",
                                                                 "arguments": "{\"city\": \"Oslo\"}"},
         "created": 1778922001},
        {"role": "function", "name": "get_weather", "content": "{\"temp_c\": 12, \"sky\": \"rain\"}",
         "created": 1778922002},
        {"role": "assistant", "content": "It is 12 degrees and raining in Oslo.", "created": 1778922003},
        {"role": "user", "content": "And in Porto, please?", "created": 1778922010},
        {"role": "assistant", "content": None, "function_call": {"name": "get_weather",
                                                                 "arguments": "{\"city\": \"Porto\"}"},
         "created": 1778922011},
        {"role": "function", "name": "get_weather", "content": "{\"temp_c\": 21, \"sky\": \"sun\"}",
         "created": 1778922012},
        {"role": "assistant", "content": "Porto has 21 degrees and sunshine.", "created": 1778922013},
    ]
    path = _write_jsonl(tmp_path / "in" / "weather.jsonl", records)
    inf = inference([path])
    call = _rule(inf, "tool_call")
    assert call["has"] == ["function_call"] and call["tool_name"] == "function_call.name"
    assert _rule(inf, "tool_result")["match"] == {"role": "function"}
    code, output, sessions = render_and_read(inf.mapping, [path], tmp_path / "cleaner")
    assert code == 0, output
    assert [r for _, r, _ in _calls_answered_in_order(sessions[0])] == [
        '{"temp_c": 12, "sky": "rain"}', '{"temp_c": 21, "sky": "sun"}']
    assert [r["role"] for r in sessions[0]].count("assistant") == 4


# -- gap 3: content blocks carrying a call and its output ------------------------------------------
def test_assistants_run_steps_keep_each_output_after_its_call(tmp_path):
    case = FIXTURES / "assistants_threads" / "threads"
    inf = inference(samples(case))
    assert inf.mapping["blocks"]["types"]["function"] == {
        "as": "tool_exchange", "call_id": "id", "tool_name": "function.name", "args": "function.arguments",
        "content": "function.output"}
    code, output, sessions = render_and_read(inf.mapping, samples(case), tmp_path / "cleaner")
    assert code == 0, output
    parallel = [r for records in sessions for r in records if len(r.get("tool_calls") or ()) == 2]
    assert len(parallel) == 1, "the step with two calls is one assistant record"
    results = [x for records in sessions for x in _calls_answered_in_order(records)]
    assert [r for _, r, _ in results] == ['{"status": "shipped", "carrier": "DHL"}',
                                          '{"status": "packing", "eta": "2026-05-20"}',
                                          '{"status": "shipped", "eta": "2026-05-18"}', '{"cancelled": true}', "52.0"]
    code_call = [c for records in sessions for r in records for c in r.get("tool_calls") or ()][-1]
    assert (code_call["name"], code_call["args"]) == ("code_interpreter", '{"input":"print((40 + 55 + 61) / 3)"}')


# -- gap 4: blocks without a type field, told apart by the key they hold ---------------------------
def test_gemini_parts_are_typed_by_key_and_results_answer_the_call_of_their_tool(tmp_path):
    case = FIXTURES / "gemini_chats" / "chats"
    inf = inference(samples(case))
    by_key = inf.mapping["blocks"]["by_key"]
    assert list(by_key)[:2] == ["thought", "text"], "the flag is checked before the text it goes with"
    assert by_key["functionResponse"] == {"as": "tool_result", "content": "functionResponse.response",
                                          "tool_name": "functionResponse.name"}
    assert by_key["inlineData"] == {"as": "placeholder", "text": "[image]"}
    code, output, sessions = render_and_read(inf.mapping, samples(case), tmp_path / "cleaner")
    assert code == 0, output
    first = sessions[0]
    calls = {c["id"]: c["name"] for r in first if r.get("tool_calls") for c in r["tool_calls"]}
    answered = [(calls[r["tool_call_id"]], r["content"]) for r in first if r["role"] == "tool"]
    assert answered == [("get_time", '{"time":"11:02"}'), ("get_weather", '{"temp_c":12,"sky":"rain"}')]
    assert [r["content"] for r in first if r["role"] == "reasoning"] == [
        "Two independent lookups; I can run them together.", "The image shows a compact umbrella."]
    assert "Here is a photo of my umbrella, is it big enough?\n[image]" in [r.get("content") for r in first]


def test_results_naming_their_tool_answer_the_call_of_that_tool(tmp_path):
    records = [{"role": "user", "content": "Weather and time in Oslo?", "created": 1778922000},
               {"role": "assistant", "content": None, "function_call": {"name": "get_weather", "arguments": "{}"},
                "created": 1778922001},
               {"role": "assistant", "content": None, "function_call": {"name": "get_time", "arguments": "{}"},
                "created": 1778922002},
               {"role": "function", "name": "get_time", "content": "11:02", "created": 1778922003},
               {"role": "function", "name": "get_weather", "content": "rain", "created": 1778922004},
               {"role": "assistant", "content": "Rainy, and it is 11:02.", "created": 1778922005}]
    path = _write_jsonl(tmp_path / "in" / "two-calls.jsonl", records)
    inf = inference([path])
    assert _rule(inf, "tool_result")["tool_name"] == "name"
    code, output, sessions = render_and_read(inf.mapping, [path], tmp_path / "cleaner")
    assert code == 0, output
    names = {c["id"]: c["name"] for r in sessions[0] if r.get("tool_calls") for c in r["tool_calls"]}
    assert [(names[r["tool_call_id"]], r["content"]) for r in sessions[0] if r["role"] == "tool"] == [
        ("get_time", "11:02"), ("get_weather", "rain")]


# -- gap 5: fields beside the record list of a JSON object ------------------------------------------
def test_document_fields_give_the_model_and_the_session_time(tmp_path):
    case = FIXTURES / "conversation_export" / "export"
    inf = inference(samples(case))
    code, output, sessions = render_and_read(inf.mapping, samples(case), tmp_path / "cleaner")
    assert code == 0, output
    by_model = {records[0]["model"]: records for records in sessions}
    assert set(by_model) == {"gpt-4o-mini", "gpt-4o"}
    # create_time is T0 + 1 h and T0 + 2 h (tests/inspect/make_generality_fixtures.py)
    assert {r["timestamp"] for r in by_model["gpt-4o-mini"][1:]} == {"2026-05-16T10:00:00.000Z"}
    assert {r["timestamp"] for r in by_model["gpt-4o"][1:]} == {"2026-05-16T11:00:00.000Z"}
    assert "file modification time" not in output


# -- gap 6: nested record lists, one element one session --------------------------------------------
def test_each_conversation_of_an_archive_is_its_own_session_named_by_its_id(tmp_path):
    case = FIXTURES / "chat_archive" / "archives"
    inf = inference(samples(case))
    code, output, sessions = render_and_read(inf.mapping, samples(case), tmp_path / "cleaner")
    assert code == 0, output
    expected = tmp_path / "cleaner" / "tests" / "expected"
    names = sorted(str(p.relative_to(expected)) for p in expected.rglob("*.jsonl"))
    assert names == ["2026-05-archive/c-101.jsonl", "2026-05-archive/c-102.jsonl", "2026-06-archive/c-201.jsonl"]
    untimed = next(records for records in sessions if len(records) == 3)  # c-102: two messages, no times
    assert {r["timestamp"] for r in untimed[1:]} == {"2026-05-16T11:00:00.000Z"}  # its created_at


def test_conversations_inside_an_object_and_an_element_without_messages(tmp_path):
    convs = []
    for n in range(1, 4):
        messages = [{"author": "human", "text": f"Question {n}: how do I reset my password?",
                     "at": f"2026-05-16T09:0{n}:00Z"},
                    {"author": "bot", "text": f"Answer {n}: use the reset link on the sign-in page.",
                     "at": f"2026-05-16T09:0{n}:30Z"}]
        convs.append({"uuid": f"u-{n}", "channel": "web", "turns": messages})
    doc = tmp_path / "in" / "export.json"
    doc.parent.mkdir()
    doc.write_text(json.dumps({"exported": "2026-05-17", "conversations": convs}, indent=2), encoding="utf-8")
    inf = inference([doc])
    assert inf.mapping["input"]["records_path"] == "conversations.*.turns"
    assert inf.mapping["session"] == {"by": "element", "field": "document.uuid", "missing": "fail"}
    assert not inf.questions, [(q.key, q.evidence) for q in inf.questions]
    broken = json.loads(doc.read_text())
    broken["conversations"].append({"uuid": "u-4", "channel": "web"})  # no turns: reported, the rest written
    doc.write_text(json.dumps(broken, indent=2), encoding="utf-8")
    code, output, sessions = render_and_read(inf.mapping, [doc], tmp_path / "cleaner")
    assert code == 0, output
    assert len(sessions) == 3 and all(len(records) == 3 for records in sessions)
    assert "(element 4)" in output


def test_jsonl_with_one_conversation_per_line(tmp_path):
    lines = []
    for n in range(1, 4):
        lines.append({"conversation_id": f"cv-{n}", "created": 1778922000 + 600 * n, "messages": [
            {"role": "user", "content": f"Can you translate 'good morning' into language number {n}?"},
            {"role": "assistant", "content": f"Here is greeting number {n}: bom dia."}]})
    path = _write_jsonl(tmp_path / "in" / "dataset.jsonl", lines)
    inf = inference([path])
    assert inf.mapping["input"]["records_path"] == "*.messages"
    assert inf.mapping["session"]["by"] == "element"
    assert inf.mapping["timestamps"]["fallback_field"] == "document.created"
    code, output, sessions = render_and_read(inf.mapping, [path], tmp_path / "cleaner")
    assert code == 0, output
    assert [[r["role"] for r in records] for records in sessions] == [["meta", "user", "assistant"]] * 3
    assert [records[1]["timestamp"] for records in sessions] == [
        "2026-05-16T09:10:00.000Z", "2026-05-16T09:20:00.000Z", "2026-05-16T09:30:00.000Z"]


def test_llm_call_logs_repeating_the_history_are_not_conversations(tmp_path):
    lines = [{"id": f"req-{n}", "ts": 1778922000 + n, "messages": [
        {"role": "user", "content": "Summarise the meeting notes, please."}] * n,
        "response": {"role": "assistant", "content": f"Summary draft {n}."}} for n in range(1, 4)]
    path = _write_jsonl(tmp_path / "in" / "calls.jsonl", lines)
    assert inference([path]).mapping["input"]["records_path"] is None


def test_the_inspect_report_names_nested_lists_untyped_blocks_and_document_fields():
    from generator.inspect import report_text

    from ..inspect.helpers import profile_of

    archive = report_text(profile_of(tuple(str(p) for p in samples(FIXTURES / "chat_archive" / "archives"))))
    assert "one session = one element of a nested record list" in archive
    assert "records at `*.messages`" in archive
    assert "fields beside the record list (input.document_key reaches them): created_at, id, model, title" in archive
    gemini = report_text(profile_of(tuple(str(p) for p in samples(FIXTURES / "gemini_chats" / "chats"))))
    assert "Content blocks without a type field: lists at `parts`" in gemini
    assert "functionResponse x3" in gemini


def test_bot_records_with_a_tool_name_and_arguments_at_the_top_become_calls(tmp_path):
    records = []
    for n, (order, status) in enumerate([("A-1", "shipped"), ("B-2", "packing")]):
        records += [{"from": "customer", "text": f"Where is my order {order}, please?", "at": f"2026-05-16T09:0{n}:00Z"},
                    {"from": "bot", "text": "One moment, I am checking that for you.", "at": f"2026-05-16T09:0{n}:05Z"},
                    {"from": "bot", "tool": "order_status", "args": {"order": order}, "at": f"2026-05-16T09:0{n}:06Z"},
                    {"from": "tool", "tool": "order_status", "result": status, "at": f"2026-05-16T09:0{n}:07Z"},
                    {"from": "bot", "text": f"Your order {order} is {status}.", "at": f"2026-05-16T09:0{n}:09Z"}]
    path = _write_jsonl(tmp_path / "in" / "chat.jsonl", records)
    inf = inference([path])
    call = _rule(inf, "tool_call")
    assert (call["has"], call["tool_name"], call["args"]) == (["args"], "tool", "args")
    code, output, sessions = render_and_read(inf.mapping, [path], tmp_path / "cleaner")
    assert code == 0, output
    assert [r for _, r, _ in _calls_answered_in_order(sessions[0])] == ["shipped", "packing"]
    assert [r["role"] for r in sessions[0]].count("assistant") == 6


def test_react_steps_keep_the_thought_the_call_and_the_observation(tmp_path):
    records = []
    for n in range(2):
        records += [
            {"event": "input", "text": f"How tall is the Eiffel tower times {n + 2}?", "time": f"2026-05-16T09:0{n}:00Z"},
            {"event": "agent_step", "tool": "search", "tool_input": "Eiffel tower height",
             "log": "Thought: I need the height first.", "observation": "330 metres", "time": f"2026-05-16T09:0{n}:05Z"},
            {"event": "agent_step", "tool": "calculator", "tool_input": f"330*{n + 2}", "log": "Thought: now multiply.",
             "observation": str(330 * (n + 2)), "time": f"2026-05-16T09:0{n}:09Z"},
            {"event": "agent_finish", "output": f"It is {330 * (n + 2)} metres.", "log": "Final Answer: done",
             "time": f"2026-05-16T09:0{n}:12Z"}]
    path = _write_jsonl(tmp_path / "in" / "react.jsonl", records)
    inf = inference([path])
    step = _rule(inf, "tool_exchange")
    assert (step["tool_name"], step["args"], step["content"], step["reasoning"]) == (
        "tool", "tool_input", "observation", "log")
    code, output, sessions = render_and_read(inf.mapping, [path], tmp_path / "cleaner")
    assert code == 0, output
    roles = [r["role"] + ("+calls" if r.get("tool_calls") else "") for r in sessions[0][1:]]
    assert roles == ["user", "reasoning", "assistant+calls", "tool", "reasoning", "assistant+calls", "tool",
                     "assistant"] * 2
    assert sessions[0][4]["content"] == "330 metres"
    assert sessions[0][2]["content"] == "Thought: I need the height first."
