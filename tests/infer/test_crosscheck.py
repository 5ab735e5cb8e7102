"""crosscheck.py, through inference on small synthetic samples: a decision the samples
contradict is not confident; one they support becomes sure."""

from __future__ import annotations

import json

from generator.infer import CONFIDENT, infer


def write(tmp_path, name: str, records: list[dict]):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def role_of(inference, key: str):
    found = [d for d in inference.decisions if d.key == f"kinds[{key}].role"]
    return found[-1] if found else None


T = "2026-05-16T09:00:0{}Z"


def test_the_event_opening_a_run_is_its_request(tmp_path):
    records = [{"type": "run_start", "at": T.format(0), "task": {"text": "Free disk space on db-2 without a restart."}},
               {"type": "answer", "at": T.format(1), "text": "Removed the stale WAL slot; 40 GB free now."},
               {"type": "tick", "at": T.format(2)}]
    inf = infer([str(write(tmp_path, "run.jsonl", records))])
    decision = role_of(inf, "type=run_start")
    assert decision.value == "user" and decision.confidence >= CONFIDENT
    assert inf.mapping["kinds"][0]["content"] == "task.text"


def test_a_speaker_who_opens_a_chat_is_not_taken_for_the_request(tmp_path):
    records = [{"who": "A", "said": "Hello there, how can I help you today?", "t": T.format(0)},
               {"who": "B", "said": "My export failed again last night.", "t": T.format(1)},
               {"who": "A", "said": "Let me look at the export job logs.", "t": T.format(2)}]
    inf = infer([str(write(tmp_path, "chat.jsonl", records))])
    # `who` names people (one file: nothing says A and B recur), so the records are one kind: a question
    roles = [d for d in inf.decisions if d.key.startswith("kinds[") and d.key.endswith("].role")]
    assert roles and all(d.confidence < CONFIDENT for d in roles)


def test_a_closing_summary_that_repeats_the_answer_is_skipped(tmp_path):
    answer = "The replica had an inactive slot pinning 388 GB of WAL; dropping it freed the disk."
    records = [{"event": "start", "ts": T.format(0), "task": "Why is db-2 full? Fix it safely please."},
               {"event": "reply", "ts": T.format(1), "author": "model", "text": answer},
               {"event": "finish", "ts": T.format(2), "summary": answer}]
    inf = infer([str(write(tmp_path, "run.jsonl", records))])
    decision = role_of(inf, "event=finish")
    assert decision.value == "skip" and decision.confidence >= CONFIDENT and "repeats" in decision.evidence


def test_a_kind_skipped_for_no_text_that_holds_a_list_of_prose_is_read(tmp_path):
    records = [{"type": "question", "time": T.format(0), "text": "Which EU country builds the most heat pumps?"},
               {"type": "plan", "time": T.format(1), "steps": ["1. Search the 2024 statistics release.",
                                                               "2. Read the primary table, not news."]},
               {"type": "answer", "time": T.format(2), "text": "Finland, by share of new homes in 2024."}]
    inf = infer([str(write(tmp_path, "r.jsonl", records))])
    decision = role_of(inf, "type=plan")
    assert decision.value == "reasoning" and decision.confidence >= CONFIDENT
