"""Facts on every core: the lines of a large capture reduced in worker processes.

What a line says (`reader.line_facts`) depends on that line alone, so a large file is cut
into chunks at line boundaries, and the files of a directory are taken whole, and worker
processes reduce each chunk to a list of (length, ended, what the line says) and the
columns of its facts (capture/table.py: arrays, which pickle as raw bytes, instead of one
object per line). The main process appends those columns to its turn table, then only
pairs and analyses, consuming the chunks in file order: line numbers, offsets, problems
and turn order are exactly those of a single-process read (a test compares the reports
byte for byte). `extract` is also what a cluster job would map over files.

The workers are plain forked children in a process with one thread (the CLI:
capture/children.py), and a ProcessPoolExecutor over a forkserver in one with threads (the
inspector loads from a thread, and forking a threaded process is unsafe).

Small captures stay in one process: starting workers costs more than they save.
"""

from __future__ import annotations

import io
import os
import threading
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING

from traceview.capture.children import Child, Children, fork_safe
from traceview.capture.reader import Pre, as_rows, line_facts
from traceview.capture.table import Facts

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor


def __getattr__(name: str) -> type:
    """`ProcessPoolExecutor`, imported when a pool first starts: it imports
    multiprocessing (~1 MB of RSS, and threads), which neither a load in one process nor
    the CLI's forked children use."""
    if name == "ProcessPoolExecutor":
        from concurrent.futures import ProcessPoolExecutor

        globals()[name] = ProcessPoolExecutor
        return ProcessPoolExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# 1 MB: unpickling a chunk's result holds the GIL (a few ms for 1 MB), which the
# inspector's event loop waits out while it loads.
CHUNK_BYTES = 1 << 20
# Below this many bytes in all, one process: a worker's start-up (~0.1 s) outweighs it.
MIN_PARALLEL_BYTES = 48 << 20

Chunk = tuple[list[tuple[int, bool, Pre]], Facts]
Task = tuple[int, str, int, int]  # source index, path, start, end


def workers() -> int:
    """Worker processes to use: $TRACEVIEW_WORKERS, else one per core (1: no workers)."""
    env = os.environ.get("TRACEVIEW_WORKERS", "").strip()
    try:
        n = int(env) if env else (os.cpu_count() or 1)
    except ValueError:
        n = 1
    return max(1, n)


def min_parallel_bytes() -> int:
    env = os.environ.get("TRACEVIEW_PARALLEL_MIN_BYTES", "").strip()
    return int(env) if env.isdigit() else MIN_PARALLEL_BYTES


def chunk_bytes() -> int:
    env = os.environ.get("TRACEVIEW_CHUNK_BYTES", "").strip()
    return max(1, int(env)) if env.isdigit() else CHUNK_BYTES


def extract(path: str, start: int, end: int) -> Chunk:
    """Every line in bytes [start, end) of `path` (which begin and end at line
    boundaries) as (length with newline, ended by a newline, what it says), read as the
    one-process loop reads them: a line past MAX_LINE_BYTES is a problem and skipped in
    bounded pieces, and a BOM before line 1 is an entry of its own (negative length).
    Facts are rows of the chunk's own columns, returned with the lines."""
    from traceview.capture.capture import _BOM, MAX_LINE_BYTES

    out: list[tuple[int, bool, Pre]] = []
    append = out.append
    facts = Facts()
    with open(path, "rb") as f:
        f.seek(start)
        readline = f.readline
        pos = start
        while pos < end and (raw := readline(MAX_LINE_BYTES)):
            if raw[-1:] != b"\n" and len(raw) == MAX_LINE_BYTES:
                read = len(raw)
                while True:
                    piece = readline(1 << 20)
                    read += len(piece)
                    if not piece or piece[-1:] == b"\n":
                        break
                append((read, True, ("problem", "line_too_long",
                                     f"line is {read:,} bytes, over the "
                                     f"{MAX_LINE_BYTES >> 20} MiB a record may have; "
                                     "line skipped")))
                pos += read
                continue
            pos += len(raw)
            if pos == start + len(raw) and start == 0 and raw.startswith(_BOM):
                append((-3, False, None))  # a BOM is not JSON
                raw = raw[3:]
            ended = raw[-1:] == b"\n"
            append((len(raw), ended, as_rows(line_facts(raw, ended), facts)))
    return out, facts


def split(path: str, size: int, chunk: int) -> list[tuple[int, int]]:
    """[start, end) ranges of about `chunk` bytes, each ending just after a newline (the
    last at the end of the file). Line ends are found in bounded reads."""
    ranges: list[tuple[int, int]] = []
    start = 0
    with open(path, "rb") as f:
        while start < size:
            f.seek(min(start + chunk, size))
            end = f.tell()
            while end < size:
                piece = f.readline(1 << 20)
                end = f.tell()
                if not piece or piece[-1:] == b"\n":
                    break
            ranges.append((start, end))
            start = end
    return ranges


