"""Records a format marks as undone are a doubt: `new --yes` refuses rather than write them as history
(issue 35: a hermes export keeps a `rewound` turn beside the history that replaced it; once its results
were read, `--yes` rendered it as a turn of the session, exit 0)."""

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


def test_new_yes_refuses_and_renders_nothing(tmp_path):
    samples = tmp_path / "exports"
    samples.mkdir()
    for index in range(2):
        messages = _session(["active", "active", "rewound", "active"])
        (samples / f"s{index}.json").write_text(json.dumps({"id": f"s{index}", "messages": messages}), "utf-8")
    out = tmp_path / "project"
    done = subprocess.run([sys.executable, "-m", "generator", "new", str(samples), "--yes", "--json",
                           "--source", "agent", "-o", str(out)], cwd=REPO, capture_output=True, text=True,
                          check=False, timeout=300)
    assert done.returncode == 1, (done.stdout[-2000:], done.stderr[-2000:])
    report = json.loads(done.stdout)
    # refused on the doubt, or on the question the survey asks about the same records
    said = report.get("doubts", []) + [q.get("evidence", "") for q in report.get("questions", [])]
    assert any("`state` = `rewound`" in text for text in said), report
    assert "Traceback" not in done.stderr
    assert not out.exists()


def test_a_sentence_that_mentions_deleting_is_not_a_state(tmp_path):
    messages = _session(["active"] * 4)
    for n, message in enumerate(messages):
        message["text"] = "No files were deleted and postgres was not restarted." if n == 1 else f"step {n}"
    assert superseded_records(_profile(tmp_path, [messages]), {"kinds": []}) is None


def test_the_survey_can_skip_the_marked_records(tmp_path):
    from generator.infer import infer

    for index in range(2):
        messages = _session(["active", "active", "rewound", "active"])
        (tmp_path / f"s{index}.json").write_text(json.dumps({"id": f"s{index}", "messages": messages}), "utf-8")
    asked = next(d for d in infer([str(tmp_path)]).decisions if d.key == "kinds.undone")
    assert asked.value == "keep" and "skip" in asked.candidates  # the data's own reading, and the choice
    skipped = infer([str(tmp_path)], answers={"kinds.undone": "skip"})
    first = skipped.mapping["kinds"][0]
    assert first["match"] == {"state": "rewound"} and first["role"] == "skip"
    assert skipped.doubts == []  # the mapping now tells them apart
