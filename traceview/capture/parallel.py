"""Facts on every core: the lines of a large capture reduced in worker processes.

What a line says (`lines.line_facts`) depends on that line alone, so a large file is cut
into chunks at line boundaries, and worker processes reduce each chunk to a list of
(length, ended, what the line says) and the columns of its facts (capture/table.py: arrays,
which pickle as raw bytes, instead of one object per line). The main process appends those
columns to its turn table, then only pairs, consuming the chunks in file order: line
numbers, offsets, problems and turn order are exactly those of a single-process read.
`extract` is also what a cluster job would map over files.

The workers are capture/pool.py's (forked, or taken from `fork_ahead` in the inspector).
Small captures stay in one process: starting workers costs more than they save. A higher
layer may run work of its own on each chunk's requests in the same workers (`Alongside`:
the input account's token counts).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from traceview.capture.lines import Pre, Records, as_rows, line_facts
from traceview.capture.pool import (
    fork_safe,
    quiet,
    stop,
    submit_to,
    taken,
    tracker_started,
    workers,
)
from traceview.capture.table import Facts

if TYPE_CHECKING:  # the pool is imported only where workers run
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.process import BaseProcess

# Unpickling a chunk's result holds the GIL, which the inspector's event loop waits out
# while it loads: chunks stay small enough that a key never waits long.
CHUNK_BYTES = 1 << 20
# The first chunk of a screen's read (`first_here`): about a screenful of turns, so the
# first rows wait for that much of the file's head, whatever the file's size.
FIRST_CHUNK_BYTES = 64 << 10
# The longest line read as a record; a longer one (a file of zeros, a runaway writer) is a
# problem on its line and skipped in chunks, so memory stays bounded whatever the input.
MAX_LINE_BYTES = 256 << 20
BOM = b"\xef\xbb\xbf"
# Below this many bytes in all, one process: a worker's start-up outweighs what it saves.
MIN_PARALLEL_BYTES = 48 << 20
# A worker reads its chunk through a buffer this size: with the default 8 kB most records
# of a few kB are copied twice.
READ_BUFFER = 128 << 10

Task = tuple[int, str, int, int]  # source index, path, start, end
# Work a higher layer does in the worker that read a chunk, beside the facts: called with
# the chunk's request records (by offset, as parsed for their facts: each line is parsed
# once), its answer handed back with the chunk (None when the chunk was read in this
# process). Sent to the workers by name: a module-level function.
Alongside = Callable[[list[tuple[int, dict[str, Any]]]], Any]


class Chunk(NamedTuple):
    """A chunk's lines as (length with newline, ended by a newline, what it says), the
    columns of their facts, and what `along` made of its requests (None: not run)."""

    lines: list[tuple[int, bool, Pre]]
    facts: Facts
    made: Any = None


def min_parallel_bytes() -> int:
    env = os.environ.get("TRACEVIEW_PARALLEL_MIN_BYTES", "").strip()
    return int(env) if env.isdigit() else MIN_PARALLEL_BYTES


def workers_for(total_bytes: int) -> int:
    """Worker processes for a read of this many bytes in all (1: no workers)."""
    return workers() if total_bytes >= min_parallel_bytes() else 1


def chunk_bytes() -> int:
    env = os.environ.get("TRACEVIEW_CHUNK_BYTES", "").strip()
    return max(1, int(env)) if env.isdigit() else CHUNK_BYTES


def extract(path: str, start: int, end: int, along: Alongside | None = None) -> Chunk:
    """Every line in bytes [start, end) of `path` (which begin and end at line
    boundaries) as (length with newline, ended by a newline, what it says), read as the
    one-process loop reads them: a line past MAX_LINE_BYTES is a problem and skipped in
    bounded pieces, and a BOM before line 1 is an entry of its own (negative length).
    Facts are rows of the chunk's own columns, returned with the lines; `along` is run on
    the chunk's request records, parsed once for both."""
    out: list[tuple[int, bool, Pre]] = []
    append = out.append
    records = Records()
    requests: list[tuple[int, dict[str, Any]]] = []
    keep = along is not None
    with open(path, "rb", buffering=READ_BUFFER) as f:
        f.seek(start)
        readline = f.readline
        pos = start
        while pos < end and (raw := readline(MAX_LINE_BYTES)):
            ended = raw[-1] == 10  # a newline (an int: no slice made)
            if not ended and len(raw) == MAX_LINE_BYTES:
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
            at = pos
            pos += len(raw)
            if at == 0 and raw.startswith(BOM):
                append((-3, False, None))  # a BOM is not JSON
                raw = raw[3:]
                at = 3
                ended = raw[-1:] == b"\n"  # the BOM was the whole line: no newline
            pre = line_facts(raw, ended, keep)
            if keep and pre is not None and pre[0] == "req":
                requests.append((at, pre[11]))
            append((len(raw), ended, as_rows(pre, records)))
    return Chunk(out, records.facts(), None if along is None else along(requests))