class Extractor:
    """Runs `extract` over tasks, results handed back in task order with a bounded number
    in flight (memory stays a few chunks, not the whole file).

    The first task runs here, so the first rows show while the workers start. A task the
    workers cannot run (they could not start, or broke) also runs here: the result is the
    same whichever process made it, so a load never fails for want of workers.

    In a process with one thread (the CLI) the workers are plain forked children
    (capture/children.py): no multiprocessing in the main process, no threads, no
    interpreter to start. With threads (the inspector loads from one) forking is unsafe,
    and a ProcessPoolExecutor over a forkserver runs them."""

    #: Whether the load thread reads chunks itself until the pool is up (tests that need
    #: every chunk after the first to go through the pool turn it off).
    read_while_starting = True

    def __init__(self, n_workers: int) -> None:
        self.n_workers = n_workers
        self.ahead = 2 * n_workers
        self.pool: ProcessPoolExecutor | None = None
        self.children: Children | None = None
        self.starter: threading.Thread | None = None

    def run(self, tasks: Iterator[Task]) -> Iterator[tuple[Task, Chunk | OSError]]:
        first = next(tasks, None)
        if first is None:
            return
        if fork_safe():
            yield from self._run_forked(first, tasks)
            return
        yield first, _here(first)
        # The pool starts in a thread while this one reads on: its start-up (a forkserver
        # process, its imports, the workers' fork) took 0.3-0.7 s, a pause in the load
        # while this thread waited for the first chunk a worker made. After the first
        # chunk: its rows are out first.
        starter = self.starter = threading.Thread(target=self._warm, name="traceview pool",
                                                  daemon=True)
        starter.start()
        if not self.read_while_starting:
            starter.join()
        while starter.is_alive():
            task = next(tasks, None)
            if task is None:
                return
            yield task, _here(task)
        queue: deque[tuple[Task, Future[Chunk] | None]] = deque()
        while True:
            while len(queue) < self.ahead:
                task = next(tasks, None)
                if task is None:
                    break
                queue.append((task, self._submit(task)))
            if not queue:
                return
            task, fut = queue.popleft()
            yield task, self._result(task, fut)

    def _run_forked(self, first: Task,
                    tasks: Iterator[Task]) -> Iterator[tuple[Task, Chunk | OSError]]:
        # The children fork before the first chunk is read: the parent is at its smallest,
        # and they read the next chunks while this process reads the first.
        children = self.children = Children(self.n_workers, extract)
        queue: deque[tuple[Task, Child | None]] = deque()

        def fill() -> None:
            while len(queue) < self.ahead and (task := next(tasks, None)) is not None:
                queue.append((task, children.send(task[1], task[2], task[3])))

        fill()
        yield first, _here(first)
        while True:
            fill()
            if not queue:
                return
            task, child = queue.popleft()
            if child is None:
                yield task, _here(task)
                continue
            ok, result = children.receive(child)
            yield task, result if ok else _here(task)

    def _warm(self) -> None:
        """Start the pool and wait until each worker has answered once (they start when
        asked for work): the load thread hands chunks to the pool only then."""
        self._start()
        pool = self.pool
        if pool is None:
            return
        try:
            for fut in [pool.submit(os.getpid) for _ in range(self.n_workers)]:
                fut.result()
        except Exception:  # noqa: BLE001 - a broken pool: the rest is read in-process
            self._give_up()

    def _start(self) -> None:
        import multiprocessing

        # forkserver, not fork: the inspector loads from a thread, and forking a threaded
        # process can copy a held lock into the child.
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() \
            else "spawn"
        try:
            ctx = multiprocessing.get_context(method)
            if method == "forkserver":  # workers fork with the reader already imported
                ctx.set_forkserver_preload(["traceview.capture.reader"])
            _start_helpers(method)
            pool_class = globals().get("ProcessPoolExecutor") or __getattr__(
                "ProcessPoolExecutor")
            self.pool = pool_class(self.n_workers, mp_context=ctx)
        except Exception:  # noqa: BLE001 - no workers here: every chunk is read in-process
            self.pool = None

    def _submit(self, task: Task) -> Future[Chunk] | None:
        if self.pool is None:
            return None
        try:
            return self.pool.submit(extract, task[1], task[2], task[3])
        except Exception:  # noqa: BLE001 - a broken pool: the rest is read in-process
            self._give_up()
            return None

    def _result(self, task: Task, fut: Future[Chunk] | None) -> Chunk | OSError:
        if fut is None:
            return _here(task)
        try:
            return fut.result()
        except OSError as exc:  # the file itself: the same error a single process meets
            return exc
        except Exception:  # noqa: BLE001 - the worker, not the file: read it here
            self._give_up()
            return _here(task)

    def _give_up(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None

    def close(self) -> None:
        if self.starter is not None:
            self.starter.join()  # the pool it starts is shut down below
            self.starter = None
        if self.children is not None:
            self.children.close()
            self.children = None
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


def _here(task: Task) -> Chunk | OSError:
    try:
        return extract(task[1], task[2], task[3])
    except OSError as exc:
        return exc


def _start_helpers(method: str) -> None:
    """Start multiprocessing's helper processes with a real stderr to inherit. Under the
    inspector sys.stderr is Textual's capture, whose fileno() is -1: the resource tracker
    would fail to start with it ("bad value(s) in fds_to_keep"). The helpers get
    /dev/null instead, so nothing they print lands on the screen."""
    import sys
    from multiprocessing import forkserver, resource_tracker

    try:
        usable = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        usable = False
    saved = sys.stderr
    devnull = None if usable else open(os.devnull, "w")  # noqa: SIM115 - closed below
    try:
        if devnull is not None:
            sys.stderr = devnull
        resource_tracker.ensure_running()
        if method == "forkserver":
            forkserver.ensure_running()
    finally:
        if devnull is not None:
            sys.stderr = saved
            devnull.close()
