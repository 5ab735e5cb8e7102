"""compose.py, notes.py and questions.py: one input and its expected decision per rule."""

from __future__ import annotations

from generator.infer.compose import compose
from generator.infer.core import Decision
from generator.infer.notes import note_flag
from generator.questions import phrase


def test_links_beside_a_text_are_joined_under_their_field_name():
    records = [{"text": "Finland leads.", "sources": ["https://stats.example.org/a", "https://b.example.org/x"]}]
    assert compose(records, ("text",)) == {"join": ["text", {"path": "sources", "prefix": "Sources:\n"}]}


def test_files_a_message_lists_are_joined_by_their_names():
    records = [{"body": "See the log.", "attachments": [{"file_name": "run.log", "size": 10}]}]
    assert compose(records, ("body",)) == {"join": ["body", {"path": "attachments", "each": "file_name",
                                                              "prefix": "Attachments:\n"}]}


def test_one_attached_file_becomes_a_placeholder_and_stderr_follows_stdout():
    assert compose([{"body": "Here.", "attachment_name": "a.png"}, {"body": "Ok."}], ("body",)) == {
        "join": ["body", {"text": "[attachment: {attachment_name}]"}]}
    assert compose([{"stdout": "ok", "stderr": "warn"}], ("stdout",)) == {
        "join": ["stdout", {"path": "stderr", "prefix": "stderr:\n"}]}


def test_nothing_beside_the_text_means_no_join():
    assert compose([{"text": "hi", "id": "m1", "tags": ["a", "b"]}], ("text",)) is None


def test_internal_notes_by_flag_value():
    assert note_flag([{"body": "a", "internal": "yes"}, {"body": "b", "internal": "no"}]) == ("internal", ["yes"])
    assert note_flag([{"body": "a", "public": False}, {"body": "b", "public": True}]) == ("public", [False])


def test_a_flag_that_never_changes_marks_nothing():
    assert note_flag([{"body": "a", "internal": "no"}]) is None
    assert note_flag([{"body": "a", "public": True}, {"body": "b", "public": True}]) is None


def test_questions_are_worded_as_what_the_records_are():
    d = Decision("kinds[speaker=A].role", "user", 0.55, "no role name", ["user", "assistant", "skip"])
    phrased = phrase(d)
    assert phrased.question == "What are these records?"
    assert [value for _, value in phrased.options] == ["user", "assistant", "skip"]
    assert phrased.options[2][0].startswith("noise: skip")


def test_field_options_show_an_example_value():
    d = Decision("timestamps.fields", ["t"], 0.6, "two time fields", [["t"], ["sent_at"]])
    phrased = phrase(d, {"t": "2026-05-16T09:00:00Z"})
    assert phrased.question == "Which field holds each record's time?"
    assert phrased.options[0][0] == "`t`, e.g. 2026-05-16T09:00:00Z"


def test_no_question_shows_its_mapping_key():
    # the survey asked "meta.model? meta.model" (issue 35, defect 7: questions print mapping keys)
    for key in ("meta.model", "meta.cwd", "meta.git_branch", "sessions.without_user", "unknown_kinds"):
        phrased = phrase(Decision(key, ["model"], 0.6, "two fields disagree", [["gen_ai.response.model"], []]))
        assert key not in phrased.question and phrased.question.endswith("?"), phrased.question
    options = phrase(Decision("meta.model", ["model"], 0.6, "", [[]])).options
    assert [label for label, _ in options][-1] == "(none: leave it out)"
