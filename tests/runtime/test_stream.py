"""A session written as it is mapped (``stream.SessionOutput``) says and writes what the whole list
would: the same bytes, problems, repairs and failures, however often its final records are taken,
and with helper processes still redacting the records after them, or judging its lines."""

from __future__ import annotations

import copy
import json
import os
import signal
from types import SimpleNamespace

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cleaner_runtime import convert, model, offload
from cleaner_runtime.convert import Converter, Privacy, SessionFailed, SessionSkipped
from cleaner_runtime.readers import Where
from cleaner_runtime.stream import SessionOutput
from cleaner_runtime.validate import BUNDLED_SCHEMA, TrajectoryValidator, load_schema
from cleaner_runtime.writer import Lines

from .test_generated_code import aimed, mapping, valid

TIMES = st.sampled_from([None, None, "2026-05-16T09:00:00Z", "2026-05-16T10:00:00Z", "2026-05-16T08:00:00+02:00",
                         "later", 1778925600])
BUNDLED = TrajectoryValidator(load_schema(BUNDLED_SCHEMA))
# judged a record at a time too, but stricter: many records fail it, at lines all over the session
STRICT = TrajectoryValidator({"type": "array", "minItems": 1, "items": {
    "type": "object", "required": ["role"],
    "properties": {"content": {"type": ["string", "null"], "maxLength": 3}, "timestamp": {"pattern": "^2026"}}}})


def outcome(validator, full, records, every=None, helpers=None, judged_there=False, kill=None):
    """What one session becomes: its lines, problems, repairs, skips and lone surrogates replaced, or
    how it stopped. ``every``: the session is written as it is mapped, its final records taken each
    time that many are held; else held whole and judged as a list. ``judged_there``: its lines are
    judged by a helper; ``kill``: that helper is killed after this many records."""
    converter = Converter(full, Privacy(full["privacy"]))
    privacy = Privacy(full["privacy"])
    builder = converter.session("s", privacy)
    builder.mtime = 1778922000.0
    if every is not None:
        builder.output = SessionOutput(validator, converter.source)
        builder.settle_at = every
    try:
        saved, convert.SETTLE_RECORDS = convert.SETTLE_RECORDS, every or convert.SETTLE_RECORDS
        if helpers is not None:
            builder.offload = offload.Offload(helpers, privacy, 0, 0, builder.position)
        if judged_there:
            builder.output.to_helper(offload.RemoteJudge(helpers, validator.schema, validator.partial,
                                                         converter.source))
        for n, raw in enumerate(records, 1):
            builder.add(Where("f.jsonl", n), copy.deepcopy(raw))
            if n == kill:
                link = helpers.links[0]
                os.kill(link.process.pid, signal.SIGKILL)
                link.process.join(5)
        out = builder.finish()
    except (SessionFailed, SessionSkipped) as exc:
        return f"{exc.__class__.__name__}: {exc}", dict(builder.stats.skipped)
    finally:
        convert.SETTLE_RECORDS = saved
    if every is None:
        lines = Lines(out, plain=True)
        data = b"".join(lines)
        problems, replaced = validator.check_records(out), lines.replaced
    else:
        problems, chunks = builder.output.end(out[0])
        data, replaced = b"".join(chunks), builder.output.replaced
    return (data, problems, replaced, dict(builder.stats.repaired), dict(builder.stats.skipped),
            dict(privacy.counts), builder.seen, builder.written)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(mapping, st.data())
def test_a_session_written_as_it_is_mapped_is_the_session_held_whole(candidate, data):
    full = valid(candidate)
    assume(full is not None)
    full["sessions"] = {policy: data.draw(st.sampled_from(["keep", "skip"])) for policy in ("without_user", "without_assistant")}
    records = [aimed(data, full) for _ in range(data.draw(st.integers(1, 12)))]
    for record in records:  # times that differ, go back, cannot be read or are absent
        for key in ("ts", "when"):
            when = data.draw(TIMES)
            if when is None:
                record.pop(key, None)
            else:
                record[key] = when
    validator = data.draw(st.sampled_from([BUNDLED, STRICT]))
    every = data.draw(st.integers(1, 4))
    assert outcome(validator, full, records, every) == outcome(validator, full, records)


