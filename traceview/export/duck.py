"""`export --to duckdb`: the tables written as Parquet first, then loaded by DuckDB alone.

The captures are read and their rows written as for `--to parquet` (a large capture's by
forked workers, export/parts.py), into a private folder beside the database, all of it
in a child forked for it (capture/apart.py). Only once that child has exited, its
analysis gone with it, does DuckDB, in this process, read those files into the
database's tables: the analysis's memory and DuckDB's are never held at once, and DuckDB
reads Parquet a row group at a time instead of taking Arrow batches from this process.
The files' names, in order, are the rows' order.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from traceview.analysis.options import Options
from traceview.capture.apart import apart
from traceview.export import need, present
from traceview.export.rows import Columns
from traceview.export.run import export_files
from traceview.export.schema import TABLES
from traceview.export.sinks import ExportError
from traceview.export.stage import StageSink
from traceview.export.views import literal, table_select
from traceview.report.problems import NAMED_ON_STDERR

DUCKDB_ROW_GROUP = 8192  # rows per row group of an exported DuckDB database
# DuckDB's buffer pool while it loads (spilling past it): its default grows towards most
# of the machine's memory.
MEMORY_LIMIT = "64MB"


def export_duckdb(files: list[str], out: str, options: Options | None,
                  on_problems: Callable[[Columns], None] | None = None) -> dict[str, int]:
    """The DuckDB database `out` (its tables created or replaced) holding every row of
    `files`; the counts. The staged files are removed whatever happens."""
    present("pyarrow", "fleet")  # both named now when missing, before any capture is read
    present("duckdb", "fleet")
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=".tv-stage-", dir=path.parent))
    try:
        counts: dict[str, int]
        counts, problems, staged = apart(_stage, files, folder, options)
        for cols in problems:
            if on_problems is not None:
                on_problems(cols)
        load(path, staged, folder / "spill")
        return counts
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _stage(files: list[str], folder: Path,
           options: Options | None) -> tuple[dict[str, int], list[Columns], dict[str, list[str]]]:
    """The rows of `files` staged in `folder` (in `apart`'s child): the counts, the first
    problem rows (all the command names) and each table's files."""
    problems: list[Columns] = []
    kept = 0

    def keep(cols: Columns) -> None:
        nonlocal kept
        if kept < NAMED_ON_STDERR:
            problems.append({k: v[:NAMED_ON_STDERR - kept] for k, v in cols.items()})
            kept += len(problems[-1]["source"])

    sink = StageSink(folder)
    counts = export_files(files, sink, options, on_problems=keep)
    return counts, problems, sink.files()


def load(path: Path, files: dict[str, list[str]], spill: Path) -> None:
    """Each table of `path` (created or replaced) made from its Parquet `files`, read in
    order: one thread and a bounded buffer pool, spilling into `spill`."""
    duckdb = need("duckdb", "fleet")
    con = duckdb.connect(config={"threads": 1, "memory_limit": MEMORY_LIMIT,
                                 "temp_directory": str(spill)})
    try:
        try:
            # Small row groups: DuckDB holds the open row group in memory until it is
            # full, and its default (122,880 rows) is a whole large capture's turns.
            con.execute(f"ATTACH {literal(str(path))} AS out "
                        f"(ROW_GROUP_SIZE {DUCKDB_ROW_GROUP})")
            con.execute("USE out")
        except duckdb.Error as exc:
            raise ExportError(f"{path}: cannot open as a DuckDB database ({exc})") from None
        for table in TABLES:
            select = table_select(table, [literal(f) for f in files.get(table, [])])
            try:
                con.execute(f"CREATE OR REPLACE TABLE {table} AS {select}")
            except RuntimeError as exc:  # DuckDB's word for a Ctrl-C it caught mid-query
                if str(exc) != "Query interrupted":
                    raise
                raise KeyboardInterrupt from None
    finally:
        con.close()
