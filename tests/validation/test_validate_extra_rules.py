"""Each rule beyond the schema on a small input, with the problem it reports (``validate.RECORD_RULES``
and ``SESSION_RULES``); the corpus tests check the same rules on whole files."""

from __future__ import annotations

import re
from datetime import datetime
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

META = {"role": "meta", "source": "support-agent"}
T = "2026-05-16T09:00:00Z"
USER = {"role": "user", "content": "hi", "timestamp": T}
REPLY = {"role": "assistant", "content": "hello", "timestamp": T}
EXAMPLE = '{"role":"meta","source":"<agent>"}'


def call(call_id="c1", args="{}"):
    return {"id": call_id, "name": "lookup", "args": args}


def calling(*calls):
    return {"role": "assistant", "content": None, "tool_calls": list(calls), "timestamp": T}


def result(call_id="c1"):
    return {"role": "tool", "tool_call_id": call_id, "content": "ok", "timestamp": T}


def judge(rt, rule, records, lines=None, partial=False, whole=None):
    """What the rules report under the id ``rule`` (or ids) on ``records`` (on lines 1, 2, ... unless
    given), in the order they report it: of lines and of the whole file, or only of the whole file
    (``whole`` True) or only of lines (False)."""
    ids = (rule,) if isinstance(rule, str) else rule
    problems = rt._extra_rules(records, lines or range(1, len(records) + 1), True, partial)
    return [(p.line, p.rule, p.severity, p.message) for p in problems
            if p.rule in ids and (whole is None or whole == (p.line is None))]


def test_meta_first_at_the_record_on_line_one_and_at_a_late_meta(rt):
    assert judge(rt, "meta-first", [USER, META], whole=False) == [
        (1, "meta-first", "error", f'line 1 is a "user" record; the first line must be the meta record, e.g. {EXAMPLE}'),
        (2, "meta-first", "error", "the meta record is on line 2; it must be the first line of the file"),
    ]
    assert judge(rt, "meta-first", [{"content": "x"}, META], whole=False)[0][3].startswith("line 1 is a record without a role;")
    assert judge(rt, "meta-first", [META, USER], whole=False) == []


def test_meta_once_at_every_later_meta(rt):
    assert judge(rt, "meta-once", [META, USER, META, META]) == [
        (line, "meta-once", "error", ("a second meta record; only line 1 may be meta — drop this one or split the "
                                     "file into one file per session")) for line in (3, 4)]


def test_meta_source_missing_empty_or_blank(rt):
    needs = "the meta record needs a non-empty source (your agent or workflow name)"
    assert judge(rt, "meta-source", [{"role": "meta"}]) == [(1, "meta-source", "error", needs)]
    assert judge(rt, "meta-source", [{"role": "meta", "source": ""}]) == [(1, "meta-source", "error", needs)]
    assert judge(rt, "meta-source", [{"role": "meta", "source": " \t"}]) == [
        (1, "meta-source", "error", ("the meta record's source is only whitespace; it must name your agent or "
                                    "workflow (Lerim's trace-folder rules), e.g. \"support-agent\""))]
    assert judge(rt, "meta-source", [{"role": "meta", "source": 5}]) == []  # the schema's to say


def test_timestamp_missing_null_not_a_string_or_not_an_instant(rt):
    records = [META, {"role": "user"}, {**USER, "timestamp": None}, {**USER, "timestamp": 5},
               {**USER, "timestamp": "2026-02-30T09:00:00Z"}, USER]
    assert judge(rt, "timestamp", records) == [
        (2, "timestamp", "error", ("missing timestamp; every non-meta record needs one, e.g. 2026-05-16T09:00:00Z or "
                                  "2026-05-16T11:00:00+02:00")),
        (3, "timestamp", "error", "timestamp is null; derive a real ISO-8601 time from the surrounding records"),
        (4, "timestamp", "error", ("timestamp must be a string such as 2026-05-16T09:00:00Z or "
                                  "2026-05-16T11:00:00+02:00, not number")),
        (5, "timestamp", "error", "timestamp \"2026-02-30T09:00:00Z\" is not a real date (2026-02-30 does not exist)"),
    ]


