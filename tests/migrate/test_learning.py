"""The pieces `migrate script` learns with: text matching, sessions, the old script's regexes."""

from __future__ import annotations

import re

from generator.migrate.alignment import RawRec, Target, TextMatcher
from generator.migrate.mapping import learn_session
from generator.migrate.old_script import portable_pattern


def test_text_matching_exact_placeholders_and_truncation():
    matcher = TextMatcher(["<hidden>"])
    raw = TextMatcher.norm("Mail  maria@corp.test about\nthe outage")
    assert matcher.score("Mail maria@corp.test about the outage", raw) == 3  # whitespace does not matter
    assert matcher.score("Mail <hidden> about the outage", raw) == 2  # the old script's own marker
    assert matcher.score("Mail [REDACTED:email] about the outage", raw) == 2  # the runtime's placeholder
    assert matcher.score("Mail <hidden> about the incident", raw) == 0
    long_raw = TextMatcher.norm("A long tool output that the old script cut short after a while, and more")
    assert matcher.score("A long tool output that the old script cut...", long_raw) == 1
    assert matcher.score("", raw) == 0


def test_old_regexes_become_self_contained_alternatives():
    assert portable_pattern(r"(?i)bearer\s+(\w+)") == r"(?i:bearer\s+(?:\w+))"
    assert portable_pattern(r"[(]x[)](a|b)", "i") == r"(?i:[(]x[)](?:a|b))"
    assert portable_pattern(r"(a)\1") is None  # a back-reference cannot survive being combined
    assert portable_pattern(r"(?P<user>\w+)@") is None
    assert portable_pattern(r"x*") is None  # matches the empty string
    assert re.compile(portable_pattern(r"ACCT-\d{8}")).fullmatch("ACCT-00417731")


def _raw(pos: int, record: dict, file: int = 0) -> RawRec:
    return RawRec(pos, file, f"raw.jsonl:{pos + 1}", record)


def _target(session: int) -> Target:
    return Target(session, 1, {"role": "user", "content": "x"}, None)


def test_sessions_by_file_unless_the_old_script_regrouped_them():
    one_each = [_raw(0, {"conv": "a", "t": "x"}, 0), _raw(1, {"conv": "b", "t": "y"}, 1)]
    session, path, questions = learn_session(one_each, [(one_each[0], _target(0)), (one_each[1], _target(1))], set())
    assert session == {"by": "file"} and path is None and not questions
    # one raw file, two old sessions told apart by "conv"; a header without it is skipped, not failed
    raws = [_raw(0, {"header": True}), _raw(1, {"conv": "a", "n": 1}), _raw(2, {"conv": "b", "n": 1}),
            _raw(3, {"conv": "a", "n": 2})]
    pairs = [(raws[1], _target(0)), (raws[2], _target(1)), (raws[3], _target(0))]
    session, path, questions = learn_session(raws, pairs, set())
    assert session == {"by": "field", "field": "conv", "missing": "skip"} and path == ("conv",)
    # no field separates them: say so, and fall back to one session per file
    raws = [_raw(0, {"n": 1}), _raw(1, {"n": 1})]
    session, _, questions = learn_session(raws, [(raws[0], _target(0)), (raws[1], _target(1))], set())
    assert session == {"by": "file"} and "could not find" in questions[0]
