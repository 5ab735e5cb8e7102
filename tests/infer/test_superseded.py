"""Records a format marks as undone (issue 35: a hermes export keeps a `rewound` turn beside the history
that replaced it; once its results were read, `--yes` rendered it as a turn of the session, exit 0).

What was said and then taken back (a message of a kind that also holds unmarked messages) is dropped,
counted, as Letta's adapters drop what the harness excludes from replay; any other marked record (a tool
result whose status says `reverted` is a fact of what happened) stays a doubt: `new --yes` refuses."""

import json
import subprocess
import sys
from pathlib import Path

from generator.infer.superseded import superseded_records
from generator.inspect import profile_paths

REPO = Path(__file__).resolve().parents[2]


def _session(states: list[str]) -> list[dict]:
    """A chat whose every message carries a ``state``; the ones given mark each turn in order."""
    roles = ["user", "assistant"] * len(states)
    return [{"role": role, "state": state, "text": f"message {n}: about the parser test",
             "timestamp": f"2026-07-10T09:00:{n:02d}Z"} for n, (role, state) in enumerate(zip(roles, states, strict=False))]


def _profile(tmp_path: Path, sessions: list[list[dict]]):
    for index, messages in enumerate(sessions):
        (tmp_path / f"s{index}.json").write_text(json.dumps({"id": f"s{index}", "messages": messages}), "utf-8")
    return profile_paths([str(tmp_path)])


def test_a_value_meaning_undone_in_some_records_is_a_doubt(tmp_path):
    profile = _profile(tmp_path, [_session(["active", "active", "rewound", "active"])])
    doubt = superseded_records(profile, {"kinds": [{"match": {"role": "user"}}, {"match": {"role": "assistant"}}]})
    assert doubt is not None and "`state` = `rewound`" in doubt and doubt.startswith("1 sampled record(s)")


def test_words_of_a_longer_value_count(tmp_path):
    profile = _profile(tmp_path, [_session(["kept", "discarded_by_user", "kept", "kept"])])
    assert "discarded_by_user" in (superseded_records(profile, {"kinds": []}) or "")