def test_timestamp_order_compares_instants_and_passes_over_the_unreadable(rt):
    records = [META, {**USER, "timestamp": "2026-05-16T09:00:00Z"}, {**USER, "timestamp": "2026-05-16T11:00:00+02:00"},
               {**USER, "timestamp": "soon"}, {**USER, "timestamp": "2026-05-16T08:59:59Z"}]
    assert judge(rt, "timestamp-order", records) == [
        (5, "timestamp-order", "warning", ("timestamp 2026-05-16T08:59:59Z is earlier than 2026-05-16T11:00:00+02:00 "
                                          "on line 3; keep records in chronological order (or check the zone offsets)"))]


# Timestamps that repeat, go back, go back across zones, are not instants, or are absent.
_TIMES = st.sampled_from(["2026-05-16T09:00:00Z", "2026-05-16T09:00:00.5Z", "2026-05-16T08:59:59Z",
                          "2026-05-16T11:00:00+02:00", "2026-05-16T10:30:00+01:00", "2026-05-17T00:00:00Z",
                          "soon", "2026-02-30T00:00:00Z", None])


@settings(max_examples=200, deadline=None)
@given(st.lists(_TIMES, max_size=12))
def test_timestamp_order_warns_wherever_an_instant_is_earlier_than_the_one_before_it(rt, times):
    # The rule as written: among the records whose timestamp is a real instant, in file order,
    # each one earlier than the one before it (instants compared, records without one passed over).
    records = [META] + [{**USER, "timestamp": t} if t is not None else {"role": "user", "content": "hi"} for t in times]
    timed = [(line, datetime.fromisoformat(t))
             for line, t in enumerate(times, 2) if t not in (None, "soon", "2026-02-30T00:00:00Z")]
    expected = [(line, before) for (before, earlier), (line, now) in pairwise(timed) if now < earlier]
    found = [(line, int(re.search(r"on line (\d+)", message).group(1)))
             for line, rule, severity, message in judge(rt, "timestamp-order", records)]
    assert found == expected


def test_assistant_content_null_exactly_with_tool_calls(rt):
    cases = {
        "an assistant record with tool_calls must have content null": {**calling(call()), "content": "text"},
        'content is missing; an assistant record with tool_calls needs "content":null':
            {k: v for k, v in calling(call()).items() if k != "content"},
        "tool_calls is an empty list": calling(),
        "content is null but there are no tool_calls": {**REPLY, "content": None},
        "content is empty; an assistant reply needs non-empty text": {**REPLY, "content": ""},
    }
    for start, record in cases.items():
        [(line, rule, severity, message)] = judge(rt, "assistant-content", [META, record])
        assert (line, rule, severity) == (2, "assistant-content", "error") and message.startswith(start), message
    assert judge(rt, "assistant-content", [META, REPLY, calling(call())]) == []


def test_tool_calls_ids_unique_and_args_an_object_call_by_call(rt):
    records = [META, calling(call("a")), calling(call("a", "nope"), call("a", "[1]"), call("b", {"x": 1}), call("c", 5))]
    assert judge(rt, ("duplicate-call-id", "args-object"), records) == [
        (3, "duplicate-call-id", "error", ('tool_calls[0].id "a" is already used on line 2; tool call ids must be '
                                          "unique within a file (e.g. add a suffix like __2)")),
        (3, "args-object", "error", ("tool_calls[0].args is not valid JSON (Expecting value); serialize the arguments "
                                    "object with json.dumps, e.g. {\"_raw\": \"...\"} for raw text")),
        (3, "duplicate-call-id", "error", ('tool_calls[1].id "a" is already used on line 2; tool call ids must be '
                                          "unique within a file (e.g. add a suffix like __2)")),
        (3, "args-object", "error", ("tool_calls[1].args holds a JSON array, not an object; wrap it in an object, "
                                    "e.g. {\"input\": ...}")),
        (3, "args-object", "error", ("tool_calls[2].args is a nested object; serialize it to a string with "
                                    "json.dumps(args)")),
        (3, "args-object", "error", "tool_calls[3].args must be a string holding a JSON object, not number"),
    ]


