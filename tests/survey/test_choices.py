"""generator/choices.py: a decision's candidates as choices between the outputs they write."""

from __future__ import annotations

from pathlib import Path

from generator.choices import describe, offer, try_value
from generator.infer.core import Decision
from generator.infer.trial import Trial
from generator.inspect import profile_paths

AMBIGUOUS = Path(__file__).resolve().parent / "samples" / "ambiguous"
USER = {"role": "user", "content": "Why does the build fail?", "timestamp": "2026-05-16T09:00:00Z"}
THOUGHT = {"role": "reasoning", "content": "Look at the CI log first.", "timestamp": "2026-05-16T09:00:05Z"}
CALL = {"role": "assistant", "content": None, "timestamp": "2026-05-16T09:00:05Z",
        "tool_calls": [{"id": "c1", "name": "bash", "args": '{"cmd":"cat ci.log"}'}]}
TEXT = {"role": "assistant", "content": "Look at the CI log first.", "timestamp": "2026-05-16T09:00:05Z"}


def _trial(*records: dict) -> Trial:
    return Trial(0, {"s1.jsonl": [{"role": "meta", "source": "x"}, *records]})


def test_two_candidates_writing_different_records_are_two_choices_described_where_they_differ():
    choices = describe("kinds[type=step].emit", [
        (["reasoning", "tool_call"], None, _trial(USER, THOUGHT, CALL)),
        ("assistant", None, _trial(USER, TEXT)),
    ])
    assert not choices.settled
    assert choices.position == ("s1.jsonl", 2)  # the meta and the user record are the same in both
    first, second = choices.options
    assert first.label == 'reasoning "Look at the CI log first." + assistant text a `bash` call ({"cmd":"cat ci.log"})'
    assert second.label == 'assistant text "Look at the CI log first."'
    assert "kinds[" not in first.label + second.label


def test_candidates_writing_the_same_records_collapse_into_one_settled_choice():
    choices = describe("timestamps.timezone", [("UTC", None, _trial(USER)), ("Etc/UTC", None, _trial(USER))])
    assert choices.settled
    assert [o.values for o in choices.options] == [["UTC", "Etc/UTC"]]
    assert choices.position is None


def test_a_failing_candidate_says_why_and_one_working_output_is_settled():
    failed = Trial(2, errors=["mapping: kinds[0].role: 'speaker' is not one of the roles"])
    choices = describe("kinds[speaker=A].role", [("user", None, _trial(USER)), ("speaker", None, failed)])
    assert choices.settled
    assert choices.options[1].label.startswith("its cleaner fails: mapping:")
    assert "is not one of the roles" in choices.options[1].label


def test_shown_texts_are_redacted_and_shortened():
    secret = {"role": "user", "content": "my token is ghp_abcdefghijklmnopqrstuvwxyz0123456789AB " + "x" * 200}
    choices = describe("k", [("a", None, _trial(secret)), ("b", None, _trial(USER))])
    label = choices.options[0].label
    assert "ghp_abcdefghij" not in label and "REDACTED" in label
    assert len(label) < 120 and label.endswith('…"')


def test_offer_runs_each_candidate_through_the_search_and_the_cleaner():
    profile = profile_paths([str(AMBIGUOUS)])
    decision = Decision("kinds[speaker=A].role", "user", 0.5, "two speakers", ["assistant"])
    choices = offer(decision, profile, [str(AMBIGUOUS)])
    labels = [o.label for o in choices.options]
    assert labels == ['user text "The nightly export job failed again; can you look?"',
                      'assistant text "The nightly export job failed again; can you look?"']
    assert choices.options[1].inference.mapping != choices.options[0].inference.mapping


def test_a_typed_value_is_checked_at_once():
    profile = profile_paths([str(AMBIGUOUS)])
    assert try_value("kinds[speaker=A].role", "user", profile, [str(AMBIGUOUS)]) is None
    problem = try_value("kinds[speaker=A].role", "a-role-that-does-not-exist", profile, [str(AMBIGUOUS)])
    assert problem


def test_a_candidate_that_writes_no_session_names_the_skip():
    summary = "sessions skipped:  1\n  /tmp/x/chat.jsonl: no assistant record (sessions.without_assistant: skip)\n"
    choices = describe("k", [("a", None, _trial(USER)), ("b", None, Trial(0, {}, summary=summary))])
    assert choices.options[1].label == "writes no session (no assistant record (sessions.without_assistant: skip))"


def test_summary_lines_name_the_records_and_outcomes_not_mapping_keys():
    from generator.questions import summary_line

    emit = Decision("kinds[type=step].emit", [{"as": "reasoning", "field": "thought"}, {"as": "text", "field": "content"}],
                    0.9, "", [])
    path = Decision("input.records_path", None, 0.95, "", [])
    assert summary_line(emit) == "records with type=step: hold reasoning from `thought`, then text from `content`"
    assert summary_line(path) == "where the records are (none: each line or document is a record)"


def test_when_every_candidate_fails_the_question_is_not_settled():
    failed = Trial(2, errors=["error: /tmp/trajectory-cleaner-trial-ab12/s1.jsonl:3: no assistant record"])
    choices = describe("kinds[type=x].role", [("user", None, failed), ("skip", None, Trial(0, {}))])
    assert not choices.settled and choices.working == []
    assert [o.label for o in choices.options] == ["its cleaner fails: error: s1.jsonl:3: no assistant record",
                                                  "writes no session"]


def test_a_value_inference_cannot_plan_with_is_a_failed_choice_not_a_crash(monkeypatch):
    import generator.choices as choices_module

    real = choices_module.search

    def refusing(profile, paths, *, source=None, answers=None):
        if answers.get("kinds[speaker=A].role") == "assistant":
            raise TypeError("unhashable type: 'list'")
        return real(profile, paths, source=source, answers=answers)

    monkeypatch.setattr(choices_module, "search", refusing)
    profile = profile_paths([str(AMBIGUOUS)])
    decision = Decision("kinds[speaker=A].role", "user", 0.5, "two speakers", ["assistant"])
    choices = offer(decision, profile, [str(AMBIGUOUS)])
    assert choices.settled and choices.working[0].value == "user"
    assert choices.options[1].label == "its cleaner fails: inference: TypeError: unhashable type: 'list'"
