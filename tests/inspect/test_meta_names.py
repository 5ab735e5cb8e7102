"""generator/inspect/meta.py: meta fields named as formats name them, plainest first (issue 35: the
hermes cwd `repository_cwd`, the anthropic-managed model `agent.model.id`, the OTel model
`gen_ai.response.model` and the SWE-agent cwd `trajectory[].state.working_dir` were never offered)."""

from __future__ import annotations

import json

from generator.infer import infer
from generator.inspect import LIST, profile_fields
from generator.inspect.meta import find_meta, name_rank


def test_plain_qualified_and_object_names_rank_in_that_order():
    assert name_rank(("cwd",), "cwd") == 0 and name_rank(("model_name",), "model") == 0
    assert name_rank(("repository_cwd",), "cwd") == 1
    assert name_rank(("extra", "ls_model_name"), "model") == 1
    assert name_rank(("attributes", "gen_ai.response.model"), "model") == 1
    assert name_rank(("agent", "model", "id"), "model") == 2
    assert name_rank(("agent", "id"), "model") is None
    assert name_rank(("model_request_start_id",), "model") is None  # an event id, not a model
    assert name_rank(("messages", LIST, "id"), "model") is None


def test_candidates_outside_lists_come_before_a_lists_first_element():
    docs = [{"run": {"cwd": "/srv/app"}, "steps": [{"state": {"working_dir": "/srv/app/sub"}}]}]
    found = find_meta(profile_fields(docs, times=False), 1)["cwd"]
    assert [c["path"] for c in found] == [("run", "cwd"), ("steps", 0, "state", "working_dir")]


def _write(tmp_path, records: list[dict]) -> str:
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def _chat(extra_user: dict, extra_assistant: dict) -> list[dict]:
    return [{"session": "s1", "role": "user", "content": "Weather in Paris?", "ts": "2026-05-16T09:00:00Z",
             **extra_user},
            {"session": "s1", "role": "assistant", "content": "Sunny, 21 C.", "ts": "2026-05-16T09:00:02Z",
             **extra_assistant}]


def test_two_fields_of_the_same_standing_that_disagree_are_a_question(tmp_path):
    records = _chat({"agent_model": "gpt-4"}, {"agent_model": "gpt-4", "llm_model": "gpt-4-0613"})
    decision = next(d for d in infer([_write(tmp_path, records)]).decisions if d.key == "meta.model")
    assert decision.confidence < 0.8
    assert [[p] for p in decision.value] != [] and [] in decision.candidates  # writing none is a choice


def test_of_a_requested_and_an_answering_model_the_answering_one_is_the_session_s(tmp_path):
    records = _chat({"request_model": "gpt-4"}, {"request_model": "gpt-4", "response_model": "gpt-4-0613"})
    decision = next(d for d in infer([_write(tmp_path, records)]).decisions if d.key == "meta.model")
    assert decision.value == ["response_model"] and decision.sure
    assert ["request_model"] in decision.candidates and [] in decision.candidates


def test_one_clear_field_is_decided_and_none_is_still_offered(tmp_path):
    records = _chat({"repository_cwd": "/srv/app"}, {"repository_cwd": "/srv/app"})
    decision = next(d for d in infer([_write(tmp_path, records)]).decisions if d.key == "meta.cwd")
    assert decision.value == ["repository_cwd"] and decision.confidence >= 0.8 and [] in decision.candidates


def test_a_field_beside_the_records_is_a_choice_and_picking_it_reads_the_document(tmp_path):
    # a run names its requested model beside the messages, each reply the model that answered
    doc = {"id": "run-1", "model": "gpt-4o", "messages": [
        {"role": "user", "content": "Weather in Paris?", "ts": "2026-05-16T09:00:00Z"},
        {"role": "assistant", "content": "Sunny, 21 C.", "ts": "2026-05-16T09:00:02Z",
         "model_name": "gpt-4o-2024-08-06"}]}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    decision = next(d for d in infer([str(path)]).decisions if d.key == "meta.model")
    beside = next(c for c in decision.candidates if c and c[0].endswith(".model"))
    answered = infer([str(path)], answers={"meta.model": beside})
    assert answered.mapping["meta"]["model"] == beside
    assert beside[0].startswith(answered.mapping["input"]["document_key"] + ".")


def test_a_field_two_lists_deep_is_offered_from_the_first_elements():
    # a LangSmith run tree names the model in a child run's child run
    docs = [{"child_runs": [{"child_runs": [{"extra": {"metadata": {"ls_model_name": "gpt-4o"}}}]}]}]
    found = find_meta(profile_fields(docs, times=False), 1)["model"]
    assert [c["path"] for c in found] == [("child_runs", 0, "child_runs", 0, "extra", "metadata", "ls_model_name")]
    deeper = [{"a": [{"b": [{"c": [{"model": "m"}]}]}]}]
    assert find_meta(profile_fields(deeper, times=False), 1)["model"] == []
