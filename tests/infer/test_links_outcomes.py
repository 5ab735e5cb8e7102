"""links.py and outcomes.py: which values can link a call to its result, and how a result says
it failed; one input and its expected decision per rule."""

from __future__ import annotations

from generator.infer.links import constant_within_sessions
from generator.infer.outcomes import error_text, outcome


def test_a_value_every_record_of_a_session_repeats_is_not_a_link():
    assert constant_within_sessions([("t1", "T-1"), ("t1", "T-1"), ("t2", "T-2")])  # a ticket id
    assert not constant_within_sessions([("s", "call_1"), ("s", "call_2"), ("t", "call_1")])
    assert not constant_within_sessions([("s", "call_1")])  # one result: nothing repeats


def test_outcome_from_a_boolean():
    assert outcome([{"is_error": False}, {"is_error": True}]) == {"path": "is_error", "negate": True}
    assert outcome([{"success": True}]) == {"path": "success"}


def test_outcome_from_status_words_exit_codes_and_http_statuses():
    assert outcome([{"status": "success"}, {"status": "error"}]) == {"path": "status", "values": ["success"]}
    assert outcome([{"exit_code": 0}, {"exit_code": 2}]) == {"path": "exit_code", "values": [0]}
    assert outcome([{"status": 200}, {"status": 403}]) == {"path": "status", "range": [200, 399]}


def test_a_status_that_is_not_an_outcome_says_nothing():
    assert outcome([{"status": "queued"}, {"status": "running"}]) is None
    assert outcome([{"code": "E42"}]) is None


def test_outcome_from_the_presence_of_an_error_field():
    assert outcome([{"content": "ok"}, {"error": "boom"}]) == {"path": "error", "presence": True, "negate": True}
    assert outcome([{"error": "always"}, {"error": "set"}]) is None  # nothing tells success apart


def test_the_error_text_is_read_where_the_output_is_absent():
    assert error_text([{"content": "ok"}, {"error": "permission denied"}], ("content",)) == "error"
    assert error_text([{"content": "ok", "error": ""}], ("content",)) is None


def test_outcome_from_a_status_in_a_nested_object_after_the_records_own_fields():
    records = [{"status": "finished_successfully", "metadata": {"aggregate_result": {"status": "success"}}},
               {"status": "finished_successfully", "metadata": {"aggregate_result": {"status": "failed"}}}]
    assert outcome(records) == {"path": "metadata.aggregate_result.status", "values": ["success"]}
    shallow = [{"status": "error", "meta": {"status": "success"}}, {"status": "ok", "meta": {"status": "ok"}}]
    assert outcome(shallow) == {"path": "status", "values": ["ok"]}


def test_a_taken_path_hides_its_nested_fields_from_the_outcome():
    records = [{"output": {"status": "success", "text": "1"}}, {"output": {"status": "failed", "text": "2"}}]
    assert outcome(records, {"output"}) is None
    assert outcome(records, {"output.text"}) == {"path": "output.status", "values": ["success"]}
