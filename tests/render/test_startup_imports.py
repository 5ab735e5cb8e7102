"""A rendered cleaner starts without importing jsonschema when nothing needs it (#17: start-up).

Importing jsonschema costs a cleaner's start ~110 ms, paid again by ``new``'s preview run. The
compiled checks (``cleaner_runtime.schema_compiler``) judge the mapping and valid records alone;
jsonschema is imported only to explain a mapping or a record that fails (or to judge what the
compiler does not know), so a plain run (a valid mapping, valid records) never imports it, and a
run with a failing record still does, for its message.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO, cli

FIXTURE = REPO / "tests" / "fixtures" / "anthropic_messages" / "thinking_tools"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("startup") / "p"
    result = cli("new", str(FIXTURE / "raw"), "-o", str(target), "--answers", str(FIXTURE / "mapping.yml"))
    assert result.returncode == 0, result.stderr
    return target


def imported(project: Path, raw: Path, out: Path, *extra: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run the rendered cleaner as a user does (its own copy of the runtime, a fresh interpreter)
    and return the run and the top-level packages it imported (``-X importtime``)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([sys.executable, "-X", "importtime", str(project / "clean_to_trajectory_jsonl.py"),
                             "--input", str(raw), "--output", str(out), "--quiet", *extra],
                            capture_output=True, text=True, env=env, cwd=project, check=False)
    names = {line.rsplit("|", 1)[1].strip().split(".")[0] for line in result.stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    return result, names


def test_a_plain_run_does_not_import_jsonschema(project: Path, tmp_path: Path):
    result, names = imported(project, FIXTURE / "raw", tmp_path / "out")
    assert result.returncode == 0, result.stderr[-2000:]
    assert list((tmp_path / "out").rglob("*.jsonl"))
    assert "cleaner_runtime" in names  # the run was seen
    assert "jsonschema" not in names


def test_a_plain_run_with_jobs_1_starts_no_process_pool(project: Path, tmp_path: Path):
    result, names = imported(project, FIXTURE / "raw", tmp_path / "out", "--jobs", "1")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "multiprocessing" not in names


def test_a_record_that_fails_imports_jsonschema_for_its_message(project: Path, tmp_path: Path):
    """A hook makes a record the schema rejects: the run fails it with jsonschema's explanation."""
    hooks = (project / "cleaner_hooks.py").read_text(encoding="utf-8")
    broken = tmp_path / "p"
    shutil.copytree(project, broken)
    (broken / "cleaner_hooks.py").write_text(
        hooks + "\n\ndef transform_session(records, ctx):\n    records[-1]['stray'] = 1\n    return records\n",
        encoding="utf-8")
    result, names = imported(broken, FIXTURE / "raw", tmp_path / "out")
    assert result.returncode != 0
    assert "jsonschema" in names
    assert "unknown key 'stray'" in result.stderr + result.stdout, (result.stdout, result.stderr)
