"""Crash safety: a cleaner killed at any moment leaves only complete files, and a rerun finishes.

A rendered cleaner writes a folder of many sessions and is killed with SIGKILL at chosen points of
its writing (with --jobs 1 and --jobs 2, killing the whole process group; into an empty folder and
into one holding an older version of the results). The test decides where each kill lands: the
writer's test-only pause (``TRAJECTORY_CLEANER_TEST_PAUSE``, see cleaner_runtime/writer.py) stops
the cleaner at the n-th file it writes, at every stage of the atomic write in turn (before it
begins, its temporary file just created, half-written, fully written but not renamed, renamed), and
says where it stopped; the kill follows. After every kill each visible file in the output folder
must be byte-identical to what an uninterrupted run writes, or, when the folder held an older
version of the results, to that older file: never a mix, never a partial file. The only other
thing allowed is a hidden temporary file named the way the cleaner names them
(`.<name>.<pid>-<random>.tmp`); the rerun removes those (their writer is dead) and completes to
output byte-identical to the uninterrupted run.
"""

from __future__ import annotations

import contextlib
import itertools
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
TEMP = re.compile(r"\..+\.[0-9]+-[A-Za-z0-9_]+\.tmp")
PAUSE_ENV = "TRAJECTORY_CLEANER_TEST_PAUSE"
STAGES = ("before", "created", "partial", "written", "renamed")


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
    return project, raw, old, ref_files, old_files


@contextlib.contextmanager
def _interruptible():
    """Ctrl-C as at a terminal, whatever ran the suite: a shell starting a job in the background (`&`,
    nohup, some CI runners) leaves SIGINT ignored, children inherit that, and Python then installs no
    KeyboardInterrupt handler, so the cleaner would rightly go on (found running the suite that way).
    A handled signal is reset to its default in a child at exec; an ignored one is not: so SIGINT is
    handled here while the cleaner starts."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def start_paused(project: Path, raw: Path, out: Path, ready: Path, number: int, stage: str,
                 jobs: str) -> tuple[subprocess.Popen, int, Path]:
    """Start the cleaner so that it stops at ``stage`` of its ``number``-th write (per process) and wait
    until it has: (the process group, the pid that stopped, the target it stopped at)."""
    env = {**os.environ, PAUSE_ENV: f"{number}:{stage}:{ready}"}
    log = ready.with_name("stderr.txt")
    with log.open("wb") as stderr, _interruptible():
        proc = subprocess.Popen([sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input", str(raw),
                                 "--output", str(out), "--jobs", jobs], stdout=subprocess.DEVNULL, stderr=stderr,
                                env=env, start_new_session=True)
    end = time.monotonic() + TIMEOUT
    while not ready.exists():
        if proc.poll() is not None:
            pytest.fail(f"the cleaner exited ({proc.returncode}) without stopping at {stage} of write {number}: "
                        f"{log.read_text(errors='replace')}")
        if time.monotonic() > end:
            kill_group(proc)
            pytest.fail(f"the cleaner did not stop at {stage} of write {number} within {TIMEOUT} s")
        time.sleep(0.01)
    pid, target = ready.read_text(encoding="utf-8").split(" ", 1)
    return proc, int(pid), Path(target)


def kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=TIMEOUT)


def signal_pending(pid: int, signum: int) -> bool | None:
    """Whether ``signum`` is pending (blocked) for process ``pid``; None when the process has ended
    (or /proc cannot say)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    if fields.get("State", "").strip().startswith(("Z", "X")):
        return None
    pending = int(fields.get("ShdPnd", "0"), 16) | int(fields.get("SigPnd", "0"), 16)
    return bool(pending >> (signum - 1) & 1)


def temp_files_of(target: Path, pid: int) -> list[Path]:
    """The temporary files process ``pid`` made for ``target``."""
    return sorted(target.parent.glob(f".{target.name}.{pid}-*.tmp"))


