"""The unexpected, kept small. A bug in the cleaner itself (an unexpected exception while one
session is mapped, checked or read) fails that session only, with one line naming where it
happened; the run cleans the other sessions, exits 1, and --debug adds the traceback. A summary
nobody reads any more (`| head`) does not turn a good run into an error.

The bug is planted by wrapping the runtime's record mapping so that it raises for one marked
record, the way a real bug would surface: from deep inside ``SessionBuilder.add``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .support import BASE, TIMEOUT, jsonl, visible_files

PLANT = """
import runpy, sys
sys.path.insert(0, sys.argv[1])
from cleaner_runtime import convert
add = convert.SessionBuilder.add
def buggy(self, where, record):
    if record.get("text") == "trigger the bug":
        return {}["no such key"]
    return add(self, where, record)
convert.SessionBuilder.add = buggy
script = sys.argv[1] + "/clean_to_trajectory_jsonl.py"
sys.argv = [script, *sys.argv[2:]]
runpy.run_path(script, run_name="__main__")
"""


def write_input(root: Path) -> Path:
    root.mkdir()
    for i in range(6):
        rows = [dict(r) for r in BASE]
        if i == 2:
            rows[3] = {**rows[3], "text": "trigger the bug"}  # the final assistant reply
        (root / f"run-{i}.jsonl").write_text(jsonl(rows), encoding="utf-8")
    return root


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("debug", [False, True])
def test_a_bug_fails_only_its_session(projects, tmp_path, jobs, debug):
    project = projects["corpus"]
    raw = write_input(tmp_path / "raw")
    assert "trigger the bug" in (raw / "run-2.jsonl").read_text(encoding="utf-8"), "the planted record is in place"
    out = tmp_path / "out"
    flags = ["--debug"] if debug else []
    result = subprocess.run([sys.executable, "-c", PLANT, str(project), "--input", str(raw), "--output", str(out),
                             "--jobs", jobs, *flags], capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert result.returncode == 1, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    assert "run-2.jsonl:" in errors[0] and "unexpected KeyError" in errors[0] and "a bug in the cleaner" in errors[0]
    assert ("Traceback" in result.stderr) == debug
    assert "sessions written:  5" in result.stdout and "sessions failed:   1" in result.stdout
    assert sorted(visible_files(out)) == [f"run-{i}.jsonl" for i in range(6) if i != 2]


def test_a_closed_stdout_does_not_turn_a_good_run_into_an_error(projects, tmp_path):
    """`clean ... | head` (the summary's reader goes away): the sessions are written and the exit
    code is the run's own, without an 'unexpected BrokenPipeError'."""
    import os

    project = projects["corpus"]
    raw = write_input(tmp_path / "raw")
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody reads: the first flush of stdout meets a broken pipe
    try:
        result = subprocess.run([sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input", str(raw),
                                 "--output", str(tmp_path / "out")], stdout=write_end, stderr=subprocess.PIPE,
                                text=True, timeout=TIMEOUT, check=False)
    finally:
        os.close(write_end)
    assert result.returncode == 0, result.stderr
    assert "unexpected" not in result.stderr and "Traceback" not in result.stderr
    assert len(visible_files(tmp_path / "out")) == 6
