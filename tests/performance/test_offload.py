"""The offload applies the helpers' results exactly where a run without helpers would count them."""

from __future__ import annotations

from concurrent.futures import Future
from types import SimpleNamespace

from cleaner_runtime import offload
from cleaner_runtime.convert import Privacy


class _DonePool:
    """A pool whose batches are done the moment they are sent (a helper faster than the mapping)."""

    def submit(self, fn, *args):
        future = Future()
        future.set_result(fn(*args))
        return future


def test_a_result_is_applied_only_once_its_record_is_done(monkeypatch):
    # The builder counts a record's content when it emits it; a hole filled before that would be
    # counted twice and the session would pass --max-session-mb early.
    monkeypatch.setattr(offload, "_PRIVACY", Privacy({}))
    monkeypatch.setattr(offload, "BATCH_ITEMS", 1)  # every string is sent at once
    privacy = Privacy({})
    off = offload.Offload(SimpleNamespace(processes=1, pool=_DonePool()), privacy, limit=10**6)
    record = {"content": None}
    text = "word " * 40
    off.text(record, "content", text, False)
    assert record["content"] is None  # sent and done, but its record is still being mapped
    assert off.record_done(0) == len(text)  # the bound replaced by the exact length, once
    assert record["content"] == text
