"""hidden.py, addressed.py and text lists, on small chat exports: the input and the decision
expected of it (modelled on ChatGPT's conversations.json, written flat here)."""

from __future__ import annotations

import json

from generator.infer import CONFIDENT, infer


def message(i: int, role: str, ctype: str, recipient: str = "all", author: str | None = None, **content) -> dict:
    return {"id": f"m{i}", "conversation": "c1", "create_time": 1778922000.0 + i,
            "author": {"role": role, "name": author}, "recipient": recipient,
            "content": {"content_type": ctype, **content}}


def chat(with_hidden: bool = True, with_tool: bool = True) -> list[dict]:
    out = [{**message(-1, "system", "text", parts=[""]), "hidden": True}]
    if with_hidden:
        out.append({**message(0, "user", "user_editable_context", user_profile="I live in Oslo and pay in NOK."),
                    "hidden": True})
    out.append(message(1, "user", "text", parts=["What is twelve percent of 1386.50, rounded to two decimals?"]))
    if with_tool:
        out.append(message(2, "assistant", "code", recipient="python", text="print(round(1386.50 * 0.12, 2))"))
        out.append(message(3, "tool", "execution_output", author="python", text="166.38"))
    out.append(message(4, "assistant", "text", parts=["Twelve percent of 1386.50 is 166.38,", "rounded to cents."]))
    return out


def write(tmp_path, records: list[dict]) -> list[str]:
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return [str(path)]


def kind(inf, **match) -> dict:
    return next(k for k in inf.mapping["kinds"] if all(k.get("match", {}).get(f) == v for f, v in match.items()))


def test_a_list_of_text_parts_is_the_content(tmp_path):
    inf = infer(write(tmp_path, chat(with_hidden=False, with_tool=False)))
    assert kind(inf, **{"author.role": "assistant"})["content"] == "content.parts"
    assert kind(inf, **{"author.role": "user"})["content"] == "content.parts"
    assert not inf.questions


def test_a_kind_flagged_hidden_in_every_record_is_skipped_without_a_question(tmp_path):
    inf = infer(write(tmp_path, chat(with_tool=False)))
    hidden = kind(inf, **{"content.content_type": "user_editable_context"})
    assert hidden["role"] == "skip"
    decision = next(d for d in inf.decisions if d.key.endswith("user_editable_context].role"))
    assert decision.confidence >= CONFIDENT and "`hidden` is true" in decision.evidence


def test_a_flag_true_in_only_some_records_hides_nothing(tmp_path):
    records = chat(with_hidden=False, with_tool=False)
    again = {**message(5, "user", "text", parts=["And what is fifteen percent of the same bill, please?"]),
             "hidden": False}
    records[1]["hidden"] = True  # the first user message, hidden; the second shown
    inf = infer(write(tmp_path, [*records, again]))
    assert kind(inf, **{"author.role": "user"})["role"] == "user"


def test_a_message_addressed_to_a_tool_is_the_call_and_the_tools_message_its_result(tmp_path):
    inf = infer(write(tmp_path, chat()))
    call = kind(inf, **{"content.content_type": "code"})
    assert call["role"] == "tool_call"
    assert (call["tool_name"], call["args"], call["args_key"]) == ("recipient", "content.text", "code")
    assert "call_id" not in call
    result = kind(inf, **{"author.role": "tool"})
    assert result["role"] == "tool_result" and result["tool_name"] == "author.name"
    assert result["content"] == "content.text" and "call_id" not in result and "args" not in result


def test_no_call_when_the_addressing_field_holds_the_tool_name_elsewhere_too(tmp_path):
    records = chat()
    records[-1]["recipient"] = "python"  # the final answer is "addressed" to python too: the field says nothing
    inf = infer(write(tmp_path, records))
    assert kind(inf, **{"content.content_type": "code"})["role"] != "tool_call"