def test_records_still_with_the_helpers_are_never_taken(monkeypatch):
    # Batches of one string each, two in flight, final records taken at every record: a record
    # taken while its text is still with a helper would be written with a hole, and its line would
    # differ from the one a run without helpers writes.
    monkeypatch.setattr(offload, "BATCH_ITEMS", 1)
    full = valid({"kinds": [{"role": "user", "content": "text", "match": {"type": "u"}},
                            {"role": "assistant", "content": "text", "match": {"type": "a"}}],
                  "unknown_kinds": "fail", "timestamps": {"fields": ["ts"]}})
    assert full is not None
    token = "ghp_x9Kq2LmZ7vB4nR8tW1yC5dF3gH6jP0sQaZ7"  # synthetic, shaped like a GitHub token
    records = [{"type": "ua"[n % 2], "text": f"step {n}: token {token} " + "more words " * (n % 7) * 20,
                **({"ts": f"2026-05-16T09:{n % 60:02d}:00Z"} if n % 5 else {})} for n in range(200)]
    expected = outcome(BUNDLED, full, records)
    assert json.loads(expected[0].splitlines()[1])["content"].startswith("step 0: token [REDACTED")
    busy = SimpleNamespace(free=lambda: None, here=lambda: Privacy(full["privacy"]))  # cleaned here, in order
    assert outcome(BUNDLED, full, records, every=1, helpers=busy) == expected
    helpers = offload.Helpers(1, model.Privacy.load(full["privacy"]))
    try:
        assert outcome(BUNDLED, full, records, every=1, helpers=helpers) == expected
        assert outcome(BUNDLED, full, records, every=3, helpers=helpers) == expected
    finally:
        helpers.stop()


def test_a_schema_that_says_more_of_the_list_is_judged_on_the_whole_list():
    schema = load_schema(BUNDLED_SCHEMA)
    assert BUNDLED.judge() is not None
    for extra in ({"maxItems": 10}, {"minItems": 2}, {"uniqueItems": True}, {"type": "object"}):
        assert TrajectoryValidator({**schema, **extra}).judge() is None, extra
    assert TrajectoryValidator({**schema, "title": "ours", "$comment": "x"}).judge() is not None


def test_a_session_whose_user_record_was_taken_early_is_not_skipped_for_lacking_one():
    full = valid({"kinds": [{"role": "user", "content": "text", "match": {"type": "u"}},
                            {"role": "assistant", "content": "text", "match": {"type": "a"}}],
                  "unknown_kinds": "fail", "timestamps": {"fields": ["ts"]}})
    assert full is not None
    full["sessions"] = {"without_user": "skip", "without_assistant": "skip"}
    records = [{"type": t, "text": f"{t} {n}", "ts": "2026-05-16T09:00:00Z"} for n, t in enumerate("uaaaaa")]
    held = outcome(BUNDLED, full, records)
    assert held[0].count(b"\n") == 7
    assert outcome(BUNDLED, full, records, every=1) == held
    assert outcome(BUNDLED, full, records[1:], every=1)[0] == "SessionSkipped: no user record (sessions.without_user: skip)"


def test_lines_judged_by_a_helper_have_the_problems_of_the_list_even_when_it_is_lost(monkeypatch, capsys):
    # The stricter schema fails many records; the helper judges the lines as written, from the
    # start of the session, while it also redacts; killed mid-session, the main process judges them.
    monkeypatch.setattr(offload, "BATCH_ITEMS", 4)
    full = valid({"kinds": [{"role": "user", "content": "text", "match": {"type": "u"}},
                            {"role": "assistant", "content": "text", "match": {"type": "a"}}],
                  "unknown_kinds": "fail", "timestamps": {"fields": ["ts"]}})
    assert full is not None
    records = [{"type": "ua"[n % 3 % 2], "text": "ok" if n % 4 else f"reply {n} " + "words " * 20,
                **({"ts": f"2026-05-16T09:{59 - n % 60:02d}:00Z"} if n % 6 else {})} for n in range(300)]
    for validator in (STRICT, BUNDLED):
        expected = outcome(validator, full, records)
        helpers = offload.Helpers(1, model.Privacy.load(full["privacy"]))
        try:
            assert outcome(validator, full, records, every=7, helpers=helpers, judged_there=True) == expected
            assert outcome(validator, full, records, every=7, helpers=helpers, judged_there=True, kill=150) == expected
        finally:
            helpers.stop()
    assert len(expected[1]) > 10 and {p.rule for p in outcome(STRICT, full, records)[1]} >= {"schema", "timestamp-order"}
    assert "a helper process ended unexpectedly" in capsys.readouterr().err


