"""inspect reads the samples with the runtime's reading rules (cleaner_runtime/shapes.py), says so
per file, and inference proposes the same rules as input.* settings (generator/infer/reading.py);
`new --yes` on a synthetic format of each shape renders a cleaner that writes the conversation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.infer.reading import reading_settings
from generator.inspect import profile_paths
from generator.inspect.report import report_text
from tests.formats.support import generator, run_cleaner

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "reading_rules"
EXPECTED = {  # by hand: each session's request then its reply, at the records' own times
    "s1": [("user", "Please summarise the quarterly report for me.", "2024-05-01T10:00:01Z"),
           ("assistant", "The report shows revenue grew by ten percent.", "2024-05-01T10:00:05Z")],
    "s2": [("user", "What is the capital of Australia, please?", "2024-05-02T10:00:01Z"),
           ("assistant", "The capital of Australia is Canberra.", "2024-05-02T10:00:05Z")],
}


def _profile(folder: str):
    return profile_paths([str(FIXTURES / folder)])


def test_tagged_lines_are_read_as_records():
    profile = _profile("tagged")
    assert profile.records_read == 6 and not any(f.bad_count for f in profile.files)
    assert {r.data["tag"] for r in profile.recs} == {"session.start", "event"}
    assert reading_settings(profile.files) == {"tagged": {"tag": "tag", "value": "value"}}


def test_flattened_documents_are_rebuilt():
    profile = _profile("flattened")
    assert profile.records_read == 4
    assert all(f.records_path == ("messages",) for f in profile.files)
    assert reading_settings(profile.files) == {"unflatten": True}


def test_json_strings_are_decoded_where_no_structure_holds_records():
    profile = _profile("json_strings")
    assert profile.records_read == 4
    assert reading_settings(profile.files) == {"decode": ["messages"]}


def test_a_json_string_beside_real_records_is_left_a_string(tmp_path):
    path = tmp_path / "span.json"
    copy = json.dumps([{"role": "user", "content": "a copy of the request"}])
    path.write_text(json.dumps({"raw": copy, "messages": [{"role": "user", "content": "the request itself"}]}),
                    encoding="utf-8")
    profile = profile_paths([str(path)])
    assert reading_settings(profile.files) == {}
    assert [r.data["content"] for r in profile.recs] == ["the request itself"]


def test_lists_that_continue_the_records_are_read_after_them(tmp_path):
    path = tmp_path / "span.json"
    path.write_text(json.dumps({"input_messages": [{"role": "user", "text": "first"}, {"role": "tool", "text": "2"}],
                                "output_messages": [{"role": "assistant", "text": "last", "finish": "stop"}],
                                "tools": [{"name": "get", "schema": {}}]}, indent=1), encoding="utf-8")
    profile = profile_paths([str(path)])
    assert [r.data["text"] for r in profile.recs] == ["first", "2", "last"]
    assert reading_settings(profile.files) == {"more_records": ["output_messages"]}


def test_the_report_names_each_rule_and_its_setting():
    report = report_text(_profile("flattened"))
    assert "input.unflatten" in report
    assert "input.tagged" in report_text(_profile("tagged"))


@pytest.mark.parametrize("shape", ["tagged", "flattened", "json_strings"])
def test_new_yes_renders_a_cleaner_that_reads_each_shape(shape, tmp_path):
    done = generator("new", FIXTURES / shape, "--yes", "--source", "syn", "-o", tmp_path / "cleaner")
    assert done.returncode == 0, done.stdout + done.stderr
    cleaned = run_cleaner(tmp_path / "cleaner", FIXTURES / shape, tmp_path / "out")
    assert cleaned.returncode == 0, cleaned.stdout + cleaned.stderr
    outputs = sorted((tmp_path / "out").rglob("*.jsonl"))
    assert len(outputs) == 2
    for output, session in zip(outputs, ("s1", "s2"), strict=True):
        lines = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
        assert lines[0]["role"] == "meta"
        assert [(r["role"], r["content"], r["timestamp"]) for r in lines[1:]] == EXPECTED[session]
