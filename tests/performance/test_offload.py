"""The offload applies the helpers' results exactly where a run without helpers would count them."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from cleaner_runtime import model, offload
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


def test_batches_larger_than_the_pipes_never_leave_both_processes_waiting(monkeypatch):
    # Pipes that could not be enlarged (4 KiB): a batch is sent while the helper is still writing
    # the answer before it, each larger than a pipe; the helper's reading thread takes the batch.
    monkeypatch.setattr(offload, "PIPE_BYTES", 4096)
    monkeypatch.setattr(offload, "BATCH_ITEMS", 1)
    helpers = offload.Helpers(1, model.Privacy.load({}))
    privacy = Privacy({})
    text = "a word of text " * 2000  # 30,000 characters: under the truncation limit, whole both ways
    records = [{"content": None} for _ in range(8)]

    def run() -> None:
        off = offload.Offload(helpers, privacy, limit=0)
        for record in records:
            off.text(record, "content", text, False)
            off.record_done(0)
        off.settle()

    worker = threading.Thread(target=run, daemon=True)
    try:
        worker.start()
        worker.join(60)
        assert not worker.is_alive(), "the main process and its helper wait for each other"
        assert all(record["content"] == text for record in records)
    finally:
        if not worker.is_alive():
            helpers.stop()


def test_a_batch_that_raises_in_a_helper_fails_its_session_and_the_helper_serves_on():
    # A bug while cleaning (here a value that is no string) must reach the main process as an error
    # naming it, as it would in one process, not as a helper's traceback and a closed pipe.
    helpers = offload.Helpers(1, model.Privacy.load({}))
    try:
        link = helpers.links[0]
        bad = offload._Batch([], 0)
        link.send(bad, (bytes([offload.TEXT]), [None]))
        link.receive()
        assert isinstance(bad.results, offload.HelperFailed) and "TypeError" in str(bad.results)
        good = offload._Batch([], 0)
        link.send(good, (bytes([offload.TEXT]), ["plain words"]))
        link.receive()
        assert good.results == (["plain words"], [])
        assert link.process.is_alive()
    finally:
        helpers.stop()


def test_a_helper_killed_mid_session_leaves_its_batches_to_the_main_process(monkeypatch, capsys):
    # A helper killed from outside (the OOM killer, SIGKILL) holds batches already sent: the main
    # process cleans them itself, in order, with the same results and counts, says so once, and
    # sends that helper nothing more.
    import os
    import signal

    monkeypatch.setattr(offload, "BATCH_ITEMS", 1)
    monkeypatch.setattr(offload, "IN_FLIGHT", 4)
    token = "ghp_x9Kq2LmZ7vB4nR8tW1yC5dF3gH6jP0sQaZ7"  # synthetic, shaped like a GitHub token
    texts = [f"line {n}: deploy with token {token} then check the output of step {n} " * 3 for n in range(6)]

    def clean(helpers, kill_after=None):
        privacy = Privacy({})
        off = offload.Offload(helpers, privacy, limit=0)
        records = [{"content": None} for _ in texts]
        for n, (record, text) in enumerate(zip(records, texts)):
            off.text(record, "content", text, False)
            off.record_done(0)
            if n == kill_after:
                link = helpers.links[0]
                os.kill(link.process.pid, signal.SIGKILL)
                link.process.join(5)
        off.settle()
        return [r["content"] for r in records], dict(privacy.counts)

    here = SimpleNamespace(free=lambda: None, here=lambda: Privacy({}))
    expected = clean(here)
    assert expected[1] == {"github-token": 3 * len(texts)} and token not in "".join(expected[0])
    helpers = offload.Helpers(1, model.Privacy.load({}))
    try:
        assert clean(helpers, kill_after=2) == expected
        assert helpers.links[0].lost and helpers.free() is None
        assert capsys.readouterr().err.count("a helper process ended unexpectedly") == 1
    finally:
        helpers.stop()


def test_a_batch_that_raises_fails_its_own_session_whoever_reads_the_answer(monkeypatch):
    # Sessions grouped by a field may be open at once, their strings sent to the same helper. The
    # answer to B's batch that raised may be read during A's work: A goes on, and B fails with it
    # when it applies its results (raising it in A's call left B waiting forever for that answer).
    monkeypatch.setattr(offload, "BATCH_ITEMS", 1)
    helpers = offload.Helpers(1, model.Privacy.load({}))
    try:
        a, b = offload.Offload(helpers, Privacy({}), limit=0), offload.Offload(helpers, Privacy({}), limit=0)
        record_b = {"content": None}
        b._add(offload.TEXT, None, record_b, "content", 0, 0)  # no string: the helper raises
        assert helpers.links[0].answers.poll(10)
        record_a = {"content": None}
        a.text(record_a, "content", "plain words " * 10, False)  # reads B's answer, to send A's batch
        a.settle()
        assert record_a["content"] == "plain words " * 10
        try:
            b.settle()
        except offload.HelperFailed as exc:
            assert "TypeError" in str(exc)
        else:
            raise AssertionError("B's error was lost")
    finally:
        helpers.stop()
