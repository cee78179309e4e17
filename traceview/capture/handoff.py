"""Forked writers that take turns at one output: each part of a document is made and written
by the worker that made it, in document order, so no part passes through this process.

`pool.inherited` hands each answer back through the pool's pipes: for a report of
hundreds of megabytes, the main process then received, unpickled and wrote every byte the
workers made. Here the workers write to (a copy of) the output's descriptor themselves:
each takes the next part, makes it, and writes it when its turn comes (a semaphore the
writer of the part before releases), recording how far it got; this process only waits.
If a worker fails or dies, the others are stopped and this process writes what is left,
from the part and the byte the record names, so nothing is lost or written twice. A
worker holds SIGTERM off while it writes and records, so one stopped is never cut off
between the two.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from traceview.capture.pool import fork_safe, quiet, stop, submit_to

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.process import BaseProcess


class _Turns(NamedTuple):
    """What the forked writers share (made before the pool forks, inherited by them)."""

    make: Callable[[Any], bytes]
    tasks: Sequence[tuple[bytes, Any]]
    fd: int  # a copy of the output's descriptor (the workers' own stdout is /dev/null)
    # [the next part to take, the next to write, its bytes written so far]: the last two
    # are read by this process only once every worker is gone.
    state: Any
    taking: Any  # the lock a worker holds while it takes the next part
    turns: list[Any]  # semaphore k % len: part k's turn to be written


_TURNS: _Turns | None = None
# Parts a worker makes and holds while it waits for its turn (a few hundred kB each): a
# part slow to make, or a writer the scheduler set aside, then stalls the others less.
AHEAD = 4


def written(make: Callable[[Any], bytes], tasks: Sequence[tuple[bytes, Any]],
            n_workers: int, fd: int) -> None:
    """For each (head, task) of `tasks`, in order: `head` (the document's own bytes before
    the part), then `make(task)`, written to `fd`. The parts are made and written by forked
    workers that inherit this process's memory (what `make` reads was made before the
    call): each takes the next part, makes it, writes it in its turn, and takes another,
    so this process only waits. Where none can fork (one worker asked for, threads alive,
    no `fork`) this process writes each part."""
    if n_workers < 2 or len(tasks) < 2 or not fork_safe():
        _write_from(make, tasks, fd, 0, 0)
        return
    import multiprocessing
    import signal  # only where workers run: a one-process report imports none of these
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait

    global _TURNS
    context = multiprocessing.get_context("fork")
    n_workers = min(n_workers, len(tasks))
    # Parts taken and not yet written are consecutive and at most AHEAD a worker: with
    # one semaphore more than that, no two of them share one.
    turns = _Turns(make, tasks, os.dup(fd), context.RawArray("q", 3), context.Lock(),
                   [context.Semaphore(0) for _ in range(AHEAD * n_workers + 1)])
    _TURNS = turns
    started: set[BaseProcess] = set()
    pool: ProcessPoolExecutor | None = None
    try:
        pool = ProcessPoolExecutor(n_workers, context, initializer=quiet)
    except (OSError, ValueError):
        pass
    failed = True
    try:
        turns.turns[0].release()
        sent = [submit_to(pool, started, n_workers, _writer) for _ in range(n_workers)]
        futures = [f for f in sent if f is not None]
        if len(futures) == n_workers:
            done, running = wait(futures, return_when=FIRST_EXCEPTION)
            failed = bool(running) or any(f.exception() is not None for f in done)
    except BaseException:  # Ctrl-C: the output is abandoned, the workers go at once
        _halt(started, signal.SIGKILL)
        raise
    finally:
        if failed:
            _halt(started, signal.SIGTERM)  # each ends its write first (it holds SIGTERM)
        stop(pool, started)
        _TURNS = None
        os.close(turns.fd)
    if failed:  # a part's error, a worker that died or could not start, a closed pipe
        _write_from(make, tasks, fd, turns.state[1], turns.state[2])


def _writer() -> None:
    """In a worker: the next part taken and made, then written once the part before it
    is; while its turn has not come, up to AHEAD parts are made and held (a part slower
    to make than the others' holds them up less)."""
    import signal

    turns = _TURNS
    assert turns is not None
    state, slots, tasks = turns.state, turns.turns, turns.tasks
    held: deque[tuple[int, bytes, bytes]] = deque()
    while True:
        # Once nothing is left to take, or AHEAD parts are held, wait for the first's turn.
        while held and slots[held[0][0] % len(slots)].acquire(
                block=len(held) >= AHEAD or state[0] >= len(tasks)):
            k, head, body = held.popleft()
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
            try:
                _write(turns.fd, (head, body), 0, state)
                state[1], state[2] = k + 1, 0
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
            slots[(k + 1) % len(slots)].release()
        with turns.taking:
            k = state[0]
            state[0] = k + 1
        if k >= len(tasks):
            if not held:
                return
            continue
        head, task = tasks[k]
        held.append((k, head, turns.make(task)))


def _halt(started: set[BaseProcess], signum: int) -> None:
    for process in started:
        if process.pid is not None and process.exitcode is None:
            try:
                os.kill(process.pid, signum)
            except OSError:
                pass  # gone already


def _write_from(make: Callable[[Any], bytes], tasks: Sequence[tuple[bytes, Any]],
                fd: int, start: int, skip: int) -> None:
    """The parts from `start` on written here, the first `skip` bytes of the first left
    out (a worker wrote them)."""
    for head, task in tasks[start:]:
        _write(fd, (head, make(task)), skip, None)
        skip = 0


def _write(fd: int, pieces: tuple[bytes, bytes], skip: int, done: Any) -> None:
    """`pieces` written to `fd` whole (a pipe may take less than asked), from byte `skip`
    of them on; `done[2]` follows the bytes written."""
    base = 0
    for piece in pieces:
        view, pos = memoryview(piece), min(len(piece), max(0, skip - base))
        while pos < len(piece):
            pos += os.write(fd, view[pos:])
            if done is not None:
                done[2] = base + pos
        base += len(piece)
