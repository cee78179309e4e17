"""Facts on every core: the lines of a large capture reduced in worker processes.

What a line says (`reader.line_facts`) depends on that line alone, so a large file is cut
into chunks at line boundaries, and the files of a directory are taken whole, and worker
processes reduce each chunk to a list of (length, ended, what the line says) and the
columns of its facts (capture/table.py: arrays, which pickle as raw bytes, instead of one
object per line). The main process appends those columns to its turn table, then only
pairs and analyses, consuming the chunks in file order: line numbers, offsets, problems
and turn order are exactly those of a single-process read (a test compares the reports
byte for byte). `extract` is also what a cluster job would map over files.

The workers are plain child processes serving pipes (capture/children.py): forked in a
process with one thread (the CLI), new interpreters in one with threads (the inspector
loads from a thread, and forking a threaded process is unsafe).

Small captures stay in one process: starting workers costs more than they save.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator

from traceview.capture.children import Child, Children, fork_safe
from traceview.capture.reader import Pre, as_rows, line_facts
from traceview.capture.table import Facts

# 1 MB: unpickling a chunk's result holds the GIL (a few ms for 1 MB), which the
# inspector's event loop waits out while it loads.
CHUNK_BYTES = 1 << 20
# Below this many bytes in all, one process: a worker's start-up (~0.1 s) outweighs it.
MIN_PARALLEL_BYTES = 48 << 20
# A worker reads its chunk through a buffer this size: with the default 8 kB most records
# of a few kB are copied twice, and reading cost twice as much (bench/extractor.py).
READ_BUFFER = 128 << 10

Chunk = tuple[list[tuple[int, bool, Pre]], Facts]
# What a spawned worker imports and runs (capture/children.py): `extract`, below.
SPAWN = "traceview.capture.parallel:extract"
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
            pos += len(raw)
            if pos == start + len(raw) and start == 0 and raw.startswith(_BOM):
                append((-3, False, None))  # a BOM is not JSON
                raw = raw[3:]
                ended = raw[-1:] == b"\n"  # the BOM was the whole line: no newline
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

    The workers are children serving pipes (capture/children.py): in a process with one
    thread (the CLI) forked, with no interpreter to start; with threads (the inspector
    loads from one) forking is unsafe, and they are new interpreters that import
    `extract`. Either way nothing runs in this process but the reads of their answers: no
    multiprocessing, no helper thread."""

    def __init__(self, n_workers: int) -> None:
        self.n_workers = n_workers
        self.ahead = 2 * n_workers
        self.children: Children | None = None

    def run(self, tasks: Iterator[Task]) -> Iterator[tuple[Task, Chunk | OSError]]:
        first = next(tasks, None)
        if first is None:
            return
        # The children start before the first chunk is read: a forked one with the parent
        # at its smallest; all read the next chunks while this process reads the first.
        children = self.children = Children(self.n_workers, extract,
                                            None if fork_safe() else SPAWN)
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

    def close(self) -> None:
        if self.children is not None:
            self.children.close()
            self.children = None


def _here(task: Task) -> Chunk | OSError:
    try:
        return extract(task[1], task[2], task[3])
    except OSError as exc:
        return exc
