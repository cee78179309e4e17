"""The export job: captures -> rows -> a sink, one capture file at a time.

The same function runs on one machine (`traceview export`) and on every worker of the
cluster job (`cluster.py`), so both write the same rows in the same layout.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from traceview.analysis.options import Options
from traceview.capture.sources import expand_paths
from traceview.export.rows import capture_rows
from traceview.export.sinks import ParquetSink, Sink


def export_files(files: list[str], sink: Sink, options: Options | None = None,
                 on_file: Callable[[str], None] | None = None) -> dict[str, int]:
    """Feed every row of every file into `sink`, close it, and return the row counts."""
    try:
        for path in files:
            for table, row in capture_rows(path, options):
                sink.add(table, row)
            if on_file:
                on_file(path)
    finally:
        sink.close()
    return dict(sink.counts)


def export_parquet_chunk(files: list[str], out: str, prefix: str,
                         partition_by: tuple[str, ...], options: Options | None) -> dict[str, int]:
    """One worker's share of a Parquet export (a module-level function: it is pickled)."""
    return export_files(files, ParquetSink(Path(out), partition_by=partition_by, prefix=prefix),
                        options)


def capture_files(paths: list[str]) -> list[str]:
    return expand_paths(paths)