# Every stage, with one process and with two, into an empty folder and over older results; the write
# the kill lands in is drawn at random (with two processes, from the first half: each of them writes
# part of the sessions, and one of them surely reaches its n-th write when n <= SESSIONS / 2).
_rng = random.Random(20260516)
PLANS = [(stage, jobs, prefilled, _rng.randint(1, SESSIONS if jobs == "1" else SESSIONS // 2))
         for stage, jobs, prefilled in itertools.product(STAGES, ("1", "2"), (False, True))]
PLANS += [("created", "1", False, 1), ("renamed", "1", True, SESSIONS)]  # the first and the last write


@pytest.mark.parametrize(("stage", "jobs", "prefilled", "number"), PLANS,
                         ids=[f"{s}-of-write-{n}-jobs{j}{'-over-old' if p else ''}" for s, j, p, n in PLANS])
def test_sigkill_mid_write_never_leaves_a_partial_file(crash_setup, tmp_path, stage, jobs, prefilled, number):
    project, raw, old, ref_files, old_files = crash_setup
    out = tmp_path / "out"
    if prefilled:
        shutil.copytree(old, out)
    proc, pid, target = start_paused(project, raw, out, tmp_path / "ready", number, stage, jobs)
    try:
        # where the kill lands, checked before it does: the write stopped where it was told to
        rel = target.relative_to(out).as_posix()
        previous = old_files[rel] if prefilled else None
        now = target.read_bytes() if target.exists() else None
        temps = temp_files_of(target, pid)
        if stage == "renamed":
            assert now == ref_files[rel] and temps == []
        else:
            assert now == previous, f"{rel} changed before its write was committed"
            if stage == "before":
                assert temps == []
            else:
                assert len(temps) == 1, temps
                data = temps[0].read_bytes()
                if stage == "created":
                    assert data == b""
                elif stage == "partial":
                    assert 0 < len(data) < len(ref_files[rel]) and ref_files[rel].startswith(data)
                else:
                    assert data == ref_files[rel]
    finally:
        kill_group(proc)

    seen = visible_files(out) if out.exists() else {}
    for name, data in seen.items():
        allowed = [ref_files.get(name)] + ([old_files.get(name)] if prefilled else [])
        assert data in allowed, f"{name} is partial or wrong after SIGKILL"
    stray = hidden_files(out) if out.exists() else []
    assert all(TEMP.fullmatch(Path(name).name) for name in stray), stray
    if stage in ("created", "partial", "written"):
        assert stray, "the temporary file of the killed write is left for the rerun to remove"

    rerun = run_cleaner(project, "--input", str(raw), "--output", str(out))
    assert rerun.returncode == 0, rerun.stderr
    if stray:
        assert f"notice: removed {len(stray)} temporary file(s)" in rerun.stderr
    assert visible_files(out) == ref_files, "the rerun differs from an uninterrupted run"
    assert hidden_files(out) == [], "the rerun left hidden files"


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_an_interrupt_stops_cleanly_with_exit_130(crash_setup, tmp_path, jobs, how):
    """Ctrl-C sends SIGINT to the whole foreground process group, workers included; SIGTERM (kill,
    a service manager) reaches only the main process, which stops its workers too. The interrupt is
    sent while a file is half written (the writer's test pause holds the process writing it there, at
    its fifth write, and lets it go on once the signal that stops it waits for it): that file is
    finished or removed, never left half written, and nothing is written after the cleaner exits."""
    project, raw, _, ref_files, _ = crash_setup
    out = tmp_path / "out"
    ready = tmp_path / "ready"
    proc, paused, _ = start_paused(project, raw, out, ready, 5, "partial", jobs)
    try:
        end = time.monotonic() + TIMEOUT  # some earlier file is in place (the fsync threads go on meanwhile)
        while not visible_files(out) and time.monotonic() < end:
            time.sleep(0.01)
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGTERM)
        if jobs == "1":
            # the signal has reached the paused (main) process and waits, held while the file is written
            end = time.monotonic() + TIMEOUT
            while signal_pending(paused, signal.SIGINT if how == "ctrl-c" else signal.SIGTERM) is False \
                    and time.monotonic() < end:
                time.sleep(0.01)
        # (with --jobs 2 the paused worker gets no signal of its own: the main process lets the workers
        # finish the sessions they hold and waits for them)
        ready.with_name("ready.go").touch()  # the half-written file may now be finished
        proc.wait(timeout=TIMEOUT)
        at_exit = visible_files(out)
        time.sleep(0.5)
        assert visible_files(out) == at_exit, "no worker goes on writing after the cleaner has exited"
    finally:
        kill_group(proc)  # whatever is left of the group, for the next test
    stderr = ready.with_name("stderr.txt").read_text(encoding="utf-8", errors="replace")
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "interrupted: files already written are complete; rerun to finish" in stderr
    seen = visible_files(out)
    assert 0 < len(seen) < SESSIONS
    assert all(data == ref_files[rel] for rel, data in seen.items())
    assert hidden_files(out) == [], "an interrupt removes the temporary file being written"


def test_stale_temp_files_of_live_processes_and_foreign_files_are_kept(crash_setup, tmp_path):
    """The rerun removes only its own kind of leftovers, and only when their writer is gone."""
    project, raw, _, ref_files, _ = crash_setup
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
    project, raw, _, ref_files, _ = crash_setup
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
