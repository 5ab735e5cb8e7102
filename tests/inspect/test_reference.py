"""Letta's upstream fixtures and the raw samples in ../shared/reference: no questions, valid output.

For Pi and OpenClaw the rendered cleaner must write exactly Letta's expected records. Skipped
when the shared reference folder is not there (a checkout outside the workspace).
"""

from __future__ import annotations

import json

import pytest

from .helpers import REFERENCE, decision, inference, render_and_read, validation_problems

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is not available")

UPSTREAM = sorted((REFERENCE / "upstream-fixtures").glob("*/*/input.jsonl")) if REFERENCE.is_dir() else []
NATIVE = [p for p in UPSTREAM if p.parent.parent.name in ("pi", "openclaw")]
RAW = sorted((REFERENCE / "raw-samples").glob("*")) if REFERENCE.is_dir() else []


def _id(path) -> str:
    return "/".join(path.parts[-3:-1]) if path.name == "input.jsonl" else path.name


@pytest.mark.parametrize("sample", NATIVE, ids=_id)
def test_pi_and_openclaw_reproduce_lettas_records(sample, tmp_path):
    harness = sample.parent.parent.name
    inf = inference([sample])
    assert inf.questions == []
    assert inf.native_source == harness
    code, output, sessions = render_and_read(inf.mapping, [sample], tmp_path / "cleaner")
    assert code == 0, output
    assert validation_problems(tmp_path / "cleaner") == []
    expected = json.loads((sample.parent / "expected.json").read_text(encoding="utf-8"))["records"]
    assert sessions == [expected]


@pytest.mark.parametrize("sample", RAW, ids=_id)
def test_raw_samples_need_no_questions_and_validate(sample, tmp_path):
    inf = inference([sample])
    assert inf.questions == [], [(q.key, q.evidence) for q in inf.questions]
    code, output, sessions = render_and_read(inf.mapping, [sample], tmp_path / "cleaner")
    assert code == 0, output
    assert validation_problems(tmp_path / "cleaner") == []
    assert len(sessions) == 1
    roles = {r["role"] for r in sessions[0]}
    assert {"meta", "user", "assistant"} <= roles


@pytest.mark.parametrize("sample", RAW, ids=_id)
def test_file_time_fallback_only_when_no_time_field_exists(sample):
    inf = inference([sample])
    raw = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines() if line.strip()]
    has_time = any("timestamp" in record for record in raw)
    fallback = decision(inf, "timestamps.fallback")
    if has_time:
        assert fallback.value == "none"
    else:
        assert fallback.value == "file_mtime"
        assert fallback.confidence >= 0.8
        assert "no field" in fallback.evidence


def test_native_harnesses_are_recognised_and_recommended():
    for sample in UPSTREAM:
        inf = inference([sample])
        assert inf.native_source == sample.parent.parent.name
