"""Crash safety: a cleaner killed at any moment leaves only complete files, and a rerun finishes.

A rendered cleaner writes a folder of many sessions and is killed with SIGKILL at random moments
(some early, most while it writes; some with --jobs 2, killing the whole process group). After
every kill each visible file in the output folder must be byte-identical to what an uninterrupted
run writes, or, when the folder held an older version of the results, to that older file: never a
mix, never a partial file. The only other thing allowed is a hidden temporary file named the way
the cleaner names them (`.<name>.<pid>-<random>.tmp`); the rerun removes those (their writer is
dead) and completes to output byte-identical to the uninterrupted run.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .support import BASE, TIMEOUT, hidden_files, jsonl, run_cleaner, visible_files

SESSIONS = 100
TRIALS = 30
TEMP = re.compile(r"\..+\.[0-9]+-[A-Za-z0-9_]+\.tmp")


def make_input(root: Path, version: str) -> Path:
    """SESSIONS sessions in nested folders; ``version`` changes every file's content."""
    for i in range(SESSIONS):
        rows = [{**r, "text": f"{version} session {i}: {r.get('text', '')}"} if "text" in r else r for r in BASE]
        path = root / f"team{i % 3}" / f"run-{i:03d}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(jsonl(rows), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def crash_setup(projects, tmp_path_factory):
    root = tmp_path_factory.mktemp("crash")
    project = projects["corpus"]
    raw, old_raw = make_input(root / "raw", "new"), make_input(root / "old-raw", "old")
    reference, old = root / "reference", root / "old"
    for source, out in ((raw, reference), (old_raw, old)):
        result = run_cleaner(project, "--input", str(source), "--output", str(out))
        assert result.returncode == 0, result.stderr
    for path in old.rglob("*.jsonl"):  # clearly older than anything a trial writes
        os.utime(path, (1_000_000_000, 1_000_000_000))
    ref_files, old_files = visible_files(reference), visible_files(old)
    assert len(ref_files) == SESSIONS and ref_files.keys() == old_files.keys()
    assert all(ref_files[k] != old_files[k] for k in ref_files)
    return project, raw, old, ref_files, old_files, writing_time(project, raw, root / "timed")


