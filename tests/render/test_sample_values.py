"""Whatever the samples hold reaches the rendered project intact, and every rendered file is UTF-8.

Samples are exports nobody checked: a kind value may hold a lone UTF-16 surrogate, a file name
may not be UTF-8, and a sample set may hold nothing the mapping keeps. `new` must render a
project whose cleaner keeps the exact values and whose files any tool can read, or refuse in one
line, leaving nothing behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cleaner_runtime.mapping import read_answers
from generator.answers import load_answers

from .conftest import cli

RECORDS = [
    {"type": "user", "text": "Please list the files.", "ts": "2026-05-16T09:00:00Z"},
    {"type": "call", "id": "call_1", "name": "list_files", "args": {"path": "."}, "ts": "2026-05-16T09:00:01Z"},
    {"type": "result", "call_id": "call_1", "output": "a.txt b.txt", "ts": "2026-05-16T09:00:02Z"},
    {"type": "assistant", "text": "There are two files.", "ts": "2026-05-16T09:00:03Z"},
]
ODD_KIND = "x\udc80y"  # what json.loads gives for "x\udc80y": valid JSON, not encodable as UTF-8


def jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)  # ASCII: surrogates stay \u escapes


def assert_all_utf8(project: Path) -> None:
    for path in project.rglob("*"):
        os.fsencode(path.name).decode("utf-8")  # raises for a name that is not UTF-8
        if path.is_file():
            path.read_bytes().decode("utf-8")


def assert_nothing_left(folder: Path, name: str) -> None:
    assert not (folder / name).exists()
    assert not [p.name for p in folder.iterdir() if p.name.startswith(f".{name}")]


def cleaner_mapping(project: Path) -> dict:
    """The mapping the rendered cleaner runs with, read as the cleaner reads it."""
    return read_answers(project / ".copier-answers.yml")


def test_a_lone_surrogate_in_a_kind_survives_exactly_where_it_is_code(tmp_path: Path):
    (tmp_path / "sur.jsonl").write_text(jsonl([*RECORDS, {"type": ODD_KIND, "ts": "2026-05-16T09:00:04Z"}]),
                                        encoding="utf-8")
    result = cli("new", "sur.jsonl", "--yes", "-o", "proj", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    project = tmp_path / "proj"
    assert_all_utf8(project)
    # The answers file holds the exact value, as the cleaner and the generator read it, so the rule
    # matches those records...
    assert {"type": ODD_KIND} in [kind["match"] for kind in cleaner_mapping(project)["kinds"]]
    answers = load_answers(project / ".copier-answers.yml")
    assert {"type": ODD_KIND} in [kind["match"] for kind in answers["kinds"]]
    # ...and the documents show it escaped, as the cleaner's messages do.
    assert "`{'type': 'x\\udc80y'}`" in (project / "README.md").read_text(encoding="utf-8")
    assert "x\\udc80y" in (project / "AGENT_PROMPT.md").read_text(encoding="utf-8")
    assert (project / "tests" / "expected" / "sur.jsonl").is_file()
    assert cli("update", "proj", "--check", cwd=tmp_path).returncode == 0


def test_a_sample_name_that_is_not_utf8_is_copied_under_a_utf8_name(tmp_path: Path):
    raw = tmp_path / "in"
    raw.mkdir()
    try:
        odd = raw / os.fsdecode(b"caf\xe9.jsonl")
        odd.write_text(jsonl(RECORDS), encoding="utf-8")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    # A real file already holds the name the escaped one would take: neither may replace the other.
    (raw / "caf%E9.jsonl").write_text(jsonl(RECORDS[:1] + RECORDS[3:]), encoding="utf-8")
    result = cli("new", "in", "--yes", "-o", "proj", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    project = tmp_path / "proj"
    assert_all_utf8(project)
    samples = project / "tests" / "samples" / "in"
    assert sorted(p.name for p in samples.iterdir()) == ["2~caf%E9.jsonl", "caf%E9.jsonl"]
    assert (samples / "2~caf%E9.jsonl").read_bytes() == odd.read_bytes()
    assert (samples / "caf%E9.jsonl").read_bytes() == (raw / "caf%E9.jsonl").read_bytes()
    expected = project / "tests" / "expected" / "in"
    assert sorted(p.name for p in expected.iterdir()) == ["2~caf%E9.jsonl", "caf%E9.jsonl"]
    assert "notice: in/caf\\udce9.jsonl: its name is not valid UTF-8; copied as " \
           "proj/tests/samples/in/2~caf%E9.jsonl" in result.stderr
    # The project's own golden tests pass on the renamed copies.
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project,
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout + run.stderr


NOISE = [{"type": "progress", "pct": 10, "ts": "2026-05-16T09:00:00Z"},
         {"type": "heartbeat", "ts": "2026-05-16T09:00:01Z"}]
NOISE_MAPPING = """\
mapping_version: 1
source: noise
kinds:
  - {name: progress, match: {type: progress}, role: skip}
  - {name: heartbeat, match: {type: heartbeat}, role: skip}
"""


@pytest.mark.parametrize("how", [["--answers", "mapping.yml"], ["--yes"]], ids=["answers", "yes"])
def test_samples_the_cleaner_writes_nothing_for_render_nothing(tmp_path: Path, how: list[str]):
    raw = tmp_path / "raw"
    raw.mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        (raw / name).write_text(jsonl(NOISE), encoding="utf-8")
    (tmp_path / "mapping.yml").write_text(NOISE_MAPPING, encoding="utf-8")
    result = cli("new", "raw", *how, "-o", "proj", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "rendered" not in result.stdout
    # The cleaner's summary says what was skipped and why, naming the samples as they were given.
    assert "sessions written:  0" in result.stderr
    assert "raw/a.jsonl: no records to write" in result.stderr
    assert "(first at raw/a.jsonl:1)" in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("error: raw: the cleaner wrote no trajectory for these samples")
    assert errors[0].endswith("nothing was rendered")
    fix = "change mapping.yml so their records are kept" if how[0] == "--answers" else "inspect SAMPLES --mapping"
    assert fix in errors[0], errors[0]
    assert_nothing_left(tmp_path, "proj")
