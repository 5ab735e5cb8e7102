"""The benchmark sets aside a real format whose expected files Letta's rules reject
(real_support.yardstick_rejected): no cleaner may write such a file, so a refusal there is not a
miss. The check reads the files as the judge compares them: meta trimmed to trajectory-v1's keys
and the format's fallback time in records without one (both are conventions of the old shared
yardsticks, not faults), and nothing else forgiven."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .real_support import RealCase, yardstick_rejected

META = {"role": "meta", "source": "demo", "file": "a.jsonl", "session_id": "s1"}  # old extra keys
USER = {"role": "user", "content": "hi", "timestamp": "2026-05-16T09:00:00Z"}
REPLY = {"role": "assistant", "content": "hello"}  # no time: the fallback fills it


def _case(tmp_path: Path, records: list[dict]) -> RealCase:
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "a.jsonl").write_text("{}\n", encoding="utf-8")
    (tmp_path / "expected").mkdir()
    (tmp_path / "expected" / "a.jsonl.expected.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return RealCase(name="demo", where="shared", source="demo", session="file", note="",
                    timestamp_fallback="2026-05-16T09:00:01Z", compare="records",
                    raw=tmp_path / "raw", expected=tmp_path / "expected")


def test_a_yardstick_letta_accepts_as_compared_is_kept(tmp_path):
    assert yardstick_rejected(_case(tmp_path, [META, USER, REPLY]), tmp_path / "work") == ""


def test_a_yardstick_without_a_user_record_is_set_aside_with_the_reason(tmp_path):
    why = yardstick_rejected(_case(tmp_path, [META, REPLY]), tmp_path / "work")
    assert "no-user" in why and "user record" in why


def test_a_yardstick_with_a_record_the_schema_rejects_is_set_aside(tmp_path):
    bad = {"role": "tool", "tool_call_id": "nowhere", "content": 3, "timestamp": "2026-05-16T09:00:02Z"}
    assert yardstick_rejected(_case(tmp_path, [META, USER, REPLY, bad]), tmp_path / "work") != ""


def test_a_line_that_is_no_record_is_reported_not_a_crash(tmp_path):
    case = _case(tmp_path, [META, USER, REPLY])
    path = case.expected / "a.jsonl.expected.jsonl"
    path.write_text(path.read_text(encoding="utf-8") + "not json\n[1]\n", encoding="utf-8")
    assert yardstick_rejected(case, tmp_path / "work") != ""


def test_a_validator_that_cannot_run_stops_the_judge_rather_than_set_every_format_aside(tmp_path, monkeypatch):
    bad = tmp_path / "lerim.toml"
    bad.write_text("this is = = not toml\n", encoding="utf-8")
    monkeypatch.setenv("LERIM_CONFIG", str(bad))
    with pytest.raises(RuntimeError, match="validate exit 2"):
        yardstick_rejected(_case(tmp_path, [META, USER, REPLY]), tmp_path / "work")
