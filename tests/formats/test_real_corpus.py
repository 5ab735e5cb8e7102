"""The corpus of real public trace formats (issue 35): `tests/fixtures/real/<format>/` and, when the
shared reference tree is beside the repository, `../shared/reference/real-world/<format>/`.

Every format folder names where its raw files came from in SOURCE.md (a repository, a 40-hex commit and a
permissive licence), holds the raw files, and holds expected output written by hand from what the format
means: every expected file must be trajectory-v1 by the project's own schema and pass
`python -m generator validate` (the schema plus Letta's rules).

The raw files, and the expectations written from them, are copies of data from public repositories. This
workplace keeps such data files under the steering repository's shared/ only, so they are not committed
here (tests/fixtures/real/.gitignore): a checkout without them skips those checks, naming the folder; the
same folder under ../shared/reference/real-world/ is used when it is there. SOURCE.md and case.yml are
ours and are always checked.

The shared folders were written before this corpus and are held to the same rules; a shared expected file
that breaks them is reported as an expected failure with the reason (the files there are read-only here),
so the day they are corrected the test says so.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[2]
OURS = REPO / "tests" / "fixtures" / "real"
SHARED = REPO.parent / "shared" / "reference" / "real-world"
SCHEMA = json.loads((REPO / "cleaner_runtime" / "trajectory-v1.schema.json").read_text(encoding="utf-8"))

LICENCES = ("MIT", "Apache-2.0", "Apache License", "BSD", "ISC", "Unlicense", "CC0", "MPL-2.0", "Zlib")
REPO_NAME = re.compile(r"\brepo:\s*`?([A-Za-z0-9][\w.-]*/[\w.-]+)")
COMMIT = re.compile(r"\b[0-9a-f]{40}\b")
LICENCE_LINE = re.compile(r"^\W*licen[cs]e\b\s*:?(.*)$", re.IGNORECASE | re.MULTILINE)
SESSIONS = {"file", "field", "element"}


def _folders(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))) if root.is_dir() else []


FOLDERS = [("ours", p) for p in _folders(OURS)] + [("shared", p) for p in _folders(SHARED)]
IDS = [f"{where}:{p.name}" for where, p in FOLDERS]


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []


def _data_folder(where: str, folder: Path, part: str) -> Path | None:
    """`raw` or `expected` of a format: its own, else the shared copy of the same format, else None."""
    for candidate in (folder / part, SHARED / folder.name / part):
        if _files(candidate):
            return candidate
    return None


def _records(path: Path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _expected_for(raw: Path, expected: Path) -> list[Path]:
    """Expected files of one raw file: `<name>.expected.jsonl`, or `<name>/<session>.expected.jsonl`."""
    single = expected / f"{raw.name}.expected.jsonl"
    return ([single] if single.is_file() else []) + sorted((expected / raw.name).glob("*.expected.jsonl"))


def test_the_corpus_covers_enough_real_formats():
    assert len(_folders(OURS)) >= 12, [p.name for p in _folders(OURS)]


@pytest.mark.parametrize(("where", "folder"), FOLDERS, ids=IDS)
def test_source_names_the_repository_commit_and_licence(where: str, folder: Path):
    source = folder / "SOURCE.md"
    assert source.is_file(), f"{folder.name}: no SOURCE.md"
    text = source.read_text(encoding="utf-8")
    assert REPO_NAME.search(text), f"{source}: no `repo: owner/name` line"
    assert COMMIT.search(text), f"{source}: no 40-hex commit"
    licences = [m.group(1) for m in LICENCE_LINE.finditer(text)]
    assert any(name.lower() in line.lower() for line in licences for name in LICENCES), (
        f"{source}: no licence line naming a permissive licence ({', '.join(LICENCES)}): {licences}")


@pytest.mark.parametrize(("where", "folder"), [f for f in FOLDERS if f[0] == "ours"],
                         ids=[i for i in IDS if i.startswith("ours:")])
def test_case_yml_says_the_source_and_what_one_session_is(where: str, folder: Path):
    case = folder / "case.yml"
    assert case.is_file(), f"{folder.name}: no case.yml"
    fields = dict(re.findall(r"^(\w+):\s*(.+?)\s*$", case.read_text(encoding="utf-8"), re.MULTILINE))
    assert fields.get("source"), f"{case}: no source"
    assert fields.get("session") in SESSIONS, f"{case}: session must be one of {sorted(SESSIONS)}"
    assert fields.get("note"), f"{case}: no note"


@pytest.mark.parametrize(("where", "folder"), FOLDERS, ids=IDS)
def test_raw_files_are_there_and_each_has_an_expectation(where: str, folder: Path):
    raw = _data_folder(where, folder, "raw")
    if raw is None:
        pytest.skip(f"{folder.name}: raw files not in this checkout (data files live under shared/)")
    raws = _files(raw)
    assert raws, f"{folder.name}: raw/ is empty"
    expected = _data_folder(where, folder, "expected")
    if expected is None:
        pytest.skip(f"{folder.name}: expected files not in this checkout (data files live under shared/)")
    missing = [p.name for p in raws if not _expected_for(p, expected)]
    assert not missing, f"{folder.name}: raw files without an expected file: {missing}"


@pytest.mark.parametrize(("where", "folder"), FOLDERS, ids=IDS)
def test_every_expectation_is_trajectory_v1(where: str, folder: Path):
    expected = _data_folder(where, folder, "expected")
    if expected is None:
        pytest.skip(f"{folder.name}: expected files not in this checkout (data files live under shared/)")
    files = sorted(expected.rglob("*.expected.jsonl"))
    assert files, f"{folder.name}: no *.expected.jsonl under {expected}"
    problems = []
    for path in files:
        try:
            jsonschema.validate(_records(path), SCHEMA)
        except (ValueError, jsonschema.ValidationError) as exc:
            problems.append(f"{path.relative_to(expected)}: schema: {str(exc).splitlines()[0]}")
    done = subprocess.run([sys.executable, "-m", "generator", "validate", *map(str, files)], cwd=REPO,
                          capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        errors = [line for line in done.stdout.splitlines() if ": warning:" not in line]
        problems.append("generator validate: " + "\n".join(errors[-12:]))
    if problems and where == "shared":
        pytest.xfail(f"shared reference {folder.name} is not strict trajectory-v1: {problems[0][:300]}")
    assert not problems, "\n".join(problems)