def test_an_error_while_a_helper_judges_fails_the_session_at_its_end():
    helpers = offload.Helpers(1, model.Privacy.load({}))
    try:
        judge = offload.RemoteJudge(helpers, BUNDLED.schema, False, "t")
        judge.lines(b'{"role":"user"}\nnot json\n')
        try:
            judge.end(b'{"role":"meta","source":"t"}\n')
        except offload.HelperFailed as exc:
            assert "JSONDecodeError" in str(exc)
        else:
            raise AssertionError("the helper's error was lost")
        judge = offload.RemoteJudge(helpers, BUNDLED.schema, False, "t")  # the helper judges on
        judge.lines(b'{"role":"user","content":"hi","timestamp":"2026-05-16T09:00:00Z"}\n')
        assert [p.rule for p in judge.end(b'{"role":"meta","source":"t"}')] == ["no-assistant"]
    finally:
        helpers.stop()


def test_sessions_judged_at_once_by_one_helper_keep_their_own_lines():
    # session.by: field may leave several large sessions open at once, their lines interleaved,
    # each judged by the same helper; one of them may fail before its end and be forgotten.
    def lines(first, count, back):
        return b"".join(json.dumps({"role": "user", "content": "hi", "timestamp":
                                    f"2026-05-16T09:{(first + n) % 60 if not back else 59 - n % 60:02d}:00Z"},
                                   separators=(",", ":")).encode() + b"\n" for n in range(count))

    meta = b'{"role":"meta","source":"t"}'
    helpers = offload.Helpers(1, model.Privacy.load({}))
    try:
        a, dropped, b = (offload.RemoteJudge(helpers, BUNDLED.schema, False, "t") for _ in range(3))
        for n in range(3):
            a.lines(lines(n * 5, 5, back=False))
            dropped.lines(b'{"role":"tool"}\n')
            b.lines(lines(0, 4, back=True))
        dropped.close()
        problems_a, problems_b = a.end(meta), b.end(meta)
    finally:
        helpers.stop()

    def here(chunks):
        judge = BUNDLED.judge()
        judge.add_rules({"role": "meta", "source": "t"}, 1)
        for line, text in enumerate(b"".join(chunks).splitlines(), 2):
            judge.add(json.loads(text), line)
        judge.add_schema(json.loads(meta), 1)
        return judge.end()

    assert problems_a == here([lines(n * 5, 5, back=False) for n in range(3)])
    assert problems_b == here([lines(0, 4, back=True)] * 3)
    assert [p.rule for p in problems_a] == ["no-assistant"]
    assert [p.line for p in problems_b if p.rule == "timestamp-order"] == [3, 4, 5, 7, 8, 9, 11, 12, 13]


def test_a_lone_surrogate_is_judged_as_written_in_one_process_and_in_a_helper():
    # Two call ids that differ only by a lone surrogate are both written "c\ufffd": the same verdict
    # (a repeated id) whether the main process judges the records or a helper the lines.
    full = valid({"kinds": [{"role": "user", "content": "text", "match": {"type": "u"}},
                            {"role": "assistant", "content": "text", "match": {"type": "a"}},
                            {"role": "tool_call", "call_id": "id", "tool_name": "tool", "args": "params",
                             "match": {"type": "call"}},
                            {"role": "tool_result", "result_link": "id", "content": "text", "match": {"type": "result"}}],
                  "unknown_kinds": "fail", "timestamps": {"fields": ["ts"]}})
    assert full is not None
    records = [{"type": "u", "text": "start", "ts": "2026-05-16T09:00:00Z"}]
    for n, call_id in enumerate(("c\ud800", "c\udc00")):
        records += [{"type": "call", "id": call_id, "tool": "t", "params": {"q": 1}, "ts": f"2026-05-16T09:00:0{2 * n}Z"},
                    {"type": "result", "id": call_id, "text": "ok", "ts": f"2026-05-16T09:00:0{2 * n + 1}Z"}]
    records.append({"type": "a", "text": "done", "ts": "2026-05-16T09:00:09Z"})
    here = outcome(BUNDLED, full, records, every=2)
    assert [(p.line, p.rule) for p in here[1]] == [(5, "duplicate-call-id"), (6, "duplicate-result")]
    helpers = offload.Helpers(1, model.Privacy.load(full["privacy"]))
    try:
        assert outcome(BUNDLED, full, records, every=2, helpers=helpers, judged_there=True) == here
    finally:
        helpers.stop()
