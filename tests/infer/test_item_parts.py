"""The parts a call item or a thought list carries (generator/infer/item_parts.py): found by
structure and values, on shapes unlike any fixture (issue 35: gemini-cli's thoughts[] and the
results inside its toolCalls[] reached no output record)."""

import json

from generator.infer.embedded import REASONING_KEYS
from generator.infer.item_parts import item_ok, item_result, item_time, thought_list
from tests.infer.render_support import render_and_clean


def _message(n: int, status: str = "done") -> dict:
    return {"speaker": "bot", "at": f"2026-03-0{n}T10:00:05Z", "reply": f"Looking up order {n}.",
            "reflections": [{"headline": f"Order {n}", "detail": "check the ledger first", "at": f"2026-03-0{n}T10:00:02Z"}],
            "invocations": [{"id": f"inv-{n}", "tool": "ledger_lookup", "params": {"order": n},
                             "outcome": [{"payload": {"response": {"output": f"order {n}: shipped"}}}],
                             "state": status, "at": f"2026-03-0{n}T10:00:03Z"}]}


def test_a_result_nested_in_each_call_item_is_found():
    records = [_message(1), _message(2)]
    assert item_result(records, ("invocations",)) == ("outcome", 0, "payload", "response", "output")


def test_items_without_a_result_have_none():
    records = [_message(1)]
    del records[0]["invocations"][0]["outcome"]
    assert item_result(records, ("invocations",)) is None


def test_the_item_time_and_its_success_values():
    records = [_message(1), _message(2, status="error")]
    assert item_time(records, ("invocations",)) == ("at",)
    assert item_ok(records, ("invocations",)) == {"path": "state", "values": ["done"]}


def test_a_status_without_a_success_word_is_no_outcome():
    records = [_message(1, status="queued")]
    assert item_ok(records, ("invocations",)) is None


def test_a_status_that_only_says_the_step_ended_is_no_outcome():
    # `completed` on every item (a Responses item, a codex call) says it ended, not how: Letta reads no ok
    records = [_message(1, status="completed"), _message(2, status="completed")]
    assert item_ok(records, ("invocations",)) is None


def test_a_thought_list_keeps_its_text_fields_in_order_and_not_its_time():
    found = thought_list([_message(1)], (), REASONING_KEYS)
    assert found == (("reflections",), ("headline", "detail"))


def test_prose_objects_under_a_name_that_says_nothing_are_no_thoughts():
    # their role is not known: left as a loss, so `new --yes` refuses rather than guesses
    record = _message(1)
    record["musings"] = record.pop("reflections")
    assert thought_list([record], (), REASONING_KEYS) is None


def test_new_yes_writes_thoughts_and_exchanges_of_such_items(tmp_path):
    # before: the thoughts and the nested results reached no output record, and `new --yes` refused
    samples = tmp_path / "chats"
    samples.mkdir()
    for n in (1, 2):
        doc = {"conversation": f"c{n}", "turns": [
            {"speaker": "person", "at": f"2026-03-0{n}T10:00:00Z", "reply": f"Where is order {n}?"},
            _message(n, status="done" if n == 1 else "error")]}  # `done` says success beside `error`
        (samples / f"c{n}.json").write_text(json.dumps(doc), encoding="utf-8")
    written = render_and_clean(samples, "shop", tmp_path)
    records = written["c1.jsonl"]
    assert records[1:] == [
        {"role": "user", "content": "Where is order 1?", "timestamp": "2026-03-01T10:00:00Z"},
        {"role": "reasoning", "content": "Order 1\ncheck the ledger first", "timestamp": "2026-03-01T10:00:02Z"},
        {"role": "assistant", "content": "Looking up order 1.", "timestamp": "2026-03-01T10:00:05Z"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "inv-1", "name": "ledger_lookup", "args": "{\"order\":1}"}], "timestamp": "2026-03-01T10:00:03Z"},
        {"role": "tool", "tool_call_id": "inv-1", "content": "order 1: shipped", "ok": True,
         "timestamp": "2026-03-01T10:00:03Z"},
    ]
