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


def test_the_model_that_answered_is_the_session_s_and_the_requested_one_stays_a_choice(tmp_path):
    """`gen_ai.request.model` names what was asked for (`gpt-4`, also in the request body's
    `input.model`), `gen_ai.response.model` the model that wrote the reply (`gpt-4-0613`): the
    trajectory's meta records the one that acted. It was a question, so `--yes` refused."""
    for n in range(2):
        (tmp_path / f"span{n}.json").write_text(json.dumps(_span(n), indent=1), encoding="utf-8")
    inference = infer([str(tmp_path)], source="otel")
    assert "meta.model" not in [q.key for q in inference.questions]
    assert "gen_ai.response.model" in str(inference.mapping["meta"]["model"])
    decision = next(d for d in inference.decisions if d.key == "meta.model")
    assert any("gen_ai.request.model" in str(value) for value in decision.candidates), decision.candidates


def test_a_model_field_named_neither_way_is_still_a_rival(tmp_path):
    for n in range(2):
        span = _span(n)
        span["gen_ai.response.model"] = "gpt-4-0613"
        span["gen_ai.request.model"] = "gpt-4"
        span["llm.model"] = "gpt-4-turbo"  # a third name, neither requested nor answering
        (tmp_path / f"span{n}.json").write_text(json.dumps(span, indent=1), encoding="utf-8")
    questions = [q.key for q in infer([str(tmp_path)], source="otel").questions]
    assert "meta.model" in questions


def test_picking_the_requested_model_reads_it_from_the_document(tmp_path):
    for n in range(2):
        (tmp_path / f"span{n}.json").write_text(json.dumps(_span(n), indent=1), encoding="utf-8")
    decision = next(d for d in infer([str(tmp_path)], source="otel").decisions if d.key == "meta.model")
    request = next(v for v in decision.candidates if "gen_ai.request.model" in str(v))
    mapping = infer([str(tmp_path)], source="otel", answers={"meta.model": request}).mapping
    # the document is reached under input.document_key, or the path leads nowhere and no model is written
    assert mapping["meta"]["model"] == request and mapping["input"].get("document_key") == request[0][0]
