"""The export job: captures -> rows -> a sink, one capture file at a time.

The same function runs on one machine (`traceview export`) and on every worker of the
cluster job (`cluster.py`), so both write the same rows in the same layout.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from traceview.analysis.options import Options
from traceview.analysis.pricing import Pricing, PricingError
from traceview.analysis.session import Analysis
from traceview.export.clean import columns
from traceview.export.parts import write_parts
from traceview.export.rows import BATCH_TURNS, Columns, capture_raw, problem_tables
from traceview.export.sinks import ParquetSink, Sink
from traceview.export.stage import StageSink


def shared_pricing(options: Options | None) -> Pricing | None:
    """The pricing table, loaded once for every file of an export; None when it cannot be
    loaded, so each file reports the error as its own problem row (as before)."""
    try:
        return Pricing.load((options or Options()).pricing_path)
    except PricingError:
        return None


def export_files(files: list[str], sink: Sink, options: Options | None = None,
                 on_file: Callable[[str], None] | None = None,
                 on_problems: Callable[[Columns], None] | None = None) -> dict[str, int]:
    """Feed every row of every file into `sink`, close it, and return the row counts.
    `on_problems` sees each file's problem rows too, so the command can name them."""
    pricing = shared_pricing(options) if len(files) > 1 else None
    batches: dict[str, Columns] = {}

    def flush() -> None:  # the batches made so far, handed to the sink in table order
        for table, batch in batches.items():
            sink.add_columns(table, columns(table, batch))
        batches.clear()

    # A large capture's Parquet rows are written by workers (export/parts.py), after the
    # rows before it.
    elsewhere = (partial(_hand_off, sink, on_problems, flush)
                 if isinstance(sink, ParquetSink | StageSink) else None)
    try:
        for path in files:
            for table, cols in capture_raw(path, options, pricing=pricing,
                                           elsewhere=elsewhere):
                if table == "problems" and on_problems is not None:
                    on_problems(cols)
                batch = batches.get(table)
                if batch is None:
                    batch = batches[table] = cols
                else:
                    for name, values in cols.items():
                        batch[name].extend(values)
                if len(next(iter(batch.values()))) >= BATCH_TURNS:  # small files: one batch
                    sink.add_columns(table, columns(table, batch))
                    del batches[table]
            if on_file:
                on_file(path)
    finally:
        try:
            flush()
        finally:
            sink.close()
    return dict(sink.counts)


def _hand_off(sink: ParquetSink | StageSink, on_problems: Callable[[Columns], None] | None,
              flush: Callable[[], None], analysis: Analysis) -> bool:
    """Let workers write a large capture's Parquet parts; the command still sees its problem
    rows (to name the damaged lines), which the workers wrote."""
    flush()
    if not (sink.write_parts(analysis) if isinstance(sink, StageSink)
            else write_parts(sink, analysis)):
        return False
    if on_problems is not None:
        for _table, cols in problem_tables(analysis):
            on_problems(cols)
    return True


def export_parquet_chunk(files: list[str], out: str, prefix: str,
                         partition_by: tuple[str, ...], options: Options | None) -> dict[str, int]:
    """One worker's share of a Parquet export (a module-level function: it is pickled)."""
    return export_files(files, ParquetSink(Path(out), partition_by=partition_by, prefix=prefix),
                        options)


def chunks(files: list[str], n: int) -> list[list[str]]:
    """`files` dealt into at most `n` chunks of similar total size (largest first)."""
    n = max(1, min(n, len(files)))
    out: list[list[str]] = [[] for _ in range(n)]
    load = [0] * n
    sizes = {}
    for f in files:
        try:
            sizes[f] = Path(f).stat().st_size
        except OSError:
            sizes[f] = 0
    for f in sorted(files, key=lambda f: -sizes[f]):
        i = load.index(min(load))
        out[i].append(f)
        load[i] += sizes[f]
    return [c for c in out if c]


def export_parallel(files: list[str], out: Path, jobs: int, partition_by: tuple[str, ...],
                    options: Options | None) -> dict[str, int]:
    """The Parquet export in `jobs` local worker processes (the cluster job's map step,
    without a cluster): each writes its own files into the shared layout."""
    from concurrent.futures import ProcessPoolExecutor

    parts = chunks(files, jobs * 4)
    totals: dict[str, int] = {}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(export_parquet_chunk, part, str(out), f"part-{i:05d}",
                               partition_by, options) for i, part in enumerate(parts)]
        for fut in futures:
            for t, n in fut.result().items():
                totals[t] = totals.get(t, 0) + n
    return totals