def split(path: str, size: int, chunk: int,
          first: int | None = None) -> Generator[tuple[int, int], None, None]:
    """[start, end) ranges of about `chunk` bytes (the first of about `first`, when
    given), each ending just after a newline (the last at the end of the file), found as
    they are asked for: the first is there at once, however large the file. Line ends are
    found in bounded reads."""
    start = 0
    step = chunk if first is None else first
    with open(path, "rb") as f:
        while start < size:
            f.seek(min(start + step, size))
            step = chunk
            end = f.tell()
            while end < size:
                piece = f.readline(1 << 20)
                end = f.tell()
                if not piece or piece[-1:] == b"\n":
                    break
            yield start, end
            start = end


class Extractor:
    """Runs `extract` over tasks, results handed back in task order with a bounded number
    in flight (memory stays a few chunks, not the whole file).

    The first task runs here (`first_here`), a screenful from the head, and the workers
    are started (or taken from `fork_ahead`) once it is read: the first rows wait for no
    whole chunk, and workers started here start from the reading thread before a screen
    lowers its priority (they would inherit it). The second task also runs here, while
    they start. A headless read sends every task to the workers. A task the workers
    cannot run (they could not start, or one died) also runs here: the result is the same
    whichever process made it, so a load never fails for want of workers. `along` runs
    only in the workers: what it makes must be something this process could make again (a
    cache's entries), never something a chunk read here would lack."""

    def __init__(self, n_workers: int, along: Alongside | None = None,
                 first_here: bool = True, start: Callable[[], object] | None = None) -> None:
        self.n_workers = n_workers
        self.along = along
        self.first_here = first_here
        self.start = start  # run in each worker this read starts itself (pool.py `quiet`)
        self.ahead = 2 * n_workers
        self.pool: ProcessPoolExecutor | None = None
        # The pool's worker processes, joined by `close` whatever state the pool is in.
        self.workers: set[BaseProcess] = set()

    def _start(self) -> ProcessPoolExecutor | None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ahead = taken(self.n_workers)
        if ahead is not None:
            self.workers.update(ahead[1])
            return ahead[0]
        method = "fork" if fork_safe() else "spawn"
        try:
            if method == "spawn":
                tracker_started()
            return ProcessPoolExecutor(self.n_workers, multiprocessing.get_context(method),
                                       initializer=quiet, initargs=(self.start,))
        except (OSError, ValueError):
            return None

    def _submit(self, task: Task) -> Future[Any] | None:
        return submit_to(self.pool, self.workers, self.n_workers, extract,
                          task[1], task[2], task[3], self.along)

    def run(self, tasks: Iterator[Task]) -> Iterator[tuple[Task, Chunk | OSError]]:
        """(task, its chunk or the OSError reading it met)."""
        first = next(tasks, None)
        if first is None:
            return
        if self.n_workers < 2:  # one process: each chunk read here, when it is asked for
            taken(0)  # workers forked ahead for a larger read are not left waiting
            yield first, _here(first)
            for task in tasks:
                yield task, _here(task)
            return
        queue: deque[tuple[Task, Future[Any] | None]] = deque()
        started = False

        def fill() -> None:
            nonlocal started
            while len(queue) < self.ahead and (task := next(tasks, None)) is not None:
                if not started:
                    started, self.pool = True, self._start()
                queue.append((task, self._submit(task)))

        if self.first_here:
            head = _here(first)
            second = next(tasks, None)
            if second is not None:
                fill()  # the workers start on what follows it, while the head is paired
            yield first, head
            if second is not None:
                yield second, _here(second)
        else:
            started, self.pool = True, self._start()
            queue.append((first, self._submit(first)))
        while True:
            fill()
            if not queue:
                return
            task, future = queue.popleft()
            yield task, _here(task) if future is None else _result(task, future)

    def close(self) -> None:
        stop(self.pool, self.workers)
        self.pool = None


def _result(task: Task, future: Future[Any]) -> Chunk | OSError:
    """A worker's answer; an OSError its reading met is the one this process would meet;
    a worker that died or sent nonsense has its task read here."""
    try:
        answer: Chunk = future.result()
    except OSError as exc:
        return exc
    except Exception:  # noqa: BLE001 - BrokenProcessPool, an unpicklable answer
        return _here(task)
    return answer


def _here(task: Task) -> Chunk | OSError:
    try:
        return extract(task[1], task[2], task[3])
    except OSError as exc:
        return exc
