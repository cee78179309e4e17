"""The tables as DuckDB views over this query's own copies of their Parquet files.

DuckDB reads the Parquet files itself: neither pyarrow nor its memory is loaded for a
query. A locked connection (`sql._locked`) may open no file but those named in its
`allowed_paths`, and a path it may read it may also write (`COPY … TO`), so the files it
is allowed are copies made for the query, in a folder of its own removed when it ends:
a query can change nothing but them, and can read nothing but the tables.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from traceview.export.schema import TABLES, Type

_DUCKDB = {"string": "VARCHAR", "json": "VARCHAR", "int64": "BIGINT", "float64": "DOUBLE",
           "bool": "BOOLEAN", "timestamp": "TIMESTAMP_MS"}


def copies_dir(root: Path) -> Path:
    """A new folder under `root` for one query's copies (only this user may read it)."""
    root.mkdir(exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="q-", dir=root))


def remove_copies(root: Path, only: Path | None = None) -> None:
    """Remove one query's copies (`only`), or every query's under `root` (a run holding
    the cache exclusively: no query is running then). Only the files a query copies."""
    folders = [only] if only is not None else (
        [p for p in root.iterdir() if p.name.startswith("q-") and not p.is_symlink()]
        if root.is_dir() else [])
    for folder in folders:
        for part in folder.glob("*.parquet"):
            part.unlink(missing_ok=True)
        try:
            folder.rmdir()
        except OSError:  # not empty (not a query's) or already gone
            pass


def create_views(con: Any, files: dict[str, list[str]], into: Path,
                 where: str = "true") -> None:
    """Each table's `files` copied into `into`, and the temporary view of the table's
    name over the copies: the documented columns, rows where `where` holds. The copies
    are the only paths the connection may open once locked."""
    allowed = []
    for table, paths in files.items():
        local = []
        for i, path in enumerate(paths):
            copy = into / f"{table}-{i:05d}.parquet"
            shutil.copyfile(path, copy)
            local.append(literal(str(copy)))
        allowed += local
        con.execute(f"CREATE OR REPLACE TEMP VIEW {table} AS "
                    f"{table_select(table, local, where)}")
    con.execute(f"SET allowed_paths = [{', '.join(allowed)}]")


def table_select(table: str, files: list[str], where: str = "true") -> str:
    """The SELECT of `table`'s documented columns from its Parquet `files` (SQL string
    literals), read in the order given, rows where `where` holds; with no file, no row
    but the columns' types. The
    one reading of the tables' files: `sql`'s views and the DuckDB export's tables."""
    if not files:
        typed = ", ".join(f'CAST(NULL AS {_type(t)}) AS "{n}"' for n, t, _ in TABLES[table][1])
        return f"SELECT {typed} WHERE false"
    # Parquet's millisecond times read back as DuckDB's (microsecond) TIMESTAMP: cast
    # to the schema's type, as an Arrow table of the schema gave them.
    cols = ", ".join(f'CAST("{n}" AS {_type(t)}) AS "{n}"' if t == "timestamp" else f'"{n}"'
                     for n, t, _ in TABLES[table][1])
    return f"SELECT {cols} FROM read_parquet([{', '.join(files)}]) WHERE {where}"


def literal(text: str) -> str:
    """`text` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _type(t: Type) -> str:
    """A schema type (export/schema.py) as DuckDB writes it."""
    if isinstance(t, str):
        return _DUCKDB[t]
    if t[0] == "list":
        return f"{_type(t[1])}[]"
    return "STRUCT(" + ", ".join(f'"{n}" {_type(s)}' for n, s in t[1]) + ")"
