"""The rendered README's failure-policy table says what the corpus proves, row by row.

Every row is exercised by at least one corpus case (or a dedicated test), every case belongs to a
row whose exit codes include the case's, the answer or flag a case's message names is named in its
row too, and the row shows the policy this very cleaner's mapping chose.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .corpus import CASES, COVERED_ELSEWHERE
from .support import run_cleaner


def policy_table(project: Path) -> dict[str, dict[str, str]]:
    text = (project / "README.md").read_text(encoding="utf-8")
    section = text.split("## Failure policy", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert header == ["case", "what", "outcome", "exit code"], header
    table = {}
    for row in rows[1:]:
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip().strip("|"))]
        assert len(cells) == 4, row
        table[cells[0]] = dict(zip(header[1:], cells[1:]))
    return table


@pytest.fixture(scope="module")
def table(projects) -> dict[str, dict[str, str]]:
    return policy_table(projects["corpus"])


def test_every_row_is_proven_and_every_case_has_a_row(table):
    used = {case.policy for case in CASES} | set(COVERED_ELSEWHERE)
    assert set(table) == used, f"rows without a test: {set(table) - used}; cases without a row: {used - set(table)}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case_matches_its_row(case, table):
    row = table[case.policy]
    codes = {int(code) for code in re.findall(r"\b\d+\b", row["exit code"])}
    assert case.exit in codes, f"{case.id} exits {case.exit}; the README row {case.policy!r} says {row['exit code']}"
    if case.fix:
        assert case.fix in row["what"] + row["outcome"], f"the row {case.policy!r} does not name {case.fix}"


def test_rows_show_this_cleaners_choices(projects):
    corpus, lenient, strict = (policy_table(projects[name]) for name in ("corpus", "lenient", "strict"))
    assert "(here `fail`)" in corpus["unknown record kind"]["outcome"]
    assert "(here `skip`)" in lenient["unknown record kind"]["outcome"]
    assert "(here `skip`)" in corpus["bad line"]["outcome"]
    assert "(here `fail`)" in strict["bad line"]["outcome"]
    assert "(here `fail`)" in strict["result without its call"]["outcome"]
    assert "(here `skip` / `skip`)" in lenient["session without user or assistant"]["outcome"]
    assert "(here `none`)" in corpus["session without any time"]["outcome"]
    assert "(here `file_mtime`)" in policy_table(projects["mtime"])["session without any time"]["outcome"]


def test_readme_and_help_agree_on_exit_codes(projects):
    project = projects["corpus"]
    readme = (project / "README.md").read_text(encoding="utf-8")
    help_text = run_cleaner(project, "--help").stdout
    for code in ("0", "1", "2", "130"):
        assert f"`{code}`" in readme.split("Exit codes:", 1)[1].split("\n\n", 1)[0]
        assert re.search(rf"\b{code}\b", help_text.split("exit codes:", 1)[1])
    for flag in ("--max-line-mb", "--max-document-mb", "--max-session-mb", "--jobs"):
        assert flag in help_text and flag in readme
