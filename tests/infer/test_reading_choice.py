"""search._read_alike: the places the records may be are scored on the same texts (issue 35: an OTel
GenAI span keeps the request's messages twice, inside `input` and as `gen_ai.input.messages`, and the
reply only in `gen_ai.output.messages`; reading `input.messages` lost the reply, yet by its own measure
lost nothing, so the place stayed a question and `--yes` refused)."""

from __future__ import annotations

import json

from generator.infer import infer


def _span(n: int) -> dict:
    request = [{"role": "user", "parts": [{"type": "text", "content": f"What is the weather in city number {n}?"}]},
               {"role": "assistant", "parts": [{"type": "text", "content": "Let me look that up for you now."}]},
               {"role": "user", "parts": [{"type": "text", "content": "Thanks, and please be quick about it."}]}]
    reply = [{"role": "assistant", "parts": [{"type": "text", "content": f"It is sunny in city number {n} today."}]}]
    return {"input": json.dumps({"model": "gpt-4", "messages": request}),
            "gen_ai.request.model": "gpt-4", "gen_ai.response.model": "gpt-4-0613",
            "gen_ai.input.messages": json.dumps(request), "gen_ai.output.messages": json.dumps(reply)}


def test_the_place_that_reads_the_reply_too_is_chosen(tmp_path):
    for n in range(2):
        (tmp_path / f"span{n}.json").write_text(json.dumps(_span(n), indent=1), encoding="utf-8")
    inference = infer([str(tmp_path)], source="otel")
    reading = inference.mapping["input"]
    assert "input.records_path" not in [q.key for q in inference.questions]
    assert reading["records_path"] == ["gen_ai.input.messages"]
    assert reading["more_records"] == [["gen_ai.output.messages"]]


def test_a_requested_and_an_answering_model_that_differ_are_a_question(tmp_path):
    for n in range(2):
        (tmp_path / f"span{n}.json").write_text(json.dumps(_span(n), indent=1), encoding="utf-8")
    questions = {q.key: q for q in infer([str(tmp_path)], source="otel").questions}
    assert "meta.model" in questions
    offered = [questions["meta.model"].value, *questions["meta.model"].candidates]
    assert any("gen_ai.response.model" in str(value) for value in offered), offered


def test_picking_the_answering_model_reads_it_from_the_document(tmp_path):
    for n in range(2):
        (tmp_path / f"span{n}.json").write_text(json.dumps(_span(n), indent=1), encoding="utf-8")
    question = next(q for q in infer([str(tmp_path)], source="otel").questions if q.key == "meta.model")
    response = next(v for v in question.candidates if "gen_ai.response.model" in str(v))
    mapping = infer([str(tmp_path)], source="otel", answers={"meta.model": response}).mapping
    # the document is reached under input.document_key, or the path leads nowhere and no model is written
    assert mapping["meta"]["model"] == response and mapping["input"].get("document_key") == response[0][0]
