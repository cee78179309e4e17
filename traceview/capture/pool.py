"""The worker processes: a `concurrent.futures.ProcessPoolExecutor` started the one way
traceview starts them, and the work it is given over things already in memory.

Forked in a process with one thread (the CLI), new interpreters in one with threads
(forking a threaded process is unsafe): the inspector loads from a thread, so it forks its
workers before its own threads start (`fork_ahead`) and its load takes them. Every worker
starts quiet (`quiet`: its output to /dev/null, Ctrl-C left to the main process), and a
pool is stopped only once each of its processes is joined (`stop`). `inherited` runs work
over ranges of something already in this process's memory (a report's rows) in workers
forked from it, answers in order; `aside` runs one such task beside the caller's own
work; capture/parallel.py reads a capture's chunks with the same pool.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from itertools import count
from typing import IO, TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # the pool is imported only where workers run
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.process import BaseProcess

# Below this many turns, a report's rows are written in one process (`inherited`).
MIN_PARALLEL_ROWS = 8192
T = TypeVar("T")


def workers() -> int:
    """Worker processes to use: $TRACEVIEW_WORKERS, else one per core (1: no workers)."""
    env = os.environ.get("TRACEVIEW_WORKERS", "").strip()
    try:
        n = int(env) if env else (os.cpu_count() or 1)
    except ValueError:
        n = 1
    return max(1, n)


def fork_safe() -> bool:
    """Whether workers may be forked: a POSIX `fork` and one thread alive (a fork copies
    only the forking thread; a lock another thread held would stay held in the child)."""
    return (hasattr(os, "fork") and sys.platform != "win32"
            and threading.active_count() == 1)


def tracker_started() -> None:
    """Start multiprocessing's resource tracker (which spawned workers need) with a real
    stderr: it hands `sys.stderr.fileno()` to its process, and a host that replaced
    sys.stderr with an object of its own (Textual's print capture says -1) made every
    pool fail to start, so the inspector read every chunk in its own process."""
    from multiprocessing import resource_tracker

    try:
        if sys.stderr is not None and sys.stderr.fileno() >= 0:
            return
    except (AttributeError, OSError, ValueError):
        return  # no descriptor at all: the tracker leaves it out
    held, sys.stderr = sys.stderr, sys.__stderr__
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = held


# Workers forked by `fork_ahead` for the next Extractor to take: (how many, the pool, its
# processes).
_ahead: list[tuple[int, ProcessPoolExecutor, set[BaseProcess]]] = []


def fork_ahead(n_workers: int, then: Callable[[], object] | None = None) -> bool:
    """Fork the workers of a read still to come, now, for its Extractor to take in
    whatever thread it runs. For a process that will read from a thread (the inspector):
    started there they would be new interpreters, each importing traceview before its first
    chunk; forked while the process has one thread, they are ready when the read begins.
    `then`: the caller's own start for each worker, after the pool's. False (nothing
    started) for one worker, where forking is unsafe, or when some wait already."""
    if n_workers < 2 or _ahead or not fork_safe():
        return False
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    started: set[BaseProcess] = set()
    try:
        pool = ProcessPoolExecutor(n_workers, multiprocessing.get_context("fork"),
                                   initializer=quiet, initargs=(then,))
    except (OSError, ValueError):
        return False
    # A forking pool forks every worker at its first task.
    if submit_to(pool, started, n_workers, os.getpid) is None:
        stop(pool, started)
        return False
    _ahead.append((n_workers, pool, started))
    return True


def taken(n_workers: int) -> tuple[ProcessPoolExecutor, set[BaseProcess]] | None:
    """The workers forked ahead, if as many as asked for; others are stopped."""
    try:
        n, pool, started = _ahead.pop()
    except IndexError:
        return None
    if n == n_workers:
        return pool, started
    stop(pool, started)
    return None


def quiet(then: Callable[[], object] | None = None) -> None:
    """A worker's start: nothing it prints reaches the terminal, and Ctrl-C is the main
    process's to handle (it stops the pool; a worker ends when its queue closes). The
    worker was born with SIGINT blocked (`_born_deaf`): ignored first, then unblocked, so
    a Ctrl-C that arrives while it starts is never its own. Then `then`, if given."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (1, 2):
        os.dup2(null, fd)
    os.close(null)
    if then is not None:
        then()


def stop(pool: ProcessPoolExecutor | None, started: set[BaseProcess]) -> None:
    """Stop a pool and wait until each of its workers is joined (reaped): when this
    returns, no process of the pool is left, whatever interrupted it (a Ctrl-C may land
    between a worker's start and the pool's manager thread starting, which `shutdown`
    alone would then not wait for)."""
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
    for process in started:
        process.join()
    started.clear()


def min_parallel_rows() -> int:
    env = os.environ.get("TRACEVIEW_PARALLEL_MIN_ROWS", "").strip()
    return int(env) if env.isdigit() else MIN_PARALLEL_ROWS


def inherited(fn: Callable[[Any], Any], tasks: Sequence[Any],
              n_workers: int) -> Iterator[Any]:
    """`fn(task)` of each task, in task order, made in forked workers that inherit this
    process's memory (what `fn` reads was made before the call: an analysis), a bounded
    number in flight. Where no worker can fork (one worker asked for, threads alive, no
    `fork`) or one dies, a task runs here: the answer is the same whichever process made
    it. `fn` is sent to the workers by name: a module-level function."""
    if n_workers < 2 or len(tasks) < 2 or not fork_safe():
        yield from map(fn, tasks)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    started: set[BaseProcess] = set()
    pool: ProcessPoolExecutor | None = None
    try:
        pool = ProcessPoolExecutor(n_workers, multiprocessing.get_context("fork"),
                                   initializer=quiet)
    except (OSError, ValueError):
        pass
    queue: deque[tuple[Any, Future[Any] | None]] = deque()
    pending = iter(tasks)
    try:
        while True:
            while len(queue) < 2 * n_workers and (task := next(pending, _END)) is not _END:
                queue.append((task, submit_to(pool, started, n_workers, fn, task)))
            if not queue:
                return
            task, future = queue.popleft()
            yield fn(task) if future is None else _answer(fn, task, future)
    finally:
        stop(pool, started)


_END = object()

# What `aside` runs, by its number: the worker forked for it inherits the function and its
# arguments (nothing of them is pickled).
_ASIDE: dict[int, tuple[Callable[..., Any], tuple[Any, ...]]] = {}
_numbers = count()


@contextmanager
def aside(fn: Callable[..., T], *args: Any, fork: bool = True
          ) -> Iterator[Callable[[], T]]:
    """`fn(*args)` begun in a worker forked now, while the block goes on; the call yielded
    waits for its answer (call it once). The answer comes back through a file the worker
    pickles it to, read in the thread that asks: through the pool's pipe it would be
    unpickled by the pool's result thread, in a malloc arena of its own, memory new to this
    process where the answer made here reuses what the process freed. Where no worker
    can fork (`fork` false, threads alive, no `fork`) or the worker dies, `fn(*args)` runs
    here when asked. Leaving the block by an exception (Ctrl-C) ends the worker at once."""
    if not fork or not fork_safe():
        yield partial(fn, *args)
        return
    import multiprocessing
    import tempfile
    from concurrent.futures import ProcessPoolExecutor

    try:
        answers = tempfile.TemporaryFile()
    except OSError:  # nowhere to put the answer: it is made here
        yield partial(fn, *args)
        return
    number = next(_numbers)
    _ASIDE[number] = (fn, args)
    started: set[BaseProcess] = set()
    pool: ProcessPoolExecutor | None = None
    try:
        with answers as out:
            try:
                pool = ProcessPoolExecutor(1, multiprocessing.get_context("fork"),
                                           initializer=quiet)
            except (OSError, ValueError):
                pass
            future = submit_to(pool, started, 1, _aside, number, out.fileno())
            del _ASIDE[number]  # forked: the worker holds its own copy
            yield partial(_aside_answer, fn, args, future, out)
    except BaseException:
        for process in started:
            process.terminate()
        raise
    finally:
        _ASIDE.pop(number, None)
        stop(pool, started)


def _aside(number: int, fd: int) -> None:
    """In the worker: the task `number` run, its answer pickled into the file `fd`."""
    import pickle

    fn, args = _ASIDE[number]
    answer = fn(*args)
    with open(fd, "wb", closefd=False) as out:
        pickle.dump(answer, out, pickle.HIGHEST_PROTOCOL)


def _aside_answer(fn: Callable[..., T], args: tuple[Any, ...], future: Future[Any] | None,
                  out: IO[bytes]) -> T:
    """The answer `_aside` wrote, read here; made here when no worker made it."""
    import pickle

    if future is None:
        return fn(*args)
    try:
        future.result()
    except Exception:  # noqa: BLE001 - BrokenProcessPool: the worker died
        return fn(*args)
    out.seek(0)
    answer: T = pickle.load(out)
    return answer


def submit_to(pool: ProcessPoolExecutor | None, started: set[BaseProcess], n_workers: int,
               fn: Callable[..., Any], *args: Any) -> Future[Any] | None:
    """`fn(*args)` sent to the pool; None when it cannot take it (no pool, a broken one):
    the caller then runs it here."""
    if pool is None:
        return None
    try:
        with _born_deaf(started, n_workers):
            return pool.submit(fn, *args)
    except Exception:  # noqa: BLE001 - a broken or unstartable pool: run it here
        return None


def _answer(fn: Callable[[Any], Any], task: Any, future: Future[Any]) -> Any:
    """A worker's answer; a task whose worker died is run here (an error `fn` raises is
    raised here again by running it)."""
    try:
        return future.result()
    except Exception:  # noqa: BLE001 - BrokenProcessPool, an unpicklable answer
        return fn(task)


@contextmanager
def _born_deaf(workers: set[BaseProcess], n_workers: int) -> Iterator[None]:
    """Around a submit (where the pool starts its workers): SIGINT blocked in this thread,
    so a worker is born with it blocked until its initializer has ignored it (a Ctrl-C
    during its start would otherwise kill it with a traceback on the terminal); a SIGINT
    meanwhile waits and reaches this process once unblocked. The workers started are
    recorded for `close` to join."""
    import multiprocessing
    import signal

    if len(workers) >= n_workers or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = set(multiprocessing.active_children())
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        workers.update(set(multiprocessing.active_children()) - before)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