def test_no_doubt_when_no_record_is_marked_or_every_record_is(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert superseded_records(_profile(tmp_path / "a", [_session(["active"] * 4)]), {"kinds": []}) is None
    # a value every record holds says nothing that tells records apart (an export of deleted chats)
    assert superseded_records(_profile(tmp_path / "b", [_session(["deleted"] * 4)]), {"kinds": []}) is None


def test_no_doubt_when_the_mapping_already_tells_the_records_apart(tmp_path):
    profile = _profile(tmp_path, [_session(["active", "rewound", "active", "active"])])
    kinds = [{"match": {"role": "assistant", "state": "rewound"}, "role": "skip"}, {"match": {"role": "assistant"}}]
    assert superseded_records(profile, {"kinds": kinds}) is None


def _new_yes(tmp_path: Path, sessions: list[list[dict]]) -> tuple[subprocess.CompletedProcess, Path]:
    samples = tmp_path / "exports"
    samples.mkdir()
    for index, messages in enumerate(sessions):
        (samples / f"s{index}.json").write_text(json.dumps({"id": f"s{index}", "messages": messages}), "utf-8")
    out = tmp_path / "project"
    done = subprocess.run([sys.executable, "-m", "generator", "new", str(samples), "--yes", "--json",
                           "--source", "agent", "-o", str(out)], cwd=REPO, capture_output=True, text=True,
                          check=False, timeout=300)
    assert "Traceback" not in done.stderr
    return done, out


def test_new_yes_drops_a_message_taken_back_and_counts_it(tmp_path):
    done, out = _new_yes(tmp_path, [_session(["active", "active", "rewound", "active"]) for _ in range(2)])
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    assert "records marked rewound (skip)" in (out / "README.md").read_text("utf-8")  # named in what is dropped
    cleaned = subprocess.run([sys.executable, str(out / "clean_to_trajectory_jsonl.py"), "--input",
                              str(tmp_path / "exports"), "--output", str(tmp_path / "out")],
                             capture_output=True, text=True, check=False, timeout=300)
    assert cleaned.returncode == 0, cleaned.stderr[-2000:]
    written = "".join(p.read_text("utf-8") for p in sorted((tmp_path / "out").rglob("*.jsonl")))
    assert "message 2:" not in written and "message 3:" in written and "message 1:" in written
    assert "2 x kind 'records marked rewound (skip)'" in cleaned.stderr + cleaned.stdout  # counted, named


def test_a_kind_every_record_of_which_is_marked_is_not_a_message_taken_back(tmp_path):
    """`state` = `rewound` on every assistant message: the mark is the kind's, not a turn taken back."""
    sessions = []
    for _ in range(2):
        messages = _session(["active"] * 4)
        for message in messages:
            if message["role"] == "assistant":
                message["state"] = "rewound"
        sessions.append(messages)
    done, out = _new_yes(tmp_path, sessions)
    assert done.returncode == 1, (done.stdout[-2000:], done.stderr[-2000:])
    assert not out.exists()


def test_a_result_marked_reverted_stays_a_doubt(tmp_path):
    """An ops run whose deploy result says `reverted`: what happened, never dropped on a word."""
    sessions = []
    for index in range(2):
        base = f"2026-07-10T09:0{index}"
        sessions.append([
            {"role": "user", "status": "ok", "text": "deploy build 41 to staging", "timestamp": f"{base}:00Z"},
            {"role": "assistant", "status": "ok", "text": "", "timestamp": f"{base}:01Z",
             "tool_calls": [{"id": "c1", "name": "deploy", "arguments": "{\"build\": 41}"}]},
            {"role": "tool", "tool_call_id": "c1", "status": "reverted", "text": "health check failed, rolled back",
             "timestamp": f"{base}:02Z"},
            {"role": "assistant", "status": "ok", "text": "", "timestamp": f"{base}:03Z",
             "tool_calls": [{"id": "c2", "name": "deploy", "arguments": "{\"build\": 40}"}]},
            {"role": "tool", "tool_call_id": "c2", "status": "ok", "text": "build 40 is live", "timestamp": f"{base}:04Z"},
            {"role": "assistant", "status": "ok", "text": "Build 41 failed its health check; 40 is live.",
             "timestamp": f"{base}:05Z"},
        ])
    done, out = _new_yes(tmp_path, sessions)
    assert done.returncode == 1, (done.stdout[-2000:], done.stderr[-2000:])
    report = json.loads(done.stdout)
    said = report.get("doubts", []) + [q.get("evidence", "") for q in report.get("questions", [])]
    assert any("`status` = `reverted`" in text for text in said), report
    assert not out.exists()


def test_a_sentence_that_mentions_deleting_is_not_a_state(tmp_path):
    messages = _session(["active"] * 4)
    for n, message in enumerate(messages):
        message["text"] = "No files were deleted and postgres was not restarted." if n == 1 else f"step {n}"
    assert superseded_records(_profile(tmp_path, [messages]), {"kinds": []}) is None


def test_the_survey_can_keep_the_marked_records(tmp_path):
    from generator.infer import infer

    for index in range(2):
        messages = _session(["active", "active", "rewound", "active"])
        (tmp_path / f"s{index}.json").write_text(json.dumps({"id": f"s{index}", "messages": messages}), "utf-8")
    asked = next(d for d in infer([str(tmp_path)]).decisions if d.key == "kinds.undone")
    assert asked.value == "skip" and "keep" in asked.candidates  # Letta's reading, and the choice
    first = infer([str(tmp_path)]).mapping["kinds"][0]
    assert first["match"] == {"state": "rewound"} and first["role"] == "skip"
    kept = infer([str(tmp_path)], answers={"kinds.undone": "keep"})
    assert all((k.get("match") or {}).get("state") != "rewound" for k in kept.mapping["kinds"])
    assert kept.doubts == []  # answered: the person said they belong
