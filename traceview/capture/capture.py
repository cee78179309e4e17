"""A loaded capture: sources, turns, exchanges, problems, and bodies on demand."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import orjson

from traceview.capture.bounded import loads as bounded_loads
from traceview.capture.model import Exchange, Problem, RecordRef, Turn
from traceview.capture.parallel import (
    FIRST_CHUNK_BYTES,
    Alongside,
    Chunk,
    Extractor,
    Task,
    chunk_bytes,
    split,
    workers_for,
)
from traceview.capture.pool import fork_ahead
from traceview.capture.reader import CaptureBuilder
from traceview.capture.sources import (
    Source,
    SourceError,
    expand_paths,
    not_a_capture,
    open_source,
)
from traceview.capture.table import TurnTable

if TYPE_CHECKING:
    from tempfile import TemporaryDirectory

MAX_OPEN_FILES = 32  # bodies are re-read through a few cached descriptors, never one per file


@dataclass
class Progress:
    bytes_read: int
    total_bytes: int | None
    lines: int
    done: bool


@dataclass
class Capture:
    """Everything known about a capture, with bodies left in their files."""

    sources: list[str]
    # In order; a loaded capture's is a `Turns` (capture/model.py), whose views are made when
    # read: index it, slice it, iterate it, as a list.
    turns: Sequence[Turn] = field(default_factory=list)
    # The turns' facts in columns; each Turn above is a view of one of its rows.
    table: TurnTable = field(default_factory=TurnTable, repr=False)
    exchanges: list[Exchange] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # One entry per source read through an importer (HAR, Batch, OTLP): what it held.
    imports: list[dict[str, Any]] = field(default_factory=list)
    _files: list[Source] = field(default_factory=list, repr=False)
    _handles: OrderedDict[int, BinaryIO] = field(default_factory=OrderedDict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _spool: TemporaryDirectory[str] | None = field(default=None, repr=False)

    def spool_dir(self) -> Path:
        """A private directory for decompressed sources, removed with the capture."""
        if self._spool is None:
            # Imported here: only .gz and stdin sources spool, and tempfile brings shutil,
            # bz2, lzma and random with it (a megabyte a plain load does not need).
            from tempfile import TemporaryDirectory

            self._spool = TemporaryDirectory(prefix="traceview-")
        return Path(self._spool.name)

    def _pread(self, source: int, offset: int, length: int) -> bytes:
        with self._lock:
            handle = self._handles.get(source)
            if handle is None:
                handle = open(self._files[source].path, "rb")  # noqa: SIM115 - cached
                self._handles[source] = handle
                if len(self._handles) > MAX_OPEN_FILES:
                    self._handles.popitem(last=False)[1].close()
            else:
                self._handles.move_to_end(source)
            return os.pread(handle.fileno(), length, offset)

    def read(self, ref: RecordRef | None) -> dict[str, Any] | None:
        """Re-read one whole record by its byte range; None if it cannot be read."""
        raw = self.read_raw(ref)
        if raw is None:
            return None
        try:
            obj = bounded_loads(raw)
        except ValueError:
            return None
        return obj if isinstance(obj, dict) else None

    def read_raw(self, ref: RecordRef | None, limit: int | None = None) -> bytes | None:
        if ref is None or not (0 <= ref.source < len(self._files)):
            return None
        n = ref.length if limit is None else min(limit, ref.length)
        try:
            return self._pread(ref.source, ref.offset, n)
        except OSError:
            return None

    def close(self) -> None:
        with self._lock:
            for h in self._handles.values():
                h.close()
            self._handles.clear()
        if self._spool is not None:
            self._spool.cleanup()
            self._spool = None


class CaptureLoader:
    """Reads sources line by line into a Capture, in steps a caller can interleave."""

    def __init__(self, paths: list[str], from_format: str | None = None, *,
                 along: tuple[Alongside, Callable[[int, Any], None]] | None = None,
                 first_here: bool = True) -> None:
        """`along`: work a higher layer does on each chunk's request lines in the worker
        that reads it, and where its answer is taken here (in file order, before the
        chunk's turns are paired); `first_here`: the first chunk read in this process, so
        its rows show while the workers start (a headless read sends it to them too)."""
        self.along = along
        self.first_here = first_here
        self.worker_start: Callable[[], object] | None = None  # see fork_workers
        self.unlisted: list[tuple[str, str]] = []  # sub-directories that could not be read
        self.paths = expand_paths(paths, self.unlisted)
        self.from_format = from_format  # None: detect each source's format
        if not self.paths:
            raise SourceError("no capture given")
        self.capture = Capture(sources=list(self.paths))
        self.builder = CaptureBuilder(self.capture.sources)
        self.capture.turns = self.builder.turns
        self.capture.table = self.builder.table
        self.capture.exchanges = self.builder.exchanges
        self.capture.problems = self.builder.problems
        self.bytes_read = 0
        self.lines = 0
        self.total_bytes: int | None = 0

    def open_all(self) -> None:
        """Check every source up front, so a bad path fails before anything is shown.

        With several paths a source that cannot be read becomes a problem instead;
        with one, the error is the whole answer.
        """
        for name, reason in self.unlisted:
            problem = Problem(name, 1, "unreadable_source", reason)
            self.builder.problems.append(problem)
            self.builder.new_problems.append(problem)
        adopted: list[tuple[Source, Any]] = []
        for i, path in enumerate(self.paths):
            try:
                src = open_source(path, self.capture.spool_dir)
            except SourceError as exc:
                if len(self.paths) == 1:
                    raise
                src = Source(path, os.devnull, 0)
                self.builder.problem(i, 1, "unreadable_source", str(exc))
            else:
                adopted.append((src, self._adopt(src)))
            if src.name == "<stdin>":
                self.capture.sources[i] = src.name
            self.capture._files.append(src)
        self._use_adopted(adopted)
        for src in self.capture._files:
            if self.total_bytes is not None:
                self.total_bytes = None if src.size is None else self.total_bytes + src.size

    def _adopt(self, src: Source) -> Any:
        """A foreign file (HAR, Batch, OTLP) is read through its conversion to records."""
        from traceview.capture.formats import adopt

        return adopt(src.name, src.path, self.capture.spool_dir, self.from_format)

    def _use_adopted(self, adopted: list[tuple[Source, Any]]) -> None:
        from traceview.capture.formats import join_batches

        join_batches([a for _, a in adopted], self.capture.spool_dir)
        for src, a in adopted:
            if a.path != src.path:
                src.path, src.spooled = a.path, True
                src.size = os.path.getsize(a.path)
            src.findings = a.findings
            if a.summary is not None:
                self.capture.imports.append({"source": src.name, **a.summary})

    def fork_workers(self, then: Callable[[], object] | None = None) -> bool:
        """Fork the worker processes this read will use, now (pool.py `fork_ahead`:
        for a caller about to start threads, which reads from one of them). `then` runs
        in each worker as it starts, forked now or, where forking is not safe any more,
        spawned when the read begins (it must then be picklable)."""
        self.worker_start = then
        return fork_ahead(workers_for(sum(_size(path) for path in self.paths)), then)

    def steps(self, every: int = 16) -> Iterator[int]:
        """Feed every line; yield the line count every `every` lines and at the end of each
        source, so a caller can take the finished turns and batch them by time.

        Each source is cut into chunks at line ends (capture/parallel.py), whose lines are
        reduced to facts here or, for a large capture, in worker processes; the chunks are
        then paired in file order. Offsets are summed as lines pass, so any record can be
        re-read later with one pread. A last line without a newline is passed on as such:
        the reader reports it as a record cut mid-write.
        """
        files = self.capture._files
        sizes = [_size(src.path) for src in files]
        n_workers = workers_for(sum(sizes))
        # A foreign or binary file is judged before it is read: one clear problem, not one
        # per line, and its chunks are never sent.
        verdicts = self.verdicts()
        along, take = self.along or (None, None)
        extractor = Extractor(n_workers, along, self.first_here, self.worker_start)
        tasks = self._tasks(verdicts, sizes)
        results = extractor.run(tasks)
        try:
            ahead: tuple[Task, Chunk | OSError] | None = next(results, None)
            for i, src in enumerate(files):
                self._opening(i, verdicts[i])  # about the whole file: before its lines
                if verdicts[i] is not None:
                    yield self.lines
                    continue
                at = _Position(self.lines, self.bytes_read)
                with _Rereader(src.path) as reread:
                    while ahead is not None and ahead[0][0] == i:
                        result = ahead[1]
                        if isinstance(result, OSError):
                            at.failed = at.failed or result
                        elif at.failed is None:
                            if result.made is not None and take is not None:
                                take(i, result.made)
                            yield from self._pair(i, result, at, reread, every)
                        # The next chunk is asked for only now: the first one's rows show
                        # before the workers have even started.
                        ahead = next(results, None)
                self._end_source(i, src, at)
                yield self.lines
        finally:
            extractor.close()
            tasks.close()  # the file it finds chunks in is closed now, not when collected

    def verdicts(self) -> list[str | None]:
        """Why each opened source is not a capture at all, judged from its first bytes
        (None: it may be one); a source an importer already judged is not judged again."""
        return [None if src.findings else not_a_capture(src.path) for src in self.capture._files]

    def _opening(self, i: int, verdict: str | None) -> None:
        for kind, message, line in self.capture._files[i].findings:
            self.builder.problem(i, line, kind, message)
        if verdict is not None:
            self.builder.problem(i, 1, "not_a_capture", f"not a capture: {verdict}")

    def _tasks(self, verdicts: list[str | None],
               sizes: list[int]) -> Generator[Task, None, None]:
        chunk = chunk_bytes()
        # A screen's read starts with a screenful from the head (see Extractor).
        head = min(chunk, FIRST_CHUNK_BYTES) if self.first_here else None
        for i, src in enumerate(self.capture._files):
            if verdicts[i] is not None:
                continue
            at = 0
            try:
                with closing(split(src.path, sizes[i], chunk, head)) as ranges:
                    for at, end in ranges:
                        head = None
                        yield i, src.path, at, end
                        at = end
            except OSError:  # reading the rest meets the same error and reports it
                yield i, src.path, at, max(sizes[i], at + 1)

    def _pair(self, i: int, chunk: Chunk, at: _Position, reread: _Rereader,
              every: int) -> Iterator[int]:
        """Pair a chunk's lines, its facts appended to the table first."""
        lines, facts, _ = chunk
        self.builder.take(facts)
        feed, read = self.builder.feed_pre, reread.read
        for length, ended, pre in lines:
            if length < 0:  # bytes before line 1 that are no line's (a BOM)
                at.offset -= length
                continue
            at.line += 1
            if pre is not None:
                n = length - 1 if ended else length
                feed(i, at.line, at.offset, n, pre, read)
            at.offset += length
            if not at.line % every:
                self.lines, self.bytes_read = at.lines0 + at.line, at.bytes0 + at.offset
                yield self.lines

    def _end_source(self, i: int, src: Source, at: _Position) -> None:
        if at.failed is not None:
            self.builder.problem(i, at.line + 1, "unreadable_source",
                                 f"stopped reading: {at.failed.strerror or at.failed}")
        self.builder.close()
        for note in src.notes:  # damage found while decompressing: after the last line
            self.builder.problem(i, at.line + 1, "damaged_source", note)
        self.lines, self.bytes_read = at.lines0 + at.line, at.bytes0 + at.offset

    def progress(self, done: bool = False) -> Progress:
        return Progress(self.bytes_read, self.total_bytes, self.lines, done)


@dataclass
class _Position:
    """Where the pairing of one source is: its line and offset, the loader's counts when
    it began, and the error that stopped its reading, if one did."""

    lines0: int
    bytes0: int
    line: int = 0
    offset: int = 0
    failed: OSError | None = None


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


class _Rereader:
    """Parses one record again from its source, for the few the pairing needs whole."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.handle: BinaryIO | None = None

    def __enter__(self) -> _Rereader:
        return self

    def __exit__(self, *_: object) -> None:
        if self.handle is not None:
            self.handle.close()

    def read(self, offset: int, length: int) -> dict[str, Any]:
        try:
            if self.handle is None:
                self.handle = open(self.path, "rb")  # noqa: SIM115 - closed on exit
            obj = orjson.loads(os.pread(self.handle.fileno(), length, offset))
        except (OSError, ValueError):
            return {}
        return obj if isinstance(obj, dict) else {}


def opening_problems(path: str, from_format: str | None = None) -> list[Problem]:
    """The problems a read of ``path`` gives before its first line: unreadable, a format
    not imported, not a capture. A command that writes (export, sql's cache) asks this
    first, so inputs of which none is a capture are refused before anything is made."""
    loader = CaptureLoader([path], from_format)
    try:
        loader.open_all()
    except SourceError as exc:
        return [Problem(path, 1, "unreadable_source", str(exc))]
    try:
        loader._opening(0, loader.verdicts()[0])
        return list(loader.builder.problems)
    finally:
        loader.capture.close()


def load(paths: list[str] | str, from_format: str | None = None) -> Capture:
    """Read a whole capture. Raises SourceError only when nothing at all can be read."""
    loader = CaptureLoader([paths] if isinstance(paths, str) else list(paths), from_format)
    loader.open_all()
    for _ in loader.steps():
        pass
    return loader.capture
