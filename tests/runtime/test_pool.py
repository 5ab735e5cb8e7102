"""How a run hands its sessions to the worker pool (cleaner_runtime.pool.each_done): every session
once, with its place; never more than a bounded number handed over and not done, however many files
a run has; a long session never holding the others back; the rest dropped when the run stops; a
pool that refuses work ending the loop with its error, not leaving it waiting."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from cleaner_runtime.pool import CHUNK, each_done


class CountingPool(ThreadPoolExecutor):
    """A pool that notes, at each hand-over, how many chunks it holds not yet done."""

    def __init__(self, workers: int):
        super().__init__(workers)
        self.futures: list = []
        self.most = 0

    def submit(self, fn, *args, **kwargs):
        future = super().submit(fn, *args, **kwargs)
        self.futures.append(future)
        self.most = max(self.most, sum(not f.done() for f in self.futures))
        return future


def square(i: int, offset: int) -> int:
    return i * i + offset


@pytest.mark.parametrize("count", [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 250])
def test_every_item_once_with_its_place(count):
    with ThreadPoolExecutor(3) as pool:
        results = list(each_done(pool, 3, square, list(range(count)), 7))
    assert sorted(results) == [(i, i * i + 7) for i in range(count)]


def test_the_pool_never_holds_more_than_ahead_chunks_per_process():
    release = threading.Event()

    def slow(i: int) -> int:
        release.wait(5)
        return i

    with CountingPool(2) as pool:
        run = each_done(pool, 2, slow, list(range(400)), ahead=3)
        threading.Timer(1.0, release.set).start()
        assert sorted(i for i, _ in run) == list(range(400))
    assert pool.most == 2 * 3  # filled to the bound while the first ones waited, never past it
    assert len(pool.futures) == -(-400 // CHUNK)


def test_a_long_session_does_not_hold_back_the_others():
    """The first item waits until every other one has been taken (or 10 s): taken in order, as
    Executor.map gives them, it would wait out the 10 s."""
    others_taken = threading.Event()

    def first_is_long(i: int) -> bool:
        return others_taken.wait(10) if i == 0 else True

    taken = []
    with ThreadPoolExecutor(2) as pool:
        for i, result in each_done(pool, 2, first_is_long, list(range(41))):
            taken.append(i)
            if len(taken) == 40 - CHUNK + 1:  # all but the first chunk
                others_taken.set()
            if i == 0:
                assert result is True, "the long session waited for the others in vain"
    assert sorted(taken) == list(range(41))
    assert set(taken[-CHUNK:]) == set(range(CHUNK))


def test_a_run_that_stops_drops_the_chunks_not_started():
    """The first chunk runs through; the second waits in the pool's one worker until the run has
    stopped; the ones queued behind it are dropped, and nothing more is handed over."""
    ran = []
    gate = threading.Event()

    def note(i: int) -> int:
        if i >= CHUNK:
            gate.wait(5)
        ran.append(i)
        return i

    with CountingPool(1) as pool:
        run = each_done(pool, 1, note, list(range(100)), ahead=4)
        next(run)
        run.close()  # what an interruption does to the loop over it
        gate.set()
    cancelled = sum(f.cancelled() for f in pool.futures)
    assert cancelled >= 2
    assert len(pool.futures) <= 4 + 1  # the window, and at most the one handed over as the first was taken
    assert len(ran) == (len(pool.futures) - cancelled) * CHUNK < 100


class RefusingPool(ThreadPoolExecutor):
    """A pool that stops taking work after its third chunk, as a broken or shut-down one does."""

    def __init__(self):
        super().__init__(1)
        self.taken = 0

    def submit(self, fn, *args, **kwargs):
        self.taken += 1
        if self.taken > 3:
            raise RuntimeError("cannot schedule new futures after shutdown")
        return super().submit(fn, *args, **kwargs)


def test_a_pool_that_refuses_work_stops_the_loop_with_its_error():
    """The hand-over thread's error reaches the loop over each_done, which would otherwise wait
    for chunks never handed over."""
    outcome = []

    def loop() -> None:
        with RefusingPool() as pool:
            try:
                outcome.append(len(list(each_done(pool, 1, square, list(range(100)), 0, ahead=2))))
            except RuntimeError as exc:
                outcome.append(str(exc))

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    thread.join(10)
    assert outcome == ["cannot schedule new futures after shutdown"]
