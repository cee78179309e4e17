"""`traceview export` and `traceview sql`: arguments and the run (exit 0, 1 problems, 2 bad)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from traceview.analysis.options import Options
from traceview.capture.sources import SourceError, expand_paths
from traceview.export import MissingExtra
from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible

EXPORT_HELP = "write every turn of every capture as Parquet, DuckDB, CSV or OTLP spans"
SQL_HELP = "run a SQL query over the turns of captures (or of an export)"
TARGETS = ("parquet", "duckdb", "csv", "otlp")


def engine_errors() -> tuple[type[BaseException], ...]:
    """The error types of the installed engines (a locked database, a full disk inside
    Arrow): reported in one line like every other unusable output."""
    found: list[type[BaseException]] = []
    try:
        import duckdb

        found.append(duckdb.Error)
    except ImportError:
        pass
    try:
        import pyarrow as pa

        found.append(pa.ArrowException)
    except ImportError:
        pass
    return tuple(found)


def _say(command: str, message: str) -> None:
    print(f"traceview {command}: {visible(redact_text(str(message)))}", file=sys.stderr)


def add_export_arguments(p: argparse.ArgumentParser) -> None:
    from traceview.cli import add_analysis_options

    p.add_argument("paths", nargs="+", metavar="CAPTURE",
                   help="capture files or directories of captures")
    p.add_argument("--to", nargs="+", required=True, metavar=("KIND", "TARGET"),
                   help="parquet | duckdb | csv | otlp, optionally followed by the output "
                        "(same as -o): --to duckdb fleet.duckdb, --to otlp spans.json")
    p.add_argument("-o", "--output", metavar="PATH", help="output directory (parquet, csv) "
                   "or file (duckdb, otlp)")
    p.add_argument("--partition-by", default="date", metavar="KEYS",
                   help="parquet partitions: date, or date,model (default date)")
    p.add_argument("--otlp-endpoint", metavar="URL", help="also post the spans to this "
                   "OTLP/HTTP traces endpoint (e.g. http://localhost:4318/v1/traces)")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="parquet: export a "
                   "directory in N local worker processes (default 1)")
    p.add_argument("--dask", metavar="ADDRESS", help="run the parquet export on a Dask "
                   "cluster: a scheduler address, or local:N for N local workers")
    add_analysis_options(p)


def _target(ns: argparse.Namespace) -> tuple[str, str | None]:
    kind, *rest = ns.to
    if kind not in TARGETS:
        raise ValueError(f"--to {kind}: choose one of {', '.join(TARGETS)}")
    if len(rest) > 1 or (rest and ns.output):
        raise ValueError("give the output once: --to KIND TARGET or -o TARGET")
    out = rest[0] if rest else ns.output
    if out is None and not (kind == "otlp" and ns.otlp_endpoint):
        raise ValueError(f"--to {kind} needs an output: -o PATH")
    if ns.dask and kind != "parquet":
        raise ValueError("--dask runs the parquet export only")
    if ns.otlp_endpoint and kind != "otlp":
        raise ValueError("--otlp-endpoint goes with --to otlp")
    return kind, out


def run_export(ns: argparse.Namespace) -> int:
    from traceview.cli import UsageError, options_from
    from traceview.export.run import export_files
    from traceview.export.sinks import ExportError, write_manifest

    try:
        kind, out = _target(ns)
        options = options_from(ns)
        files = expand_paths(ns.paths)
        partition_by = tuple(k.strip() for k in ns.partition_by.split(",") if k.strip())
    except (ValueError, UsageError, SourceError) as exc:
        _say("export", str(exc))
        return 2
    try:
        if ns.dask:
            from traceview.export.cluster import connect, export_on_cluster

            client = connect(ns.dask)
            try:
                counts = export_on_cluster(client, files, out or "", partition_by=partition_by,
                                           options=options)
            finally:
                client.close()
                if getattr(client, "cluster", None) is not None:
                    client.cluster.close()  # a local:N cluster this command started
        elif kind == "parquet" and ns.jobs > 1 and len(files) > 1:
            from traceview.export.run import export_parallel
            from traceview.export.sinks import ParquetSink, prepare_dir

            _system_pool()
            ParquetSink(Path(out or ""), partition_by=partition_by)  # checks the arguments
            prepare_dir(Path(out or ""))
            counts = export_parallel(files, Path(out or ""), ns.jobs, partition_by, options)
            write_manifest(Path(out or ""), partition_by, len(files))
        else:
            _system_pool()
            sink = _sink(kind, out, ns.otlp_endpoint, partition_by)
            counts = export_files(files, sink, options)
            if kind == "parquet":
                write_manifest(Path(out or ""), partition_by, len(files))
    except (MissingExtra, ExportError, OSError, ValueError, *engine_errors()) as exc:
        _say("export", (str(exc).splitlines() or [type(exc).__name__])[0])
        return 2
    where = out if out else ns.otlp_endpoint
    _say("export", f"{counts['turns']:,} turns, {counts['conversations']:,} conversations, "
                   f"{counts['problems']:,} problems from {len(files):,} capture(s) -> {where}")
    return 1 if counts["problems"] else 0


def _system_pool() -> None:
    """Arrow's default pool (mimalloc) keeps freed row groups' memory: a third more peak
    RSS on a large export (bench/export.py). The process's own allocator returns it; read
    when pyarrow starts, so worker processes inherit it too."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")


def _sink(kind: str, out: str | None, endpoint: str | None, partition_by: tuple[str, ...]):
    from traceview.export import sinks

    if kind == "parquet":
        sink = sinks.ParquetSink(Path(out or ""), partition_by=partition_by)
        sinks.prepare_dir(Path(out or ""))  # after the sink checked its arguments
        return sink
    if kind == "duckdb":
        return sinks.DuckDBSink(out or "")
    if kind == "csv":
        return sinks.CsvSink(out or "")
    from traceview.export.otlp import OtlpSink

    return OtlpSink(out, endpoint)


def add_sql_arguments(p: argparse.ArgumentParser) -> None:
    from traceview.cli import add_analysis_options

    p.add_argument("query", metavar="SQL", help="a DuckDB query over the tables turns, "
                   "conversations, problems")
    p.add_argument("paths", nargs="+", metavar="SOURCE",
                   help="captures or directories of captures (cached), an export directory, "
                        "or a .duckdb file")
    p.add_argument("--format", choices=["table", "csv", "json", "markdown"], default="table")
    p.add_argument("--cache", metavar="DIR", help="where captures' tables are cached "
                   "(default $XDG_CACHE_HOME/traceview)")
    add_analysis_options(p)


def run_sql(ns: argparse.Namespace) -> int:
    from traceview.cli import UsageError, options_from
    from traceview.export.cache import default_cache_dir
    from traceview.export.sinks import ExportError

    try:
        options: Options = options_from(ns)
        from traceview.export import sql

        duckdb = sql.need("duckdb", "fleet")
        con, origin = sql.connect(ns.paths, Path(ns.cache) if ns.cache else default_cache_dir(),
                                  options)
    except (UsageError, SourceError, MissingExtra, ExportError, OSError,
            *engine_errors()) as exc:
        _say("sql", (str(exc).splitlines() or [type(exc).__name__])[0])
        return 2
    try:
        cols, rows = sql.query(con, ns.query)
    except duckdb.Error as exc:
        _say("sql", str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        return 2
    try:
        sys.stdout.write(sql.render(cols, rows, ns.format))
        sys.stdout.flush()
    except BrokenPipeError:
        return 0
    finally:
        con.close()
    _say("sql", origin)
    return 0
