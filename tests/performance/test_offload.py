"""The offload applies the helpers' results exactly where a run without helpers would count them."""

from __future__ import annotations

from types import SimpleNamespace

from cleaner_runtime import offload
from cleaner_runtime.convert import Privacy


def test_a_result_is_applied_only_once_its_record_is_done(monkeypatch):
    # The builder counts a record's content when it emits it; a hole filled before that would be
    # counted twice and the session would pass --max-session-mb early.
    monkeypatch.setattr(offload, "BATCH_ITEMS", 1)  # every string is cleaned at once
    privacy = Privacy({})
    helpers = SimpleNamespace(free=lambda: None, here=lambda: Privacy({}))  # busy helpers: cleaned here
    off = offload.Offload(helpers, privacy, limit=10**6)
    record = {"content": None}
    text = "word " * 40
    off.text(record, "content", text, False)
    assert record["content"] is None  # cleaned, but its record is still being mapped
    assert off.record_done(0) == len(text)  # the bound replaced by the exact length, once
    assert record["content"] == text
