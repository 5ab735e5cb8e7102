"""The search's decider and scorer (generator/infer/search.py, score.py): a value is taken only when
the outputs say so, and text written twice counts against a candidate."""

from __future__ import annotations

from generator.infer.score import Score, _doubled, _lonely
from generator.infer.search import Candidate, decide
from generator.infer.trial import Trial


def _candidate(value, records, **score):
    fields = {"failed": 0, "lost": 0, "dropped": 0, "doubled": 0, "lonely": 0, "untimed": 0, "by_position": 0,
              "rules": 3, **score}
    return Candidate(value, None, Trial(0, {"s.jsonl": records}), Score(**fields))


META = {"role": "meta", "source": "x"}
USER = {"role": "user", "content": "please fix the failing test", "timestamp": "2026-01-01T00:00:00Z"}


def test_candidates_that_write_the_same_records_keep_the_inferred_value():
    here = _candidate("user", [META, USER])
    other = _candidate("skip", [META, USER], rules=2)
    verdict = decide("k", here, [other])
    assert verdict is not None and verdict.value == "user"


def test_a_candidate_that_loses_less_text_wins():
    here = _candidate("skip", [META], lost=1)
    other = _candidate("user", [META, USER])
    verdict = decide("k", here, [other])
    assert verdict is not None and verdict.value == "user"
    assert "text lost" in verdict.why


def test_differing_outputs_with_equal_hard_scores_stay_a_question():
    here = _candidate("UTC", [META, USER])
    other = _candidate("Europe/Berlin", [META, {**USER, "timestamp": "2025-12-31T23:00:00Z"}])
    assert decide("timestamps.timezone", here, [other]) is None


def test_nothing_is_settled_when_every_candidate_fails():
    here = _candidate("a", [], failed=1)
    other = _candidate("b", [META], failed=1)
    assert decide("k", here, [other]) is None


def test_a_text_written_by_two_records_of_a_session_counts_as_doubled():
    thought = {"role": "reasoning", "content": "I will list the files first", "timestamp": "t"}
    said = {"role": "assistant", "content": "I will list the files first", "timestamp": "t"}
    assert _doubled([META, thought, said]) == 1
    assert _doubled([META, said]) == 0


def test_a_session_without_a_user_or_an_assistant_is_lonely():
    assert _lonely([META, USER]) == 1
    assert _lonely([META, USER, {"role": "assistant", "content": "done"}]) == 0
