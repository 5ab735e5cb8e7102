"""The bad-input corpus through the generator: `trajectory-cleaner new SAMPLES --answers FILE`.

`new` copies the samples into the project and runs the rendered cleaner on them to record the
expected outputs, so a bad sample must end exactly as it ends for the cleaner: the same exit code
(0 rendered; 1 the cleaner failed on some sessions of the samples: nothing rendered, and the
error names the sample file and line and the answer to change; 2 nothing rendered), the same output files under
tests/expected/, and never a traceback or a hang. A sample set the cleaner writes nothing for
(every session skipped) is the exception: `new` renders nothing and exits 1 with the summary. Cases that only make sense for the cleaner's
own flags or paths say why in their ``generator`` field.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import unreadable_prefix
from .corpus import CASES, Case, put
from .support import BASE, REPO, TIMEOUT, build_case, jsonl, no_traceback, run_cli_forked, run_generator

SAME = [case for case in CASES if case.generator == "same"]
PROJECT = "proj"
# A sample whose name is not UTF-8 is copied into the project under a UTF-8 name (bytes as %XX),
# and its expected output follows that name.
UTF8_NAMES = {os.fsdecode(b"caf\xe9.jsonl"): "caf%E9.jsonl"}


@dataclass
class Ran:
    work: Path
    given: str = ""
    result: subprocess.CompletedProcess | None = None
    error: BaseException | None = None


@pytest.fixture(scope="session")
def generator_results(answers_dir: Path, tmp_path_factory) -> dict[str, Ran]:
    root = tmp_path_factory.mktemp("generator-corpus")
    runs: dict[str, Ran] = {}
    for case in SAME:
        ran = runs[case.id] = Ran(root / case.id)
        ran.given, ran.error = build_case(case, ran.work)
    todo = [case for case in SAME if runs[case.id].error is None]
    jobs = [(runs[case.id].work,
             ["new", runs[case.id].given, "--answers", str(answers_dir / f"{case.mapping}.yml"), "-o", PROJECT])
            for case in todo]
    for case, outcome in zip(todo, run_cli_forked(jobs)):
        if isinstance(outcome, BaseException):
            runs[case.id].error = outcome
        else:
            runs[case.id].result = outcome
    return runs


def test_most_of_the_corpus_goes_through_the_generator():
    assert len(SAME) >= 40
    for case in CASES:
        assert case.generator == "same" or len(case.generator or "") > 10, f"{case.id}: say why it is not run"


@pytest.mark.parametrize("case", SAME, ids=lambda c: c.id)
def test_new_outcome(case: Case, generator_results: dict):
    ran = generator_results[case.id]
    if ran.error is not None:
        raise ran.error
    result = ran.result
    no_traceback(result)
    # Messages name the sample inside the project; seen from tests/samples they read as the cleaner's.
    stderr = result.stderr.replace(f"{PROJECT}/tests/samples/", "")
    shown = f"exit {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
    project = ran.work / PROJECT
    if case.exit == 0 and case.out == {}:
        # Nothing to test: `new` shows the cleaner's summary and one error line, and renders nothing.
        errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error:")]
        assert result.returncode == 1 and not project.exists(), shown
        assert len(errors) == 1 and "the cleaner wrote no trajectory" in errors[0], shown
        for text in case.stdout:
            assert text in stderr, shown
        return
    assert result.returncode == case.exit, shown
    if case.exit == 2:
        assert not project.exists(), "a failed render leaves nothing behind"
        assert [ln for ln in result.stderr.splitlines() if ln.startswith("error:")], shown
        return
    if case.exit == 1:
        # The cleaner fails on some sessions of the samples: a project whose own tests would fail on
        # arrival is not rendered; the cleaner's errors name the sample and the answer to change.
        assert not project.exists(), "a failed render leaves nothing behind"
        for text in case.stderr:
            assert text in stderr, shown
        if case.fix:
            assert case.fix in stderr, shown
        assert "nothing was rendered" in result.stderr, shown
        return
    assert (project / "clean_to_trajectory_jsonl.py").is_file()
    expected_dir = project / "tests" / "expected"
    prefix = "" if (ran.work / ran.given).is_file() else Path(ran.given).name + "/"
    written = {p.relative_to(expected_dir).as_posix(): p.read_bytes()
               for p in sorted(expected_dir.rglob("*.jsonl"))}
    if case.out is not None:
        assert written == {prefix + UTF8_NAMES.get(rel, rel): data for rel, data in case.out.items()}, shown
        for rel in set(case.out) & set(UTF8_NAMES):
            assert f"copied as {PROJECT}/tests/samples/{prefix}{UTF8_NAMES[rel]}" in result.stderr, shown
    else:
        assert written, shown
    assert not [p for p in project.rglob(".*.tmp")], "temporary files left in the project"


def test_generator_usage_errors(answers_dir: Path, tmp_path: Path):
    """Missing samples, an output that is a file or not empty, a broken answers file: exit 2, one line."""
    put(tmp_path, "s.jsonl", jsonl(BASE))
    put(tmp_path, "taken", "a file\n")
    put(tmp_path, "full/x", "something\n")
    put(tmp_path, "bad.yml", "mapping_version: 1\n\tsource: x\n")
    put(tmp_path, "wrong.yml", "mapping_version: 1\nsource: x\nkinds: [{role: nonsense}]\n")
    answers = str(answers_dir / "corpus.yml")
    cases = [
        (["nope.jsonl", "--answers", answers, "-o", "p1"], "nope.jsonl: no such file or folder"),
        (["s.jsonl", "--answers", answers, "-o", "taken"], "taken"),
        (["s.jsonl", "--answers", answers, "-o", "full"], "full: exists and is not empty"),
        (["s.jsonl", "--answers", "bad.yml", "-o", "p2"], "bad.yml:2: not valid YAML"),
        (["s.jsonl", "--answers", "wrong.yml", "-o", "p3"], "wrong.yml: kinds[0].role"),
        (["s.jsonl", "--answers", "missing.yml", "-o", "p4"], "missing.yml: no such answers file"),
    ]
    for args, message in cases:
        result = run_generator("new", *args, cwd=tmp_path)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr and result.stderr.startswith("error:"), (args, result.stderr)
    assert not any((tmp_path / p).exists() for p in ("p1", "p2", "p3", "p4"))
    assert (tmp_path / "taken").read_text() == "a file\n" and (tmp_path / "full" / "x").exists()


def test_generator_unreadable_sample(answers_dir: Path, tmp_path: Path):
    """A sample that cannot be read stops `new` with one line naming it, and nothing is rendered."""
    prefix, no_block = unreadable_prefix(tmp_path)
    if no_block:
        pytest.skip(no_block)
    put(tmp_path, "in/good.jsonl", jsonl(BASE))
    locked = put(tmp_path, "in/locked.jsonl", jsonl(BASE))
    locked.chmod(0)
    try:
        result = subprocess.run([*prefix, "env", f"PYTHONPATH={REPO}", sys.executable, "-m", "generator", "new", "in",
                                 "--answers", str(answers_dir / "corpus.yml"), "-o", PROJECT],
                                capture_output=True, text=True, cwd=tmp_path, timeout=TIMEOUT, check=False)
    finally:
        locked.chmod(0o644)
    no_traceback(result)
    assert result.returncode == 2, result.stderr
    assert "in/locked.jsonl" in result.stderr and result.stderr.startswith("error:"), result.stderr
    assert not (tmp_path / PROJECT).exists()

