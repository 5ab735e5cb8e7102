"""The sessions' worker pool: how its processes take signals, and how it stops after an interruption.

With ``--jobs N`` a run cleans N sessions at once in a ``ProcessPoolExecutor`` (run.py). Ctrl-C and
SIGTERM must stop it cleanly: the sessions not started dropped, the ones running ended, every
file finished or removed, no traceback, exit 130. What that takes of the pool's processes
(``pool_process_signals``, ``run_task``) and of the main process (``stop_now``) is here, in one
place. (A large session's helper processes, offload.py, are plain processes and stop otherwise.)
"""

from __future__ import annotations

import functools
import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError, InvalidStateError  # _base: no process pool imported
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a run of one process imports no process pool (~8 ms of start-up)
    from concurrent.futures import ProcessPoolExecutor

CHUNK = 4  # tasks a process takes at once: fewer round trips through the pool's queues
AHEAD = 16  # chunks per process handed to the pool and not yet taken (each_done)


_STOPPING = False  # in a pool's process: the main process has asked it to stop (SIGTERM)
_IN_TASK = False  # in a pool's process: run_task is running a task


def _stop_requested(signum: int, frame: Any) -> None:
    global _STOPPING
    _STOPPING = True
    if _IN_TASK:
        raise KeyboardInterrupt


def _lost_interrupt(unraisable: Any) -> None:
    """``sys.unraisablehook`` in a sessions' worker. SIGTERM's KeyboardInterrupt is raised in
    whatever Python code runs when the signal arrives; when that is code whose exceptions Python
    can only print ("Exception ignored in ...": a weakref callback such as a module lock's while the
    task imports a module, a ``__del__``), the interrupt is lost and the task would run on. So the
    signal is sent again a millisecond later (SIGALRM, ``_send_again``), once this hook, where a
    signal's exception would be lost too, has returned. (A signal landing in the first bytecodes of
    this hook is still lost, and the task then runs to its end: a window of a few bytecodes. A
    worker's SIGALRM and real-time interval timer are this module's: hooks must not use them.)"""
    if issubclass(unraisable.exc_type, KeyboardInterrupt) and _STOPPING:
        signal.setitimer(signal.ITIMER_REAL, 0.001)
        return
    sys.__unraisablehook__(unraisable)


def _send_again(signum: int, frame: Any) -> None:
    """SIGTERM again (see ``_lost_interrupt``); held, like the first, while a file is written."""
    signal.raise_signal(signal.SIGTERM)


def pool_process_signals() -> None:
    """In a sessions' worker: Ctrl-C is left to the main process, which stops the pool
    (``stop_now``); SIGTERM ends the task running with KeyboardInterrupt, and
    every later one as it starts (``run_task``), but never the process itself. So it is never cut
    off while it talks to the pool: a process killed halfway through sending its result leaves the
    pool's manager thread waiting for the rest forever (and the run with it), and one killed holding
    a queue's lock blocks the others. The task's KeyboardInterrupt goes back as its result, and the
    process leaves when the pool, winding down, tells it to. Where a task writes a file, the write
    holds SIGTERM until the rename (writer.py), so a file is finished or removed, never left half.
    An interrupt raised where Python cannot pass it on is sent again (``_lost_interrupt``)."""
    sys.unraisablehook = _lost_interrupt
    signal.signal(signal.SIGALRM, _send_again)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_requested)


def run_task(fn: Any, *args: Any) -> Any:
    """``fn(*args)`` in a pool's process, unless SIGTERM has asked the process to stop (see
    ``pool_process_signals``)."""
    global _IN_TASK
    _IN_TASK = True  # first: a SIGTERM from here on raises, and one before has set _STOPPING
    try:
        if _STOPPING:
            raise KeyboardInterrupt
        return fn(*args)
    finally:
        _IN_TASK = False


def _chunk(fn: Callable[..., Any], items: Sequence[Any], *args: Any) -> list[Any]:
    return [fn(item, *args) for item in items]


_STOP = object()  # each_done's word to its hand-over thread: the run is over, cancel what is left


