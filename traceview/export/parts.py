"""A large capture's tables written as Parquet by workers forked from its analysis.

The analysis is made once, in this process. The rows, their cleaning and the Arrow and
Parquet work after it are most of an export's time and all of pyarrow's memory, so they
are done the way the report writes its rows: by workers forked once the analysis is made
(capture/pool.py `inherited`), a span of turns (or of conversations, or the problems)
a task. Each task writes its rows into the sink's layout as files of its own,
`PREFIX-NNNNN.parquet`, numbered in table order: read back in name order, they are a
one-process export's rows, row for row. This process never loads pyarrow for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from traceview.analysis.session import Analysis
from traceview.capture.pool import fork_safe, inherited, workers
from traceview.export.clean import columns
from traceview.export.rows import (
    Columns,
    conversation_tables,
    places,
    problem_tables,
    turn_tables,
)
from traceview.export.sinks import ParquetSink

# Turns a task: a few row groups of a file, and tasks enough to keep every worker busy.
SPAN_TURNS = 4096
# Conversations a task (each carries its carried-context account: kilobytes).
SPAN_CONVERSATIONS = 1024
# Below this many turns a capture's tables are written here, with the other small
# captures of an export (a fleet of small files would otherwise fork a pool per file).
MIN_TURNS = 1024

Task = tuple[int, str, int, int]  # part number, what it writes, [lo, hi)


@dataclass(frozen=True)
class _Job:
    """What the tasks read, set before the workers fork (inherited by them)."""

    analysis: Analysis
    sink: ParquetSink  # the layout: folder, partitions, name prefix, tag columns
    tags: tuple[str, ...]  # the tag columns' values (one per row of this capture)

    @cached_property
    def where(self) -> dict[int, tuple[str, int]]:
        """Each turn's conversation kind and position (a dict entry a turn), made by each
        worker at its first span of turns: this process never holds it beside the
        analysis, whose memory is the export's peak."""
        return places(self.analysis)


_JOB: _Job | None = None


def tagged(cols: Columns, names: tuple[str, ...], values: tuple[str, ...]) -> Columns:
    """`cols` with a column per tag, holding its value on every row (the sql cache's
    capture key and segment)."""
    n = len(next(iter(cols.values()))) if cols else 0
    for name, value in zip(names, values, strict=True):
        cols[name] = [value] * n
    return cols


def write_parts(sink: ParquetSink, analysis: Analysis, tags: tuple[str, ...] = ()) -> bool:
    """Write `analysis`'s tables into `sink`'s layout from forked workers; False (nothing
    written) when the capture is small or no worker can be forked: the caller writes it."""
    if len(analysis.turns) < MIN_TURNS or workers() < 2 or not fork_safe():
        return False
    global _JOB
    tasks = list(_tasks(analysis, sink.parts))
    _JOB = _Job(analysis, sink, tags)
    try:
        for counts, empty in inherited(_write, tasks, workers()):
            sink.add_parts(counts, empty)
    finally:
        _JOB = None
    sink.parts += len(tasks)
    return True


def _tasks(analysis: Analysis, first: int) -> Iterator[Task]:
    n, m = len(analysis.turns), len(analysis.conversations)
    spans = [("turns", lo, min(lo + SPAN_TURNS, n)) for lo in range(0, n, SPAN_TURNS)]
    spans += [("conversations", lo, min(lo + SPAN_CONVERSATIONS, m))
              for lo in range(0, m, SPAN_CONVERSATIONS)]
    spans.append(("problems", 0, 0))  # last: it also makes the empty tables' files
    for k, (what, lo, hi) in enumerate(spans):
        yield first + k, what, lo, hi


def _write(task: Task) -> tuple[dict[str, int], dict[str, bytes]]:
    """One task's rows written as its own files (in a worker, or here): the rows each
    table got, and, from the last task, each table's file with no row."""
    assert _JOB is not None
    job = _JOB
    number, what, lo, hi = task
    layout = job.sink
    sink = ParquetSink(layout.out, partition_by=layout.partition_by,
                       prefix=f"{layout.prefix}-{number:05d}", tags=layout.tags,
                       write_empty=False)
    made: Iterator[tuple[str, Columns]]
    if what == "turns":
        made = turn_tables(job.analysis, job.where, lo, hi)
    elif what == "conversations":
        made = conversation_tables(job.analysis, lo, hi)
    else:
        made = problem_tables(job.analysis)
    for table, raw in made:
        sink.add_columns(table, tagged(columns(table, raw), layout.tags, job.tags))
    sink.close()
    empty: dict[str, Any] = sink.empty_files() if what == "problems" else {}
    return dict(sink.counts), empty
