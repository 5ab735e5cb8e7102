"""`trajectory-cleaner inspect`: report, --json, --mapping, exit codes and one-line errors."""

from __future__ import annotations

import json

import yaml

from generator.answers import load_answers
from generator.cli import main

from .helpers import FIXTURES

HELPDESK = FIXTURES / "it_helpdesk" / "log" / "helpdesk.jsonl"
SUPPORT = FIXTURES / "support_desk" / "ticket_events"


def test_text_report_lists_structure_decisions_and_noise(capsys):
    assert main(["inspect", str(SUPPORT)]) == 0
    out = capsys.readouterr().out
    # its times carry no zone: the zone is its one open question
    for needed in ("Files", "Sessions:", "ticket_id", "Record kinds", "Timestamps:", "Proposed mapping",
                   "Skipped as noise", "sla_tick", "Open questions (1)", "timestamps.timezone",
                   "tickets-2026-05.jsonl:"):
        assert needed in out, needed
    assert "Please refund" not in out  # prose stays out of the default report


def test_questions_are_listed_with_candidates(capsys):
    assert main(["inspect", str(HELPDESK)]) == 0
    out = capsys.readouterr().out
    assert "Open questions (2)" in out  # day/month order, and the zone of its zone-less times
    assert "timestamps.layout" in out and "%m/%d/%Y %H:%M:%S" in out and "%d/%m/%Y %H:%M:%S" in out
    assert "timestamps.timezone" in out and "Europe/London" in out


def test_json_output_is_machine_readable(capsys):
    assert main(["inspect", str(HELPDESK), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["profile"]["records"] == 6
    assert data["inference"]["questions"][0]["key"] == "timestamps.layout"
    assert data["inference"]["mapping"]["session"]["field"] == "ticket"


def test_mapping_file_is_written_and_loads_as_answers(tmp_path, capsys):
    target = tmp_path / "mapping.yml"
    assert main(["inspect", str(SUPPORT), "--mapping", str(target), "--source", "helpdesk"]) == 0
    assert "wrote the proposed mapping" in capsys.readouterr().err
    mapping = load_answers(target)
    assert mapping["source"] == "helpdesk"
    assert mapping["session"] == {"by": "field", "field": "ticket_id", "missing": "fail"}


def test_mapping_file_marks_open_questions(tmp_path, capsys):
    target = tmp_path / "mapping.yml"
    assert main(["inspect", str(HELPDESK), "--mapping", str(target)]) == 0
    text = target.read_text()
    assert "# QUESTION timestamps.layout" in text
    assert yaml.safe_load(text)["timestamps"]["format"] == "strptime"
    capsys.readouterr()


def test_missing_input_is_a_usage_error(tmp_path, capsys):
    assert main(["inspect", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err and "error:" in err


def test_no_records_is_a_finding(tmp_path, capsys):
    (tmp_path / "readme.md").write_text("# not traces\n")
    assert main(["inspect", str(tmp_path)]) == 1
    assert "no JSON record could be read" in capsys.readouterr().err


def test_unwritable_mapping_folder_is_a_usage_error(tmp_path, capsys):
    assert main(["inspect", str(HELPDESK), "--mapping", str(tmp_path / "no" / "such" / "m.yml")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_help_has_an_example(capsys):
    try:
        main(["inspect", "--help"])
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "--mapping" in out and "exit codes" in out
