"""embedded._siblings: what an assistant message writes beside its calls (issue 35: OpenInference
spans hold the reply as typed blocks, `contents: [{type: text, text}]`, beside `tool_calls`; the
text was dropped and `--yes` refused on the loss)."""

from __future__ import annotations

import json

from generator.infer import infer
from generator.infer.embedded import typed_text

T = "2026-06-26T13:04:4{}Z"


def test_typed_text_blocks_are_text_beside_calls():
    assert typed_text([{"type": "text", "text": "Let me check."}])
    assert not typed_text([{"type": "image", "url": "x"}]) and not typed_text([]) and not typed_text("text")
    assert not typed_text([{"text": "no type"}])


def test_the_text_beside_a_call_list_is_written_before_the_calls(tmp_path):
    records = [
        {"role": "user", "contents": [{"type": "text", "text": "What is the weather in Paris?"}], "t": T.format(0)},
        {"role": "assistant", "contents": [{"type": "text", "text": "Absolutely! Let me check the weather."}],
         "tool_calls": [{"id": "c1", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}],
         "t": T.format(1)},
        {"role": "tool", "tool_call_id": "c1", "content": "rainy, 57F", "t": T.format(2)},
        {"role": "assistant", "contents": [{"type": "text", "text": "It is rainy in Paris at 57F."}], "t": T.format(3)},
    ]
    for n in range(2):
        (tmp_path / f"s{n}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    mapping = infer([str(tmp_path)]).mapping
    [assistant] = [k for k in mapping["kinds"] if k["match"] == {"role": "assistant"}]
    assert [e["as"] for e in assistant["emit"]] == ["text", "tool_call"], assistant
    assert assistant["emit"][0]["field"] == "contents"


def _thought_is_content() -> list[dict]:
    """SWE-agent's history: each action's `thought` is its `content`, beside its calls."""
    records = [{"role": "user", "content": "Fix the failing parser test, please.", "t": T.format(0)}]
    for n in range(3):
        said = f"Step {n}: I will look at the parser module next."
        records += [{"role": "assistant", "content": said, "thought": said, "t": T.format(2 * n + 1),
                     "tool_calls": [{"id": f"c{n}", "function": {"name": "bash",
                                                                 "arguments": json.dumps({"command": f"ls {n}"})}}]},
                    {"role": "tool", "tool_call_id": f"c{n}", "content": f"file{n}.py", "t": T.format(2 * n + 2)}]
    return records


def test_a_thought_that_is_the_message_is_written_once_as_the_message(tmp_path):
    # SWE-agent: `thought` equals `content` in every action; both were written (text twice)
    records = _thought_is_content()
    for n in range(2):
        (tmp_path / f"s{n}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    [assistant] = [k for k in infer([str(tmp_path)]).mapping["kinds"] if k["match"] == {"role": "assistant"}]
    assert [e["as"] for e in assistant["emit"]] == ["text", "tool_call"], assistant


def test_the_text_beside_calls_may_be_chosen_as_the_model_s_reasoning(tmp_path):
    """Whether a ReAct step's thought is the model's text or its reasoning is the format's call (our
    SWE-agent fixture says reasoning, the real SWE-agent yardstick text; Letta's OpenHands adapter
    writes an action's thought as reasoning): the emit decision offers the other reading, and the
    survey's summary could not change it before."""
    records = _thought_is_content()
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    inference = infer([str(tmp_path)])
    decision = next(d for d in inference.decisions if d.key == "kinds[role=assistant].emit")
    assert decision.sure and [[e["as"] for e in c] for c in decision.candidates] == [["reasoning", "tool_call"]]
    answered = infer([str(tmp_path)], answers={decision.key: decision.candidates[0]}).mapping
    [assistant] = [k for k in answered["kinds"] if k["match"] == {"role": "assistant"}]
    assert [e["as"] for e in assistant["emit"]] == ["reasoning", "tool_call"]