def each_done(pool: ProcessPoolExecutor, processes: int, fn: Callable[..., Any], items: Sequence[Any], *args: Any,
              ahead: int = AHEAD) -> Iterator[tuple[int, Any]]:
    """``(i, fn(items[i], *args))`` for every item, run by chunks of ``CHUNK`` in ``pool`` (of
    ``processes`` processes), in the order they finish.

    ``Executor.map`` hands the pool every chunk at once: a future and a work item each, ~1.4 KB a
    chunk (350 bytes an input file) held for the whole run, which grows with the corpus. Here at
    most ``ahead`` chunks per process are handed over and not yet taken, so what the pool holds is
    bounded; and since they are taken as they finish, not in order, one long session never leaves
    the other processes idle behind it (the chunks after it done, none handed over). When the loop
    over this ends early (an interruption, an error), the chunks not started are cancelled.

    The chunks are handed over, and their results taken from their futures, by a thread of their
    own (``_hand_over``). Ctrl-C and SIGTERM raise KeyboardInterrupt in the main thread between
    any two bytecodes, and Python code that takes a lock (``threading.Condition``, ``Semaphore``,
    ``queue.Queue``: the pool's ``submit``, a future's ``result``) interrupted there can leave it
    held, and the pool's manager thread, which ``stop_now`` waits for, blocked for good
    (a review's harness wedged the pool within about 40 random interrupts). The main
    thread here only passes words through ``SimpleQueue``s, C code that holds nothing when
    interrupted. (So the pool's first ``submit``, which forks its processes, is made in that
    thread, while the main thread only waits: nothing of the main thread's is held mid-way.)"""
    finished: queue.SimpleQueue = queue.SimpleQueue()  # (first item, results) of each chunk, or an error
    room: queue.SimpleQueue = queue.SimpleQueue()  # a word for each chunk taken, then _STOP
    starts = range(0, len(items), CHUNK)
    thread = threading.Thread(target=_hand_over, name="hand-over", daemon=True,
                              args=(pool, fn, items, args, starts, max(1, ahead * processes), finished, room))
    thread.start()
    try:
        for _ in starts:
            done = finished.get()
            if isinstance(done, BaseException):
                raise done
            room.put(None)
            yield from enumerate(done[1], done[0])
    finally:
        room.put(_STOP)
        thread.join(5)


def _hand_over(pool: ProcessPoolExecutor, fn: Callable[..., Any], items: Sequence[Any], args: tuple,
               starts: range, window: int, finished: queue.SimpleQueue, room: queue.SimpleQueue) -> None:
    """``each_done``'s thread: hand ``window`` chunks to ``pool``, then one more for each word in
    ``room``; pass each chunk's results (or error) on through ``finished`` as it finishes; at
    ``_STOP``, cancel the chunks not started, and end."""
    running: set[Any] = set()

    def done(start: int, future: Any) -> None:  # in the thread that finished the future, or here
        running.discard(future)
        try:
            finished.put((start, future.result()))
        except CancelledError:  # cancelled at the stop: nobody waits for it
            pass
        except BaseException as exc:  # noqa: BLE001 - the main thread raises it, as map would
            finished.put(exc)

    try:
        for n, start in enumerate(starts):
            if n >= window and room.get() is _STOP:
                break
            future = pool.submit(_chunk, fn, items[start:start + CHUNK], *args)
            running.add(future)
            future.add_done_callback(functools.partial(done, start))
        else:
            while room.get() is not _STOP:
                pass
    except BaseException as exc:  # noqa: BLE001 - the pool shut down or broken: the main thread raises it
        finished.put(exc)
        return
    for future in list(running):
        future.cancel()


def stop_now(pool: ProcessPoolExecutor) -> None:
    """After an interruption: drop the work ``pool`` has not started, end the work its processes are
    doing, and return once the pool's manager thread has wound it up. The processes are sent
    SIGTERM, which ends their tasks, not them (see ``pool_process_signals``): a process writing a
    file finishes it first, so this waits for that file and no longer.

    Two things of the library's own are read, here only: the pool's processes and its manager
    thread. No public API lists them before Python 3.14 (whose ``terminate_workers`` does the
    shutdown and terminate below), and ``shutdown`` sets both attributes to None, so they are read
    before it (the two copies of this code before it read ``_processes`` after the shutdown, got
    None, and so never stopped a process).

    The join, and the hook: after a Ctrl-C or SIGTERM, ``each_done`` (as ``Executor.map``'s
    iterator did) cancels the futures not yet started, then ``shutdown(cancel_futures=True)``
    asks the manager thread to drop them. It does so only when it next wakes, and only if the pool
    still exists. When a run had let go of the pool by then (its frames gone as it returned 130; a
    loaded machine need only leave that thread unscheduled for a moment), the cancelled futures
    stayed in its table while the call queue was full; once it saw a worker gone (terminated, as the stop did then), its
    ``terminate_broken`` called ``set_exception`` on each future of the table, which raises
    ``InvalidStateError: CANCELLED: <Future ... state=cancelled>`` for a cancelled one, and
    ``threading.excepthook`` printed that as a traceback after "interrupted" (Python 3.11; CPython
    ignores that error there since 3.12, gh-107219). Holding the pool until the manager thread has
    ended means it always finds the pool and drops the cancelled futures; the hook, which lets
    through everything but exactly that error from exactly that thread, covers a process of the
    pool that dies abruptly all the same (SIGKILL, or SIGTERM before its initializer ran). It is
    removed once the thread has ended; if a second interruption cuts the join short it stays, since
    that thread can still raise. tests/reliability/test_interrupt_race.py forces these interleavings.
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    previous = threading.excepthook

    def hook(args: Any) -> None:
        if args.thread is manager and issubclass(args.exc_type, InvalidStateError):
            return  # the manager failing a future the run had already cancelled: nothing is lost
        previous(args)

    if manager is not None:
        threading.excepthook = hook
    try:
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        if manager is not None:
            manager.join()
    finally:
        if threading.excepthook is hook and not (manager is not None and manager.is_alive()):
            threading.excepthook = previous
