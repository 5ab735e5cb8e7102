"""richtext.py, notices.py, speakers.people_beside_bots and inspect.splits.key_roles, on a small
chat export modelled on Slack's (one JSON array of messages per channel-day): input and decision."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from generator.infer import infer
from generator.infer.notices import is_templated
from generator.infer.richtext import plain_over_rich

REPO = Path(__file__).resolve().parents[2]


def rich(text: str) -> list:
    return [{"type": "rich_text", "elements": [{"type": "rich_text_section",
                                                "elements": [{"type": "text", "text": text}]}]}]


def person(ts: str, text: str, **extra) -> dict:
    return {"type": "message", "user": "U07MAYA", "text": text, "ts": ts, "blocks": rich(text), **extra}


def bot(ts: str, text: str) -> dict:
    return {"type": "message", "user": "U05HELPBOT", "bot_id": "B05HELP", "text": text, "ts": ts,
            "bot_profile": {"id": "B05HELP", "name": "Billing Helper"}}


def day() -> list[dict]:
    return [
        {"type": "message", "subtype": "channel_join", "user": "U07MAYA", "ts": "1778921400.000100",
         "text": "<@U07MAYA> has joined the channel"},
        person("1778922000.000200", "Our March invoice shows 14 seats but we only have 11 active users.",
               reply_count=2, latest_reply="1778922074.000500"),
        bot("1778922012.000300", "Thanks! Looking at the seat history for your workspace now."),
        {"type": "message", "subtype": "channel_join", "user": "U09OPS", "ts": "1778922030.000400",
         "text": "<@U09OPS> has joined the channel"},
        bot("1778922074.000500", "Three seats stayed assigned to deactivated accounts; I have released them."),
        person("1778922130.000600", "Thank you, that explains the difference on the invoice."),
    ]


def write(tmp_path, records: list[dict]) -> list[str]:
    folder = tmp_path / "help-billing"
    folder.mkdir(exist_ok=True)
    (folder / "2026-05-16.json").write_text(json.dumps(records, indent=1), encoding="utf-8")
    return [str(folder)]


def roles(inf) -> dict[str, str]:
    return {k["name"]: k["role"] for k in inf.mapping["kinds"]}


def test_plain_text_beside_blocks_that_repeat_it_is_the_content():
    records = [person("1", "Hello there, the invoice is wrong."), bot("2", "Let me check that for you.")]
    assert plain_over_rich(records, ("blocks",), ("text",))
    other = [person("1", "Hello there, the invoice is wrong.", blocks=rich("Something else entirely"))]
    assert not plain_over_rich(other, ("blocks",), ("text",))


def test_templated_texts_differ_only_in_the_ids_they_name():
    assert is_templated(["<@U07MAYA> has joined the channel", "<@U09OPS> has joined the channel"])
    assert not is_templated(["<@U07MAYA> has joined the channel"])  # one record says nothing
    assert not is_templated(["Please check my invoice", "Please check my order"])
    assert not is_templated(["same words", "same words"])


def test_a_slack_like_day_is_read_without_a_question(tmp_path):
    inf = infer(write(tmp_path, day()))
    assert not inf.questions, [q.key for q in inf.questions]
    by_role = {}
    for rule in inf.mapping["kinds"]:
        by_role.setdefault(rule["role"], []).append(rule)
    assert [r.get("match") for r in by_role["skip"]] == [{"subtype": "channel_join"}]
    assert all(r["content"] == "text" or r["content"]["join"][0] == "text"
               for r in by_role["user"] + by_role["assistant"])
    assert all("bot_id" in r.get("has", []) or "bot_profile" in r.get("has", []) for r in by_role["assistant"])
    assert inf.mapping["blocks"]["types"] == {}  # the blocks re-render the text: nothing asked about them


def test_a_count_or_a_reference_to_other_records_names_no_speaker(tmp_path):
    inf = infer(write(tmp_path, day()))
    thread_start = next(r for r in inf.mapping["kinds"] if "reply_count" in r.get("has", []))
    assert thread_start["role"] == "user"  # `reply_count` sounds like a reply, but counts other records


def test_inference_is_the_same_whatever_the_hash_seed(tmp_path):
    paths = write(tmp_path, day())
    program = ("import json, sys; from generator.infer import infer; "
               "print(json.dumps(infer(sys.argv[1:], source='x').mapping, sort_keys=True))")
    outputs = set()
    for seed in ("0", "1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", program, *paths], capture_output=True, text=True, env=env,
                              cwd=REPO, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1
