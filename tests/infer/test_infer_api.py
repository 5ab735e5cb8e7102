"""Inference as the lead codes against it: the API, answers settling questions, evidence lines."""

from __future__ import annotations

import dataclasses
import json

from generator.answers import check_mapping
from generator.infer import CONFIDENT, Decision, Inference, infer, infer_profile

from ..inspect.helpers import FIXTURES


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_api_shape(tmp_path):
    path = tmp_path / "support-bot" / "chat.jsonl"
    path.parent.mkdir()
    _write(path, [{"role": "user", "content": "Where is my parcel?", "ts": "2026-05-16T09:00:00Z"},
                  {"role": "assistant", "content": "It ships today.", "ts": "2026-05-16T09:00:05Z"}])
    inf = infer([str(path)])
    assert isinstance(inf, Inference)
    assert {f.name for f in dataclasses.fields(Decision)} == {"key", "value", "confidence", "evidence", "candidates"}
    assert {f.name for f in dataclasses.fields(Inference)} == {"mapping", "decisions", "questions", "profile",
                                                                "native_source", "doubled", "doubts"}
    assert inf.questions == [] and inf.native_source is None and inf.doubled == 0 and inf.doubts == []
    assert inf.mapping["source"] == "support-bot"
    check_mapping(inf.mapping)
    for d in inf.decisions:
        assert 0 <= d.confidence <= 1 and d.evidence and "\n" not in d.evidence
    json.dumps(inf.to_dict())


def test_source_override_and_answers_settle_questions():
    case = FIXTURES / "call_transcripts" / "calls"
    paths = sorted(str(p) for p in case.glob("*.json"))
    first = infer(paths, source="northwind-calls")
    assert first.mapping["source"] == "northwind-calls"
    keys = {q.key for q in first.questions}
    assert keys == {"kinds[speaker=spk_0].role", "kinds[speaker=spk_1].role"}
    for q in first.questions:
        assert q.confidence < CONFIDENT and "user" in q.candidates and "assistant" in q.candidates
    settled = infer_profile(first.profile, answers={"kinds[speaker=spk_0].role": "assistant",
                                                     "kinds[speaker=spk_1].role": "user"})
    assert settled.questions == []
    roles = {rule["match"]["speaker"]: rule["role"] for rule in settled.mapping["kinds"]}
    assert roles == {"spk_0": "assistant", "spk_1": "user"}
    answered = next(d for d in settled.decisions if d.key == "kinds[speaker=spk_0].role")
    assert answered.confidence == 1.0 and answered.evidence.startswith("answered")


def test_noise_kinds_are_skipped_and_named(tmp_path):
    path = tmp_path / "agent.jsonl"
    _write(path, [{"event": "prompt", "text": "Summarise the incident.", "at": "2026-05-16T09:00:00Z"},
                  {"event": "heartbeat", "at": "2026-05-16T09:00:01Z"},
                  {"event": "token_usage", "tokens": 31, "at": "2026-05-16T09:00:02Z"},
                  {"event": "retrying", "detail": "upstream 429, backing off for two seconds", "at":
                   "2026-05-16T09:00:03Z"},
                  {"event": "completion", "text": "The database failover took four minutes.",
                   "at": "2026-05-16T09:00:04Z"}])
    inf = infer([str(path)])
    assert inf.questions == []
    roles = {}
    for rule in inf.mapping["kinds"]:
        values = rule["match"]["event"]
        for v in values if isinstance(values, list) else [values]:
            roles[v] = rule["role"]
    assert roles == {"prompt": "user", "completion": "assistant", "heartbeat": "skip", "token_usage": "skip",
                     "retrying": "skip"}


def test_role_spellings_are_recognised(tmp_path):
    spellings = [("human", "ai"), ("customer", "agent"), ("requester", "bot"), ("question", "answer"),
                 ("input", "model")]
    for user, assistant in spellings:
        path = tmp_path / f"{user}.jsonl"
        _write(path, [{"speaker": user, "text": "Is the service up right now?"},
                      {"speaker": assistant, "text": "Yes, every region reports healthy."}])
        inf = infer([str(path)])
        roles = {r["match"]["speaker"]: r["role"] for r in inf.mapping["kinds"]}
        assert roles == {user: "user", assistant: "assistant"}, (user, assistant)
        assert inf.questions == []
