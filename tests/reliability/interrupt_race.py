"""Stop a process pool after an interrupt, many times, with the executor's manager thread held back.

Run as a script (``python interrupt_race.py STOP TRIALS [DELAY [RESULT_CHARS]]``);
test_interrupt_race.py runs it.
Each trial builds a pool the way a rendered cleaner runs sessions with ``--jobs 2`` (two workers
that ignore SIGINT and die on SIGTERM, the sessions handed over in chunks of 4 by
``cleaner_runtime.pool.each_done``), lets the first chunk finish, then raises KeyboardInterrupt in
the main thread while it waits for the next result (as Ctrl-C, or SIGTERM through the cleaner's
handler, does): ``each_done`` cancels the futures not yet started, as ``Executor.map``'s iterator
does, and the stop under test runs. The pool is then dropped, as the cleaner's frames are when it
returns 130.

The interleaving is forced, not waited for: once the interrupt has landed, the manager thread
sleeps ``DELAY`` seconds each time it wakes (what a loaded machine does to it), so the main thread
has finished stopping and has dropped the pool before the manager looks at anything; and the
call queue is full at the interrupt (two chunks running, three queued), as it mostly is in a long
run, so the manager cannot drop the cancelled futures by itself. That is the
interleaving which printed ``InvalidStateError: CANCELLED: <Future ... state=cancelled>`` from the
manager thread on Python 3.11 (see cleaner_runtime.pool.stop_now).

With RESULT_CHARS (default 0) each task returns that many characters (a large result, up to
256k): a process stopped while it sends such a result leaves the manager thread waiting for the
rest, so a stop can hang; a trial whose manager thread has not ended 10 s after the
stop counts as hung.

Prints one line, ``trials=N tracebacks=T workers_left=W hung=H seconds=S kinds=[...]``, and the
threads' tracebacks (if any) on stderr. Workers a stop leaves running are killed a second later, so that
the next trial starts afresh; what the manager thread prints then is not counted. STOP is one of:

- ``runtime``: ``cleaner_runtime.pool.stop_now``, the cleaner's stop, with the processes set up
  as the cleaner's are (``pool_process_signals``, tasks run through ``run_task``);
- ``terminate``: shutdown(wait=False, cancel_futures=True), then terminate the pool's processes
  (read before the shutdown), which die at once on SIGTERM: the stop of commit 4d4b6d4 (there via
  multiprocessing.active_children);
- ``shutdown-only``: the stop before stop_now, which read ``pool._processes`` after the shutdown
  had set it to None, so it terminated nothing.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import process as cf_process

from cleaner_runtime.pool import CHUNK, each_done

STOPPING = threading.Event()
CLEANING = threading.Event()  # set while the harness kills what a stop left running
DELAY = 0.1
ITEMS = 48
RESULT_CHARS = 0


def _hold_back_manager() -> None:
    original = cf_process._ExecutorManagerThread.wait_result_broken_or_wakeup

    def wait_result_broken_or_wakeup(self):
        result = original(self)
        if STOPPING.is_set():
            time.sleep(DELAY)  # woken, but not scheduled until the main thread is done
        return result

    cf_process._ExecutorManagerThread.wait_result_broken_or_wakeup = wait_result_broken_or_wakeup


def _init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _task(i: int, chars: int = 0) -> str:
    if i >= CHUNK:  # the first chunk comes back at once; the others are still running at the interrupt
        time.sleep(0.2 if chars else 5)  # (big results: some are being sent at the interrupt)
    return "x" * chars


def _runtime_task(i: int, chars: int = 0) -> str:
    from cleaner_runtime.pool import run_task

    return run_task(_task, i, chars)


def _stop_terminate(pool: ProcessPoolExecutor) -> None:
    processes = list(pool._processes.values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()


def _stop_shutdown_only(pool: ProcessPoolExecutor) -> None:
    pool.shutdown(wait=False, cancel_futures=True)
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        if process.is_alive():
            process.terminate()


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def trial(stop, initializer=_init, task=_task) -> tuple[int, bool]:
    """One interrupted run: the number of its workers still alive a second after it stopped, and
    whether its manager thread was still running 10 s after."""
    pool = ProcessPoolExecutor(2, initializer=initializer)
    workers: list = []
    manager = None
    signal.signal(signal.SIGALRM, _interrupt)
    try:
        for n, _ in enumerate(each_done(pool, 2, task, range(ITEMS), RESULT_CHARS)):
            if n == 0:
                workers = list(pool._processes.values())
                manager = pool._executor_manager_thread
                # the worker that ran the first chunk takes the next; then the manager tops the
                # call queue up, as it does whenever it wakes: the queue is full at the interrupt
                time.sleep(0.05)
                pool._executor_manager_thread_wakeup.wakeup()
            signal.setitimer(signal.ITIMER_REAL, 0.05)  # lands while the next result is awaited
        raise AssertionError("the interrupt did not land")
    except KeyboardInterrupt:
        STOPPING.set()
        stop(pool)
    del pool
    gc.collect()
    end = time.monotonic() + 1
    while any(p.is_alive() for p in workers) and time.monotonic() < end:
        time.sleep(0.01)
    left = sum(p.is_alive() for p in workers)
    if left:  # whatever the stop left, so that the next trial starts afresh (what this prints is not counted)
        CLEANING.set()
        for process in workers:
            if process.is_alive():
                process.kill()
    hung = False
    if manager is not None:
        manager.join(10)
        hung = manager.is_alive()
    CLEANING.clear()
    STOPPING.clear()
    return left, hung


def main(argv: list[str]) -> int:
    global DELAY, RESULT_CHARS
    name, trials = argv[0], int(argv[1])
    if len(argv) > 2:
        DELAY = float(argv[2])
    if len(argv) > 3:
        RESULT_CHARS = int(argv[3])
    setup = {}
    if name == "runtime":
        from cleaner_runtime.pool import pool_process_signals
        from cleaner_runtime.pool import stop_now as stop

        setup = {"initializer": pool_process_signals, "task": _runtime_task}
    else:
        stop = {"terminate": _stop_terminate, "shutdown-only": _stop_shutdown_only}[name]
    if DELAY > 0:
        _hold_back_manager()
    tracebacks = []
    original_hook = threading.excepthook

    def hook(args):  # count what reaches the process's hook (which prints it, as it would in the cleaner)
        if not CLEANING.is_set():
            tracebacks.append(args.exc_type.__name__)
        original_hook(args)

    threading.excepthook = hook
    started = time.monotonic()
    left = hung = 0
    for _ in range(trials):
        trial_left, trial_hung = trial(stop, **setup)
        left += trial_left
        hung += trial_hung
    print(f"trials={trials} tracebacks={len(tracebacks)} workers_left={left} hung={hung} "
          f"seconds={time.monotonic() - started:.1f} kinds={sorted(set(tracebacks))}", flush=True)
    if hung:  # a manager thread still waits for the rest of a result: exiting would wait with it
        sys.stderr.flush()
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