def writing_time(project: Path, raw: Path, out: Path) -> float:
    """How long a run spends writing (first file to exit) here and now, so kills can land inside it."""
    spans = []
    for _ in range(2):
        started = time.time() - 1
        proc = subprocess.Popen([sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input", str(raw),
                                 "--output", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        first_output_appears(out, proc, started)
        began = time.monotonic()
        proc.wait(timeout=TIMEOUT)
        spans.append(time.monotonic() - began)
        shutil.rmtree(out)
    return min(spans)


def first_output_appears(out: Path, proc: subprocess.Popen, since: float, limit: float = 20.0) -> None:
    """Wait until the run has written its first file (one modified after ``since``)."""
    end = time.monotonic() + limit
    while time.monotonic() < end and proc.poll() is None:
        if out.is_dir() and any(p.stat().st_mtime >= since for p in out.rglob("*.jsonl")):
            return
        time.sleep(0.005)


def test_sigkill_at_random_moments_never_leaves_a_partial_file(crash_setup, tmp_path):
    project, raw, old, ref_files, old_files, span = crash_setup
    rng = random.Random(20260516)
    killed_mid_write = leftovers_cleaned = 0
    for trial in range(TRIALS):
        out = tmp_path / f"out{trial}"
        prefilled = trial % 2 == 1
        if prefilled:
            shutil.copytree(old, out)
        jobs = ["--jobs", "2"] if trial % 5 == 4 else []
        started = time.time() - 1  # file times may be coarser than the clock
        proc = subprocess.Popen([sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input", str(raw),
                                 "--output", str(out), *jobs], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        if trial % 3 == 0:
            time.sleep(rng.uniform(0, 0.5))  # anywhere from start-up on
        else:
            first_output_appears(out, proc, started)  # while it writes
            time.sleep(rng.uniform(0, 0.9 * span))
        finished = proc.poll() is not None
        with contextlib.suppress(ProcessLookupError):  # it may have finished just now
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=TIMEOUT)

        seen = visible_files(out) if out.exists() else {}
        for rel, data in seen.items():
            allowed = [ref_files.get(rel)] + ([old_files.get(rel)] if prefilled else [])
            assert data in allowed, f"trial {trial}: {rel} is partial or wrong after SIGKILL"
        stray = hidden_files(out) if out.exists() else []
        assert all(TEMP.fullmatch(Path(name).name) for name in stray), f"trial {trial}: {stray}"
        written = sum(1 for rel, data in seen.items() if data == ref_files[rel])
        if not finished and 0 < written < SESSIONS:
            killed_mid_write += 1

        rerun = run_cleaner(project, "--input", str(raw), "--output", str(out))
        assert rerun.returncode == 0, rerun.stderr
        if stray:
            leftovers_cleaned += 1
            assert f"notice: removed {len(stray)} temporary file(s)" in rerun.stderr
        assert visible_files(out) == ref_files, f"trial {trial}: the rerun differs from an uninterrupted run"
        assert hidden_files(out) == [], f"trial {trial}: the rerun left hidden files"
        shutil.rmtree(out)
    # The kills must really have landed while files were being written, or the test proves little.
    assert killed_mid_write >= TRIALS // 3, f"only {killed_mid_write} kills landed mid-write"
    print(f"{killed_mid_write} kills mid-write, {leftovers_cleaned} with a temporary file left and cleaned")


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_an_interrupt_stops_cleanly_with_exit_130(crash_setup, tmp_path, jobs, how):
    """Ctrl-C sends SIGINT to the whole foreground process group, workers included; SIGTERM (kill,
    a service manager) reaches only the main process, which stops its workers too."""
    project, raw, _, ref_files, _, _ = crash_setup
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input", str(raw),
                             "--output", str(out), "--jobs", jobs], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    first_output_appears(out, proc, 0)
    with contextlib.suppress(ProcessLookupError):  # it may have finished just now
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGTERM)
    _, stderr = proc.communicate(timeout=TIMEOUT)
    at_exit = visible_files(out)
    time.sleep(0.5)
    assert visible_files(out) == at_exit, "no worker goes on writing after the cleaner has exited"
    with contextlib.suppress(ProcessLookupError):  # whatever is left of the group, for the next test
        os.killpg(proc.pid, signal.SIGKILL)
    if proc.returncode == 0:
        pytest.skip("the run finished before the interrupt arrived")
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "interrupted: files already written are complete; rerun to finish" in stderr
    seen = visible_files(out)
    assert 0 < len(seen) < SESSIONS
    assert all(data == ref_files[rel] for rel, data in seen.items())
    assert hidden_files(out) == [], "an interrupt removes the temporary file being written"


def test_stale_temp_files_of_live_processes_and_foreign_files_are_kept(crash_setup, tmp_path):
    """The rerun removes only its own kind of leftovers, and only when their writer is gone."""
    project, raw, _, ref_files, _, _ = crash_setup
    out = tmp_path / "out"
    (out / "team0").mkdir(parents=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = out / "team0" / f".run-000.jsonl.{dead.pid}-abc123_x.tmp"
    live = out / "team0" / f".run-001.jsonl.{os.getpid()}-def456_y.tmp"
    foreign = [out / ".keep", out / "team0" / ".notes.tmp", out / "README.txt"]
    for path in (stale, live, *foreign):
        path.write_text("x")
    result = run_cleaner(project, "--input", str(raw), "--output", str(out))
    assert result.returncode == 0 and "notice: removed 1 temporary file(s)" in result.stderr
    assert not stale.exists() and live.exists() and all(p.exists() for p in foreign)
    assert {k: v for k, v in visible_files(out).items() if k != "README.txt"} == ref_files


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_that_cannot_be_written_fails_only_its_session(crash_setup, tmp_path, jobs):
    """A target that is in the way (here a folder of the output's name) fails that session with one
    line naming it; the other sessions are written and no temporary file stays behind."""
    project, raw, _, ref_files, _, _ = crash_setup
    out = tmp_path / "out"
    blocked = out / "team0" / "run-000.jsonl"
    (blocked / "inside").mkdir(parents=True)
    result = run_cleaner(project, "--input", str(raw), "--output", str(out), "--jobs", jobs)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "unexpected" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "could not write team0/run-000.jsonl" in errors[0], result.stderr
    assert f"sessions written:  {SESSIONS - 1}" in result.stdout
    assert {rel: data for rel, data in visible_files(out).items() if not rel.startswith("team0/run-000.jsonl")} == {
        rel: data for rel, data in ref_files.items() if rel != "team0/run-000.jsonl"}
    assert hidden_files(out) == []
