"""speakers.py, crosscheck.streamed_messages and embedded's repeated call lists, each on a small
synthetic multi-agent log: the input records and the decision expected of them."""

from __future__ import annotations

import json

from generator.infer import CONFIDENT, infer
from generator.infer.speakers import speaker_field


def write(tmp_path, records: list[dict]):
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def decision(inference, key: str):
    found = [d for d in inference.decisions if d.key == key]
    return found[-1] if found else None


T = "2026-05-16T09:00:{:02d}Z"


def chat(speakers: list[str]) -> list[dict]:
    lines = ["Summarise the failed payments of yesterday for me.", "Three payments failed, two for low funds.",
             "Which merchant had the most failures overall?", "Merchant M-2207 had the most, with three."]
    return [{"type": "TextMessage", "source": who, "created_at": T.format(i), "content": lines[i % 4]}
            for i, who in enumerate(speakers)]


class Rec:
    def __init__(self, data):
        self.data = data


def test_the_user_named_speaker_is_the_user_and_every_other_speaker_an_agent(tmp_path):
    inf = infer([write(tmp_path, chat(["user", "writer", "user_proxy", "researcher"]))])
    role = decision(inf, "kinds[all].role")  # one type only: the records are one kind
    assert role.value == "assistant" and role.confidence >= CONFIDENT
    rules = inf.mapping["kinds"]
    assert [r["role"] for r in rules] == ["user", "assistant"]  # the user's rule first: it is the narrower
    assert rules[0]["match"] == {"source": ["user", "user_proxy"]} and "match" not in rules[1]
    assert not inf.questions


def test_speakers_named_by_person_ids_decide_nothing():
    recs = [Rec({"user": u, "text": "hello there, all fine?"}) for u in ("U07MAYA", "U05HELP", "U07MAYA")]
    assert speaker_field(recs) is None


def test_a_speaker_named_system_makes_the_split_unsafe():
    recs = [Rec({"source": s, "text": "hello there, all fine?"}) for s in ("user", "system", "writer")]
    assert speaker_field(recs) is None


def test_a_field_not_named_like_a_speaker_is_not_read_as_one():
    recs = [Rec({"channel": c, "text": "hello there, all fine?"}) for c in ("user", "web", "email")]
    assert speaker_field(recs) is None


def test_streamed_chunks_of_a_final_message_are_skipped_as_repeats(tmp_path):
    records = chat(["user", "writer"])
    final = {"id": "m-9", "type": "TextMessage", "source": "writer", "created_at": T.format(9),
             "content": "Merchant M-2207 had 3 failed card payments on 2026-05-15 totalling 1,860 NOK."}
    chunks = [{"id": f"c-{i}", "type": "Chunk", "source": "writer", "created_at": T.format(5 + i),
               "content": text, "full_message_id": "m-9"}
              for i, text in enumerate(["Merchant M-2207 had 3 failed", " card payments on 2026-05-15",
                                        " totalling 1,860 ..."])]
    records = [{**r, "id": f"r-{i}"} for i, r in enumerate(records)] + chunks + [final]
    inf = infer([write(tmp_path, records)])
    role = decision(inf, "kinds[type=Chunk].role")
    assert role.value == "skip" and role.confidence >= CONFIDENT and "full_message_id" in role.evidence


def test_chunks_whose_text_the_message_does_not_hold_are_not_skipped(tmp_path):
    final = {"id": "m-9", "type": "TextMessage", "source": "writer", "created_at": T.format(9),
             "content": "Merchant M-2207 had 3 failed card payments on 2026-05-15."}
    chunk = {"id": "c-1", "type": "Chunk", "source": "writer", "created_at": T.format(5),
             "content": "An entirely different draft the model threw away", "full_message_id": "m-9"}
    records = [{**r, "id": f"r-{i}"} for i, r in enumerate(chat(["user", "writer"]))] + [chunk, final]
    inf = infer([write(tmp_path, records)])
    assert decision(inf, "kinds[type=Chunk].role").value != "skip"


def _call(call_id: str, name: str, args: dict) -> dict:
    return {"id": call_id, "name": name, "arguments": json.dumps(args)}


def test_a_summary_event_repeating_earlier_calls_is_skipped(tmp_path):
    calls = [_call("call_1", "query_payments", {"merchant": "M-2207"}), _call("call_2", "get_rate", {"base": "NOK"})]
    results = [{"call_id": "call_1", "name": "query_payments", "content": "3 failed payments"},
               {"call_id": "call_2", "name": "get_rate", "content": "0.0862"}]
    records = chat(["user"]) + [
        {"type": "ToolCallRequestEvent", "source": "researcher", "created_at": T.format(2), "content": calls},
        {"type": "ToolCallExecutionEvent", "source": "researcher", "created_at": T.format(3), "content": results},
        {"type": "ToolCallSummaryMessage", "source": "researcher", "created_at": T.format(4),
         "content": "3 failed payments\n0.0862", "tool_calls": calls, "results": results},
        {"type": "TextMessage", "source": "writer", "created_at": T.format(5),
         "content": "Three payments failed; the rate is 0.0862 EUR per NOK."}]
    inf = infer([write(tmp_path, records)])
    role = decision(inf, "kinds[type=ToolCallSummaryMessage].role")
    assert role.value == "skip" and role.confidence >= CONFIDENT and "ToolCallRequestEvent" in role.evidence
    assert decision(inf, "kinds[type=ToolCallRequestEvent].role").value == "assistant"


def test_a_call_list_with_the_same_ids_but_other_arguments_is_not_a_repeat(tmp_path):
    first = [_call("call_1", "query_payments", {"merchant": "M-2207"})]
    second = [_call("call_1", "query_payments", {"merchant": "M-9999"})]
    records = chat(["user"]) + [
        {"type": "Request", "created_at": T.format(2), "content": first},
        {"type": "Retry", "created_at": T.format(3), "content": second}]
    inf = infer([write(tmp_path, records)])
    assert decision(inf, "kinds[type=Retry].role").value != "skip"


def test_people_do_not_split_kinds_but_slots_that_recur_in_every_file_do(tmp_path):
    """`user: U07MAYA` names a person: a role rule keyed on it is wrong for the next person. Labels
    that recur in every file (a transcript's spk_0 / spk_1) are slots, and do tell kinds apart."""
    def messages(who: list[str]) -> list[dict]:
        return [{"user": u, "ts": T.format(i), "text": f"message number {i} from whoever wrote it"}
                for i, u in enumerate(who)]
    one = tmp_path / "one"
    one.mkdir()
    (one / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in messages(["U07MAYA", "U05BOT"] * 3)))
    keys = {d.key for d in infer([str(one)]).decisions if d.key.endswith("].role")}
    assert not any("U07MAYA" in k for k in keys)
    two = tmp_path / "two"
    two.mkdir()
    for name in ("a", "b"):
        (two / f"{name}.jsonl").write_text("".join(json.dumps({"speaker": r.pop("user"), **r}) + "\n"
                                                   for r in messages(["spk_0", "spk_1"] * 3)))
    keys = {d.key for d in infer([str(two)]).decisions if d.key.endswith("].role")}
    assert {"kinds[speaker=spk_0].role", "kinds[speaker=spk_1].role"} <= keys
    (two / "b.jsonl").unlink()  # one conversation, a field named as the speaker: asked about, value by value
    keys = {d.key for d in infer([str(two)]).decisions if d.key.endswith("].role")}
    assert {"kinds[speaker=spk_0].role", "kinds[speaker=spk_1].role"} <= keys
