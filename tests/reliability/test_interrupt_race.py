"""Stopping a process pool after Ctrl-C or SIGTERM prints nothing and ends its workers, whatever the
interleaving of the main thread and the pool's manager thread (cleaner_runtime.pool.stop_now).

The cleaner's own interrupt test (test_crash_safety.py, ``--jobs 2``) met the bad interleaving
once in CI: a traceback ending in ``InvalidStateError: CANCELLED: <Future ... state=cancelled>``
from the manager thread. interrupt_race.py forces that interleaving in every trial.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from concurrent.futures import InvalidStateError
from pathlib import Path

import pytest

from cleaner_runtime.pool import stop_now

SCRIPT = Path(__file__).with_name("interrupt_race.py")
ROOT = Path(__file__).resolve().parents[2]


def run_trials(stop: str, trials: int) -> tuple[str, str]:
    result = subprocess.run([sys.executable, str(SCRIPT), stop, str(trials)], check=False, capture_output=True,
                            text=True, timeout=120, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    return result.stdout.strip(), result.stderr


def test_a_stop_after_an_interrupt_prints_nothing_and_ends_the_workers():
    summary, stderr = run_trials("runtime", 12)
    assert "tracebacks=0 workers_left=0 hung=0" in summary, summary + "\n" + stderr
    assert "Traceback" not in stderr, stderr


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="CPython ignores the error itself since 3.12 (gh-107219)")
def test_the_forced_interleaving_does_reproduce_the_traceback():
    """The harness is worth something: the stop of before (shutdown, then terminate, not waiting for
    the manager thread) prints the manager thread's traceback in every trial."""
    summary, stderr = run_trials("terminate", 5)
    assert "tracebacks=5 workers_left=0 hung=0" in summary, summary + "\n" + stderr
    assert stderr.count("InvalidStateError: CANCELLED: <Future at") == 5


class _RaisingPool:
    """Stands in for a ProcessPoolExecutor whose manager thread raises ``error`` once shut down."""

    def __init__(self, error: BaseException):
        self.go = threading.Event()
        self._processes = {}

        def manage() -> None:
            self.go.wait(10)
            time.sleep(0.05)
            raise error

        self._executor_manager_thread = threading.Thread(target=manage)
        self._executor_manager_thread.start()

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        self.go.set()


@pytest.mark.parametrize("error", [InvalidStateError("CANCELLED: <Future state=cancelled>"), RuntimeError("a bug")],
                         ids=["shutdown-race", "other-error"])
def test_only_the_shutdown_race_is_kept_quiet_and_only_while_stopping(monkeypatch, error):
    reported = []
    monkeypatch.setattr(threading, "excepthook", lambda args: reported.append(args.exc_type))
    before = threading.excepthook
    pool = _RaisingPool(error)
    stop_now(pool)  # type: ignore[arg-type]
    assert reported == ([] if isinstance(error, InvalidStateError) else [RuntimeError])
    assert threading.excepthook is before, "the hook is removed once the manager thread has ended"
    other = threading.Thread(target=lambda: (_ for _ in ()).throw(InvalidStateError("elsewhere")))
    other.start()
    other.join()
    assert reported[-1] is InvalidStateError, "the same error from any other thread is reported"


HELPERS_STOP = """
import threading, time
from cleaner_runtime import model
from cleaner_runtime.offload import TEXT, Helpers, _Batch
errors = []
threading.excepthook = lambda args: errors.append(args.exc_type.__name__)
for trial in range({trials}):
    helpers = Helpers(2, model.Privacy())
    processes = [link.process for link in helpers.links]
    batch = (bytes([TEXT]), ["write to a@b.example " * 20000])  # a result of about 0.5 MB each
    for n in range(12):
        helpers.links[n % 2].send(_Batch([], 0), batch)
    time.sleep(0.05 * (trial % 4))
    helpers.stop(wait=False)
    assert not any(p.is_alive() for p in processes), trial
print("errors", errors)
"""


def test_helpers_stopped_while_sending_large_results_stop_promptly():
    """Helpers stopped while they clean and send large results, as after a Ctrl-C: every one ends,
    nothing hangs (the main process reads none of their pipes then) and no thread reports an error."""
    result = subprocess.run([sys.executable, "-c", HELPERS_STOP.format(trials=12)], check=False, capture_output=True,
                            text=True, timeout=90, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "errors []" and "Traceback" not in result.stderr, result.stdout + result.stderr


LOST_INTERRUPT = """
import os, signal, sys, time, weakref
from cleaner_runtime import pool

pool.pool_process_signals()


class Lock:
    pass


def task():
    lock = Lock()

    def released(ref):  # a weakref callback, as a module lock's is while a task imports a module
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100_000):  # the handler runs in here, where Python can only print what it raises
            pass
        print("callback ended", flush=True)

    ref = weakref.ref(lock, released)
    del lock
    end = time.monotonic() + 3  # the interrupt, if not lost, ends the task in here
    while time.monotonic() < end:
        time.sleep(0.01)
    return "ran on"


try:
    print(pool.run_task(task))
except KeyboardInterrupt:
    print("stopped")
"""


@pytest.mark.parametrize("hook", ["pool's", "python's"])
def test_an_interrupt_raised_where_python_can_only_print_it_still_stops_the_task(hook):
    """SIGTERM in a pool's worker raises KeyboardInterrupt in whatever code runs; in a weakref
    callback (CI met a module lock's, "Exception ignored in ... _bootstrap ... cb") Python prints it
    and carries on. The worker sends itself the signal again, so the task stops all the same, with
    nothing printed. Without that (Python's own hook put back) the task runs on: the test is worth
    something."""
    code = LOST_INTERRUPT if hook == "pool's" else LOST_INTERRUPT.replace(
        "pool.pool_process_signals()\n", "pool.pool_process_signals()\nsys.unraisablehook = sys.__unraisablehook__\n")
    result = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True,
                            timeout=60, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if hook == "pool's":
        assert result.stdout.split() == ["stopped"], result.stdout + result.stderr
        assert result.stderr == ""
    else:
        assert result.stdout.splitlines() == ["ran on"], result.stdout + result.stderr
        assert "Exception ignored in" in result.stderr and "KeyboardInterrupt" in result.stderr


def test_an_interrupt_anywhere_in_each_done_leaves_the_pool_working():
    """Ctrl-C lands between any two bytecodes of the main thread. A ``submit`` made there (as
    each_done made one per chunk taken, until a review found it) can be interrupted inside the
    pool's queue lock, which then stays held and blocks the pool's manager thread, and with it
    the stop, for good: it happened within about 40 random interrupts. each_done's main thread now
    only waits on a queue and reads finished futures."""
    script = Path(__file__).with_name("each_done_interrupts.py")
    result = subprocess.run([sys.executable, str(script), "120"], check=False, capture_output=True, text=True,
                            timeout=300, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.stdout.strip() == "trials=120 held=0 wedged=0", result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
