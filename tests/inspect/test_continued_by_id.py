"""A batch whose runs are created in one list and completed in another by the same ids (LangSmith's
ingest batch `{post: [...], patch: [...]}`, issue 35): both lists are the records, in document order,
and the records path is sure, not a question between two halves of one run."""

from __future__ import annotations

import json

from generator.infer import infer
from generator.inspect.shaping import continued_lists


def _batch(ids: list) -> dict:
    return {"post": [{"id": i, "run_type": "llm", "start_time": "2026-05-16T09:00:00+00:00",
                      "inputs": {"messages": [{"role": "user", "content": "Write a haiku about rain."}]}} for i in ids],
            "patch": [{"id": i, "end_time": "2026-05-16T09:00:03+00:00",
                       "outputs": {"choices": [{"message": {"role": "assistant", "content": "Soft rain on tin roofs"}}]}}
                      for i in ids]}


def test_lists_of_the_same_ids_continue_each_other():
    assert continued_lists(_batch(["run-7f3a1c", "run-9b2e44"]), ("post",)) == [("post",), ("patch",)]
    other = _batch(["run-7f3a1c", "run-9b2e44"])
    other["patch"][1]["id"] = "run-0c55d1"  # not the same runs: a list of its own
    assert continued_lists(other, ("post",)) == [("post",)]


def test_ids_that_are_not_scalars_say_nothing_of_identity():
    hostile = _batch(["run-7f3a1c"])
    hostile["post"][0]["id"] = ["run-7f3a1c"]
    hostile["patch"][0]["id"] = ["run-7f3a1c"]
    assert continued_lists(hostile, ("post",)) == [("post",)]  # no crash on an unhashable id
    # messages and their ratings both numbered 1, 2, 3: counters, not the same things
    counted = {"messages": [{"id": n, "role": "user", "content": "hi"} for n in (1, 2, 3)],
               "ratings": [{"id": n, "score": 5} for n in (1, 2, 3)]}
    assert continued_lists(counted, ("messages",)) == [("messages",)]


def test_the_records_path_of_a_continued_list_is_sure(tmp_path):
    for n in (1, 2):
        (tmp_path / f"batch-{n}.json").write_text(json.dumps(_batch([f"run-{n}-7f3a1c"])), encoding="utf-8")
    decision = next(d for d in infer([str(tmp_path)]).decisions if d.key == "input.records_path")
    assert decision.value == "post" and decision.sure and "continued by `patch`" in decision.evidence
    assert "patch" in decision.candidates  # still a choice in the survey
