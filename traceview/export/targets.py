"""Where an export goes: Parquet (one process, worker processes, or a Dask cluster), DuckDB,
CSV or OTLP spans. ``traceview export`` and ``traceview sql`` call these."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from traceview.analysis.options import Options

TARGETS = ("parquet", "duckdb", "csv", "otlp")


def engine_errors() -> tuple[type[BaseException], ...]:
    """The error types of the engines this process has loaded (a locked database, a full
    disk inside Arrow): reported in one line like every other unusable output. Looked up,
    never imported: an engine that was not loaded raised nothing, and importing one to
    name its errors cost a Parquet export DuckDB's memory and loaded pyarrow before its
    memory pool was chosen (`use_system_pool`)."""
    found: list[type[BaseException]] = []
    for module, name in (("duckdb", "Error"), ("pyarrow", "ArrowException")):
        error = getattr(sys.modules.get(module), name, None)
        if isinstance(error, type) and issubclass(error, BaseException):
            found.append(error)
    return tuple(found)


def export(files: list[str], kind: str, out: str | None, options: Options, *,
           partition_by: tuple[str, ...] = ("date",), jobs: int = 1, dask: str | None = None,
           otlp_endpoint: str | None = None,
           on_problems: Callable[[dict[str, list[Any]]], None] | None = None) -> dict[str, int]:
    """Export every turn of ``files`` to ``kind`` at ``out``; the counts (turns,
    conversations, problems). ``on_problems`` sees the problem rows of an export made in
    this process (worker processes and a cluster only count them)."""
    from traceview.export.run import export_files
    from traceview.export.sinks import write_manifest

    if dask:
        return _on_cluster(dask, files, out or "", partition_by, options)
    use_system_pool()
    if kind == "duckdb":
        from traceview.export.duck import export_duckdb

        return export_duckdb(files, out or "", options, on_problems)
    if kind == "parquet" and jobs > 1 and len(files) > 1:
        from traceview.export.run import export_parallel
        from traceview.export.sinks import ParquetSink, prepare_dir

        ParquetSink(Path(out or ""), partition_by=partition_by)  # checks the arguments
        prepare_dir(Path(out or ""))
        counts = export_parallel(files, Path(out or ""), jobs, partition_by, options)
    else:
        counts = export_files(files, open_sink(kind, out, otlp_endpoint, partition_by), options,
                              on_problems=on_problems)
    if kind == "parquet":
        write_manifest(Path(out or ""), partition_by, len(files))
    return counts


def _on_cluster(address: str, files: list[str], out: str, partition_by: tuple[str, ...],
                options: Options) -> dict[str, int]:
    from traceview.export.cluster import connect, export_on_cluster

    client = connect(address)
    try:
        return export_on_cluster(client, files, out, partition_by=partition_by,
                                 options=options)
    finally:
        client.close()
        if getattr(client, "cluster", None) is not None:
            client.cluster.close()  # a local:N cluster this command started


def use_system_pool() -> None:
    """Arrow's default pool (mimalloc) keeps freed row groups' memory: a third more peak
    RSS on a large export. The process's own allocator returns it. Read when pyarrow
    starts, so the command that will load it calls this first (worker processes inherit
    it); a caller that set ARROW_DEFAULT_MEMORY_POOL keeps its choice."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")


def open_sink(kind: str, out: str | None, endpoint: str | None,
              partition_by: tuple[str, ...]) -> Any:
    from traceview.export import sinks

    if kind == "parquet":
        sink = sinks.ParquetSink(Path(out or ""), partition_by=partition_by)
        sinks.prepare_dir(Path(out or ""))  # after the sink checked its arguments
        return sink
    if kind == "csv":
        return sinks.CsvSink(out or "")
    from traceview.export.otlp import OtlpSink

    return OtlpSink(out, endpoint)
