"""Interrupt ``cleaner_runtime.pool.each_done`` at random moments, many times, and see what it leaves.

Run as a script (``python each_done_interrupts.py TRIALS``); test_interrupt_race.py runs it. One
pool of two processes set up as the cleaner's are serves every trial. Each trial loops over
``each_done`` on 100,000 trivial items until SIGALRM, at a random time between 10 and 150 ms,
raises KeyboardInterrupt in the main thread, wherever it is (as Ctrl-C does). Then it looks for
what an interrupt inside the pool's own Python code would leave: the lock of its work-id queue held
for good, a future's condition held by the main thread, and the pool no longer answering (a fresh task not done within 5 s;
its manager thread blocked on a lock the main thread holds). Prints one line,
``trials=N held=H wedged=W``; a run that hangs anywhere else dumps its threads' stacks after 90 s
and exits 1.
"""

from __future__ import annotations

import faulthandler
import random
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from cleaner_runtime.pool import each_done, pool_process_signals

FUTURES: list = []


class Noting(ProcessPoolExecutor):
    """Notes every future it hands out."""

    def submit(self, *args, **kwargs):
        future = super().submit(*args, **kwargs)
        FUTURES.append(future)
        return future


def task(i: int) -> int:
    return i


def stuck(lock) -> bool:
    """Whether ``lock`` (a plain lock, which the pool's threads also take for a moment) stays held."""
    if lock.acquire(timeout=2):
        lock.release()
        return False
    return True


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(trials: int) -> int:
    faulthandler.dump_traceback_later(90, exit=True)
    signal.signal(signal.SIGALRM, _interrupt)
    held = wedged = 0
    pool = Noting(2, initializer=pool_process_signals)
    pool.submit(task, 0).result()
    for _ in range(trials):
        FUTURES.clear()
        signal.setitimer(signal.ITIMER_REAL, random.uniform(0.01, 0.15))
        try:
            for _ in each_done(pool, 2, task, range(100_000)):
                pass
        except KeyboardInterrupt:
            pass
        signal.setitimer(signal.ITIMER_REAL, 0)
        if stuck(pool._work_ids.mutex) or any(future._condition._is_owned() for future in FUTURES):
            held += 1
            break  # the pool cannot be trusted any more
        try:
            pool.submit(task, 1).result(timeout=5)
        except FutureTimeout:
            wedged += 1
            break
    print(f"trials={trials} held={held} wedged={wedged}", flush=True)
    if held or wedged:
        import os

        for process in list((pool._processes or {}).values()):
            process.kill()
        os._exit(0)  # the manager thread may never end: leave without joining it
    pool.shutdown(cancel_futures=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1])))
