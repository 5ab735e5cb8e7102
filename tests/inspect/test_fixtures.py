"""Every synthetic format under tests/fixtures: the decisions it states, its questions, a working cleaner.

Each case's decisions.yml says which decisions inference must get right (and be sure of), which
questions it must ask (ambiguous formats: never a silent guess), and how many user, assistant,
reasoning, call and result records a correct cleaner keeps. The counts come from how the fixture
was built (tests/inspect/make_fixtures.py), not from the code under test.
"""

from __future__ import annotations

import pytest

from generator.answers import check_mapping
from generator.infer import CONFIDENT

from .helpers import (
    answers,
    case_id,
    cases,
    decision,
    inference,
    render_and_read,
    role_counts,
    samples,
    spec,
    validation_problems,
)

CASES = cases()


def test_enough_formats_cover_every_shape():
    assert len(CASES) >= 10
    shapes = {shape for case in CASES for shape in spec(case)["shapes"]}
    for needed in ("gzip", "JSON array", "JSON object holding a record list", "multi-session file",
                   "sessions across files", "interleaved sessions", "epoch seconds", "epoch milliseconds",
                   "human strptime timestamps", "naive timestamps", "noise kinds", "run tree",
                   "content block lists", "chat-completion messages", "key-presence kinds", "ambiguous roles",
                   "ambiguous day/month", "torn line", "tool linkage by id"):
        assert any(needed in s for s in shapes), needed
    assert sum(1 for case in CASES if spec(case)["questions"]) >= 2


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_decisions_are_right_and_sure(case):
    wanted = spec(case)
    inf = inference(samples(case))
    for key, value in wanted["decisions"].items():
        d = decision(inf, key)
        assert d is not None, f"no decision {key}; made: {[x.key for x in inf.decisions]}"
        assert d.value == value, f"{key}: {d.value!r} ({d.evidence}), want {value!r}"
        if key not in wanted["questions"]:
            assert d.confidence >= CONFIDENT, f"{key} is right but not sure ({d.confidence}: {d.evidence})"
        assert d.evidence and "\n" not in d.evidence


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_exactly_the_ambiguous_decisions_are_questions(case):
    wanted = spec(case)
    inf = inference(samples(case))
    assert sorted(q.key for q in inf.questions) == sorted(wanted["questions"]), [
        (q.key, q.value, q.evidence) for q in inf.questions]
    for q in inf.questions:
        assert q.confidence < CONFIDENT
        assert len(q.candidates) >= 2, f"{q.key}: a question needs candidates to choose from"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_rendered_cleaner_keeps_every_message_and_validates(case, tmp_path):
    wanted = spec(case)
    inf = inference(samples(case), answers(case))
    assert not inf.questions, [q.key for q in inf.questions]
    check_mapping(inf.mapping)
    code, output, sessions = render_and_read(inf.mapping, samples(case), tmp_path / "cleaner")
    assert code == 0, output
    assert validation_problems(tmp_path / "cleaner") == []
    assert role_counts(sessions) == wanted["expect"], output
    for records in sessions:
        assert records[0]["role"] == "meta" and records[0]["source"] == inf.mapping["source"]
