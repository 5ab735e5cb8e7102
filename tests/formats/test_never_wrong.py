"""`new --yes` is never wrong (issue 35's acceptance: wrong renders with exit 0: 0 on every fixture):
on every case of our own fixtures and every real format whose data is on this machine, it either
refuses (exit 1) or renders a cleaner whose output equals the hand-written expectation. A refusal
is fine here; how often it is right is benchmarks/bench_generality.py's business.

The judge is tests/formats/real_support.py's, the benchmark's own. Wrong renders known today are
listed once, in WRONG_TODAY, as strict expected failures: the day inference stops being wrong on
one, the test says so and the entry is to be removed. A real format without its raw or expected
files (data kept out of commits) is skipped by name.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .real_support import RealCase, compare_outputs, instant, judge_own, judge_real, real_cases
from .support import Case, cases

#: Cases that `new --yes` renders wrong with exit 0 at the last commit, and what differs.
#: (shared:mini-swe-agent-traj was, until generator/infer/actions.py refused commands written in text.)
WRONG_TODAY: dict[str, str] = {}


def _param(case_id: str, value, present: bool = True):
    marks = []
    if case_id in WRONG_TODAY:
        marks.append(pytest.mark.xfail(strict=True, reason=f"wrong render today: {WRONG_TODAY[case_id]}"))
    return pytest.param(value, present, id=case_id, marks=marks)


PARAMS = ([_param(f"own:{c.name}", c) for c in cases()]
          + [_param(c.id, c, c.present) for c in real_cases()])


def test_every_listed_wrong_render_is_a_case():
    ids = {p.id for p in PARAMS}
    assert set(WRONG_TODAY) <= ids, sorted(set(WRONG_TODAY) - ids)


@pytest.mark.parametrize(("case", "present"), PARAMS)
def test_yes_refuses_or_writes_the_expected_output(case: Case | RealCase, present: bool, tmp_path):
    if not present:
        pytest.skip(f"{case.id}: raw or expected files not on this machine (data files live under shared/)")
    verdict = judge_real(case, tmp_path) if isinstance(case, RealCase) else judge_own(case, tmp_path)
    assert verdict.verdict in ("right", "refused"), f"`new --yes` was wrong on {verdict.case}: {verdict.why}"


PRESENT_OURS = [c for c in real_cases() if c.present and c.compare == "bytes"]


def _as_outputs(case: RealCase, out: Path, utc_fallback: bool = False) -> None:
    """The expected files laid out as a cleaner writes them (names as today's runtime gives them),
    the fallback time spelt as `file_mtime` writes it when ``utc_fallback``."""
    for (raw, session), path in case.expectations().items():
        stem = raw.rsplit(".", 1)[0]
        target = out / (f"{stem}.jsonl" if session is None else f"{stem}/{session}.jsonl")
        target.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        if utc_fallback and case.timestamp_fallback:
            utc = instant(case.timestamp_fallback).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            data = data.replace(case.timestamp_fallback.encode(), utc.encode())
        target.write_bytes(data)


@pytest.mark.parametrize("case", PRESENT_OURS, ids=lambda c: c.id)
def test_the_judge_takes_the_expected_files_as_right_and_a_changed_one_as_wrong(case: RealCase, tmp_path):
    _as_outputs(case, tmp_path / "out", utc_fallback=True)
    assert compare_outputs(case, tmp_path / "out") == (True, "")
    victim = min((tmp_path / "out").rglob("*.jsonl"))
    victim.write_bytes(b"".join(victim.read_bytes().splitlines(keepends=True)[:-1]))  # its last record lost
    same, why = compare_outputs(case, tmp_path / "out")
    assert not same and "lines" in why, why
    shutil.rmtree(tmp_path / "out")
    _as_outputs(case, tmp_path / "out")
    min((tmp_path / "out").rglob("*.jsonl")).unlink()
    same, why = compare_outputs(case, tmp_path / "out")
    assert not same and "no output for expected" in why, why


def test_shared_expectations_compare_as_records_in_the_corpus_conventions():
    shared = RealCase(name="x", where="shared", source="s", session="file", note="", compare="records",
                      timestamp_fallback="2026-05-16T09:00:00Z", raw=None, expected=None)
    theirs = (b'{"role": "meta", "source": "s", "file": "a.json", "session_id": "1"}\n'
              b'{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "name": "bash", '
              b'"args": "{\\"command\\": \\"ls\\"}"}], "timestamp": "2026-07-16T01:15:44.946000Z"}\n'
              b'{"role": "user", "content": "hi"}\n')
    ours = (b'{"role":"meta","source":"s"}\n'
            b'{"role":"assistant","content":null,"tool_calls":[{"id":"c","name":"bash","args":"{\\"command\\":\\"ls\\"}"}],'
            b'"timestamp":"2026-07-16T01:15:44.946Z"}\n'
            b'{"role":"user","content":"hi","timestamp":"2026-05-16T09:00:00.000Z"}\n')
    assert shared.canonical(ours, expected=False) == shared.canonical(theirs, expected=True)
    other = ours.replace(b'"content":"hi"', b'"content":"ho"')
    assert shared.canonical(other, expected=False) != shared.canonical(theirs, expected=True)
