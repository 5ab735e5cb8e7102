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


def test_a_loss_every_value_shares_settles_nothing():
    # every role of a kind whose text no rule reads writes the same records: the loss is the
    # mapping's (no content planned), not the data's, so the value is not taken on that ground
    here = _candidate("skip", [META, USER], lost=3)
    other = _candidate("assistant", [META, USER], lost=3)
    assert decide("kinds[k].role", here, [other]) is None


def test_a_call_read_twice_counts_as_doubled(tmp_path):
    from collections import Counter

    from generator.infer.score import score
    from generator.infer.trial import Samples

    call = {"role": "assistant", "content": None, "timestamp": "2026-01-01T00:00:01Z",
            "tool_calls": [{"id": "c1", "name": "ls", "args": "{}"}, {"id": "c1__2", "name": "ls", "args": "{}"}]}
    trial = Trial(0, {"s.jsonl": [META, USER, call]}, Counter({"duplicate call ids renamed": 1}))
    mapping = {"input": {"include": ["*.jsonl"]}, "kinds": []}
    assert score(trial, mapping, Samples(tmp_path, 0)).doubled == 1


def test_new_yes_refuses_our_swe_agent_trajectory(tmp_path):
    # SWE-agent's history: each step's `thought` is also in its `content` (once written twice, and
    # refused for it; now written once), and its calls are a Python repr no reader parses, so their
    # command lines (`action`) reach no output: refused, never rendered
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    raw = Path(__file__).resolve().parents[1] / "fixtures" / "swe_agent" / "traj" / "raw"
    samples = shutil.copytree(raw, tmp_path / "raw")
    done = subprocess.run([sys.executable, "-m", "generator", "new", str(samples), "--yes", "-o", str(tmp_path / "p")],
                          check=False, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 1, done.stderr
    said = done.stdout + done.stderr
    assert "`action`" in said and "Traceback" not in said and not (tmp_path / "p").exists()
