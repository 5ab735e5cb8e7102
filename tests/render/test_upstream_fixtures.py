"""Cleaners rendered from the answers in examples/answers reproduce Letta's own normalizer output."""

from __future__ import annotations

import json

import pytest

from .conftest import ANSWERS, SHARED, cli, needs_shared, read_jsonl

CASES = [("pi", "tool-calls"), ("pi", "cleanup"), ("openclaw", "tool-calls"), ("openclaw", "cleanup")]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    needs_shared()
    projects = {}
    for source in ("pi", "openclaw"):
        dest = tmp_path_factory.mktemp(source) / "cleaner"
        result = cli("new", str(SHARED / "upstream-fixtures" / source), "--answers", str(ANSWERS / f"{source}.yml"),
                     "-o", str(dest))
        assert result.returncode == 0, result.stderr
        projects[source] = dest
    return projects


@pytest.mark.parametrize(("source", "case"), CASES)
def test_output_equals_letta_expected(rendered, source, case):
    expected = json.loads((SHARED / "upstream-fixtures" / source / case / "expected.json").read_text())["records"]
    got = read_jsonl(rendered[source] / "tests" / "expected" / source / case / "input.jsonl")
    assert got == expected


@pytest.mark.parametrize("source", ["pi", "openclaw"])
def test_output_key_order_matches_letta(rendered, source):
    """Not required by the schema, but byte-for-byte diffs against Letta stay readable."""
    expected = json.loads((SHARED / "upstream-fixtures" / source / "tool-calls" / "expected.json").read_text())
    got = read_jsonl(rendered[source] / "tests" / "expected" / source / "tool-calls" / "input.jsonl")
    assert [list(r) for r in got] == [list(r) for r in expected["records"]]