def test_tool_link_empty_orphan_or_before_its_call(rt):
    records = [META, result(""), result("later"), result("nowhere"), calling(call("later")), result("later")]
    assert judge(rt, "tool-link", records) == [
        (2, "tool-link", "error", "tool_call_id is empty; set it to the id of the tool call this result answers"),
        (3, "tool-link", "error", ('tool result for "later" comes before its call on line 5; a result must follow '
                                  "the assistant record that made the call")),
        (4, "tool-link", "error", ('tool result for "nowhere" matches no earlier tool call; fix the id or drop the '
                                  "orphan result")),
    ]


def test_duplicate_result_names_the_first(rt):
    records = [META, result("c1"), calling(call("c1")), result("c1"), result("c1"), result(["not", "an", "id"])]
    assert judge(rt, "duplicate-result", records) == [
        (5, "duplicate-result", "warning", ('a second result for tool call "c1" (the first is on line 4); keep one '
                                           "result per call"))]


def test_meta_missing_only_when_nothing_else_said_it(rt):
    message = f"the file has no meta record; put {EXAMPLE} on line 1"
    assert judge(rt, "meta-first", [USER], lines=[2], whole=True) == [(None, "meta-first", "error", message)]
    assert judge(rt, "meta-first", [USER], whole=True) == []  # line 1's record was named by _line_one
    assert judge(rt, "meta-first", [META], whole=True) == []


@pytest.mark.parametrize("partial", [False, True])
def test_no_user_and_no_assistant_warn_when_partial(rt, partial):
    severity = "warning" if partial else "error"
    assert judge(rt, "no-user", [META, REPLY], partial=partial) == [
        (None, "no-user", severity, ("the session has no user record, which Letta's runtime validator "
                                    "(validateTranscript) rejects (\"Transcript must contain at least one user "
                                    "record\"); add the request or trigger that started the run"))]
    assert judge(rt, "no-assistant", [META, USER], partial=partial) == [
        (None, "no-assistant", severity, ("the session has no assistant record, which Letta's runtime validator "
                                         "(validateTranscript) rejects (\"Transcript must contain at least one "
                                         "assistant record\"); add the agent's reply or tool calls"))]
    assert judge(rt, "no-user", [META, USER]) == judge(rt, "no-assistant", [META, REPLY]) == []


def test_every_rule_is_in_a_table_and_says_its_origin(rt):
    """Each rule function's docstring names the rule ids it reports and their origins, as RULE_ORIGINS has
    them; together the tables report every rule that is not about reading the file."""
    reading = {"unreadable", "bom", "utf8", "blank-line", "json", "duplicate-key", "line-break", "compact-line",
               "empty-file", "schema"}
    named = set()
    for rule in rt.RECORD_RULES + rt.SESSION_RULES:
        said = re.findall(r"``([a-z-]+)`` \(([^)]+)\)", " ".join(rule.__doc__.split()))
        assert said, rule.__name__
        for rule_id, origins in said:
            assert tuple(origins.split(", ")) == rt.RULE_ORIGINS[rule_id], rule.__name__
            named.add(rule_id)
    assert named == set(rt.RULES) - reading


def test_one_lines_problems_come_in_table_order_and_session_rules_need_every_line(rt, bundled_validator):
    records = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "timestamp": T}]
    assert [(p.line, p.rule) for p in bundled_validator.check_records(records)] == [
        (1, "schema"), (1, "meta-first"), (1, "timestamp"), (2, "schema"), (2, "assistant-content")]
    assert [p.rule for p in rt._extra_rules([USER], [2], complete=True)] == ["meta-first", "no-assistant"]
    assert rt._extra_rules([USER], [2], complete=False) == []
