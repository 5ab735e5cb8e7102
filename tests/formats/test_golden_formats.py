"""Every format of the golden corpus: the mapping renders a cleaner that writes exactly the
hand-written expected output, which the schema and Letta's own validator accept; and `new --yes`
either writes that same output or refuses, naming its questions - never a different result with
exit 0 (right or refuse, never wrong)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from ..oracles import letta
from .support import REPO, Case, cases, first_difference, generator, only_output, records, run_cleaner

CASES = cases()
SCHEMA = json.loads((REPO / "cleaner_runtime" / "trajectory-v1.schema.json")
                    .read_text(encoding="utf-8"))


def test_the_corpus_covers_enough_formats():
    assert len({case.folder.parent.name for case in CASES}) >= 15


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_mapping_reproduces_the_hand_written_output(case: Case, tmp_path):
    raw = case.raw_copy(tmp_path)
    rendered = generator("new", raw, "--answers", case.folder / "mapping.yml", "-o", tmp_path / "cleaner")
    assert rendered.returncode == 0, rendered.stdout + rendered.stderr
    done = run_cleaner(tmp_path / "cleaner", raw, tmp_path / "out")
    assert done.returncode == 0, done.stdout + done.stderr
    got = only_output(tmp_path / "out")
    assert got.read_bytes() == case.expected.read_bytes(), first_difference(got, case.expected)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_expected_output_is_valid_trajectory_v1(case: Case):
    jsonschema.validate(records(case.expected), SCHEMA)


def test_letta_accepts_every_expected_output():
    if not letta.available():
        pytest.skip("Letta's validator needs agent-trajectory (the bench extra) and Node.js")
    verdicts = letta.verdicts([case.expected for case in CASES])
    assert {case.name: v for case, v in zip(CASES, verdicts, strict=True) if v} == {}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_yes_writes_the_same_output_or_refuses_naming_its_questions(case: Case, tmp_path):
    raw = case.raw_copy(tmp_path)
    source = case.mapping["source"]
    done = generator("new", raw, "--yes", "--json", "--source", source, "-o", tmp_path / "cleaner")
    if done.returncode == 1:
        report = json.loads(done.stdout)
        assert (report.get("questions") or report.get("losses") or report.get("failures")
                or report.get("doubled")), done.stdout
        return
    assert done.returncode == 0, done.stdout + done.stderr
    cleaned = run_cleaner(tmp_path / "cleaner", raw, tmp_path / "out")
    assert cleaned.returncode == 0, cleaned.stdout + cleaned.stderr
    got = only_output(tmp_path / "out")
    assert got.read_bytes() == case.expected.read_bytes(), (
        "`new --yes` rendered a different result with exit 0: " + first_difference(got, case.expected))
