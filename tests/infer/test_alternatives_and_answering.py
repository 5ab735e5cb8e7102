"""Two readings of an LLM call's response (issue 35, LangSmith's run ingest):

- the reply is in the first of the model's alternatives (`outputs.choices[0].message.content`): a
  field inside such a list is read in its first item (``fields.first_alternative``), at the index the
  cleaner reads (`choices.0`, never a key named "0");
- the model that answered (`outputs.model`) is the session's, over the one requested (`inputs.model`)
  and a field that only repeats the request (`extra.metadata.ls_model_name`)."""

from __future__ import annotations

import json

from generator.infer import infer
from generator.infer.fields import first_alternative
from generator.inspect import LIST


def test_a_path_through_alternatives_reads_the_first_and_any_other_list_is_none():
    assert first_alternative(("outputs", "choices", LIST, "message", "content")) == (
        "outputs", "choices", 0, "message", "content")
    assert first_alternative(("candidates", LIST, "content", "parts", LIST, "text")) is None  # parts: all of them
    assert first_alternative(("messages", LIST, "content")) is None


def _runs(tmp_path) -> str:
    lines = []
    for n in (1, 2):
        lines.append({"id": f"q{n}", "trace": f"t{n}", "kind": "prompt", "at": f"2026-05-1{n}T09:00:00Z",
                      "inputs": {"model": "o1-mini", "prompt": f"Explain the error in build {n} briefly, please."},
                      "extra": {"metadata": {"ls_model_name": "o1-mini"}}})
        lines.append({"id": f"a{n}", "trace": f"t{n}", "kind": "completion", "at": f"2026-05-1{n}T09:00:04Z",
                      "outputs": {"model": "o1-mini-2024-09-12", "choices": [
                          {"index": 0, "message": {"role": "assistant", "content": f"Build {n} failed: a missing import."}}]}})
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_the_reply_is_read_in_the_first_choice_at_its_index(tmp_path):
    inference = infer([_runs(tmp_path)], source="x")
    completion = next(k for k in inference.mapping["kinds"] if (k.get("match") or {}).get("kind") == "completion")
    assert completion["role"] == "assistant"
    assert completion["content"] == "outputs.choices.0.message.content"


def test_the_answering_model_is_the_session_s(tmp_path):
    decision = next(d for d in infer([_runs(tmp_path)], source="x").decisions if d.key == "meta.model")
    assert decision.value == ["outputs.model"] and decision.sure, decision
    assert ["inputs.model"] in decision.candidates
