"""`traceview sql`: DuckDB over an export, a DuckDB file, or captures (via the cache).

The tables are always `turns`, `conversations`, `problems` and `hosted_calls` with the
documented schema, whichever of the three the rows come from. Results pass the redactor
and the sanitiser before they are printed, like every other output.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import uuid
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from traceview.analysis.options import Options
from traceview.capture.sources import expand_paths
from traceview.export import need
from traceview.export.cache import QUERIES, TAGS, CacheLock, open_cache
from traceview.export.schema import TABLES
from traceview.export.sinks import MANIFEST, ExportError, csv_safe
from traceview.export.views import copies_dir, create_views, remove_copies
from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible


class Tables:
    """A DuckDB connection where `turns`, `conversations`, … name the rows, and what it
    holds until `close`: the cache's lock and the query's own copies of the files."""

    def __init__(self, con: Any, lock: CacheLock | None = None,
                 copies: Path | None = None) -> None:
        self.con = con
        self.lock = lock
        self.copies = copies

    def close(self) -> None:
        try:
            self.con.close()
        finally:
            if self.copies is not None:
                remove_copies(self.copies.parent, only=self.copies)
            if self.lock is not None:
                self.lock.release()


def connect(paths: list[str], cache_dir: Path, options: Options | None = None, *,
            unsafe: bool = False) -> tuple[Tables, str]:
    """The tables of `paths`, and a line saying where they came from. DuckDB is opened
    once the rows are written (a capture's cache refreshed), and, unless `unsafe`, the
    connection is locked down before the user's query runs (see `_locked`)."""
    kind = source_kind(paths)
    if kind == "export":
        root = Path(paths[0])
        cache_dir.mkdir(parents=True, exist_ok=True)
        lock = CacheLock(cache_dir)  # held while the query's copies exist
        lock.take(exclusive=False)
        found = {t: sorted(str(p) for p in (root / t).glob("**/*.parquet")) for t in TABLES}
        return _over(lock, cache_dir, found, [], unsafe), f"export {paths[0]}"
    if kind == "database":
        duckdb = need("duckdb", "fleet")
        if not Path(paths[0]).is_file():
            raise ExportError(f"{paths[0]}: no such DuckDB file")
        con = duckdb.connect(paths[0], read_only=True)
        if not unsafe:
            _refuse_views(con, paths[0])
        return Tables(_locked(con, unsafe)), f"database {paths[0]}"
    for p in paths:
        if not Path(p).exists():
            raise ExportError(f"{p}: no such file or directory")
    files = expand_paths(paths)
    cache = open_cache(cache_dir, options, files)
    try:
        found, wanted = cache.files([os.path.abspath(f) for f in files])
    except BaseException:
        cache.close()
        raise
    return _over(cache.lock, cache_dir, found, wanted, unsafe), (
        f"{len(files)} capture(s), {len(cache.read)} read, "
        f"{len(files) - len(cache.read)} from cache {cache_dir}")


def _over(lock: CacheLock, cache_dir: Path, files: dict[str, list[str]],
          wanted: list[tuple[str, str]], unsafe: bool) -> Tables:
    """A new connection with the tables as views over copies of `files` (of the cache's
    rows, those of the (key, segment) pairs `wanted`); the lock is released by `close`."""
    tables = Tables(None, lock)
    try:
        tables.con = need("duckdb", "fleet").connect()
        tables.copies = copies_dir(cache_dir / QUERIES)
        where = "true"
        if wanted:
            tables.con.execute("CREATE TEMP TABLE cache_wanted (key VARCHAR, segment VARCHAR)")
            tables.con.executemany("INSERT INTO cache_wanted VALUES (?, ?)", wanted)
            where = f"({TAGS[0]}, {TAGS[1]}) IN (SELECT key, segment FROM cache_wanted)"
        create_views(tables.con, files, tables.copies, where)
        _locked(tables.con, unsafe)
    except BaseException:
        if tables.con is None:
            lock.release()
        else:
            tables.close()
        raise
    return tables


def source_kind(paths: list[str]) -> str:
    """What `paths` are to `connect`: an "export" directory, a DuckDB "database", or
    "captures" (read, or found in the cache): only these were read as captures this run,
    so only their problems are the run's damaged lines."""
    if len(paths) == 1 and (Path(paths[0]) / MANIFEST).is_file():
        return "export"
    if len(paths) == 1 and paths[0].endswith(".duckdb"):
        return "database"
    return "captures"


def _refuse_views(con: Any, path: str) -> None:
    """A database given as a source is data, not code: its `turns` (or other table) defined
    as a view could read any file the user can when queried."""
    names = ", ".join(f"'{t}'" for t in TABLES)
    views = con.execute("SELECT table_name FROM information_schema.tables WHERE table_type = "
                        f"'VIEW' AND table_name IN ({names})").fetchall()
    if views:
        con.close()
        raise ExportError(f"{path}: '{views[0][0]}' is a view, not a table; a database's own "
                          "views are not run unless --unsafe")
    # Its macros too: one named like a built-in (`upper`, `round`) would answer in its place.
    macros = con.execute("SELECT function_name FROM duckdb_functions() WHERE NOT internal "
                         "AND function_type IN ('macro', 'table_macro')").fetchall()
    if macros:
        con.close()
        raise ExportError(f"{path}: defines the macro '{macros[0][0]}'; a database's own "
                          "macros are not run unless --unsafe")


def _locked(con: Any, unsafe: bool) -> Any:
    """The connection with no way out: no file read or written by the query (no read_csv,
    COPY … TO, ATTACH: the tables' own files are read by pyarrow), no extension installed or
    loaded on demand, and the settings locked so the query cannot turn them back on.
    `--unsafe` skips this."""
    if unsafe:
        return con
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def query(tables: Tables, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The columns and rows of `sql`, which must be one statement: DuckDB runs an empty
    query (blank, `;`, only comments) as nothing and several as only the last one's
    result, so both are refused rather than answered with a traceback or a silent part."""
    count = len(tables.con.extract_statements(sql))
    if count == 0:
        raise ExportError("no SQL statement given")
    if count > 1:
        raise ExportError(f"{count} SQL statements given; traceview sql runs one query at a "
                          "time (combine them with WITH … or run one command per statement)")
    cur = tables.con.execute(sql)
    cols = [d[0] for d in cur.description] if cur.description else []
    return cols, cur.fetchall() if cols else []


def _plain(v: Any) -> Any:
    """A result value as JSON-shaped data: dates and times as ISO text, decimals as floats,
    an interval and a UUID as their text (a type `json` cannot write was a traceback)."""
    if isinstance(v, datetime | date | time):
        return v.isoformat()
    if isinstance(v, timedelta | uuid.UUID):
        return str(v)
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, bytes):
        return v.hex()
    return v


def _finite(v: Any) -> Any:
    """A value for strict JSON: NaN and ±Infinity (a division by zero, a `'nan'::DOUBLE`)
    become null; written as the bare NaN / Infinity tokens, jq and other parsers refused
    the whole document."""
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, list):
        return [_finite(x) for x in v]
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    return v


def _safe(v: Any) -> Any:
    if isinstance(v, str):
        return visible(redact_text(v))
    if isinstance(v, list):
        return [_safe(x) for x in v]
    if isinstance(v, dict):
        return {visible(k): _safe(x) for k, x in v.items()}
    return v


def cell(v: Any) -> str:
    """One value as table text: null as empty, floats without noise, nested as JSON."""
    v = _safe(_plain(v))
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}" if abs(v) < 1e15 else str(v)
    if isinstance(v, list | dict):
        return json.dumps(v, ensure_ascii=False)
    return str(v)


def _distinct(cols: list[str]) -> list[str]:
    """Column names as distinct JSON keys, a repeat suffixed as DuckDB names one in a new
    table (`source`, `source_1`): a join's two `source` columns were one
    key, the first column's values silently dropped."""
    taken = set(cols)
    out: list[str] = []
    for c in cols:
        name, n = c, 0
        while name in out or (n and name in taken):
            n += 1
            name = f"{c}_{n}"
        out.append(name)
    return out


def render(cols: list[str], rows: list[tuple[Any, ...]], fmt: str) -> str:
    cols = [visible(c) for c in cols]
    if fmt == "json":
        keys = _distinct(cols)
        data = [{c: _finite(_safe(_plain(v))) for c, v in zip(keys, r, strict=True)}
                for r in rows]
        return json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow([csv_safe(c) for c in cols])
        w.writerows([cell(v) if _is_number(v) else csv_safe(cell(v)) for v in r] for r in rows)
        return buf.getvalue()
    text = [[cell(v) for v in r] for r in rows]
    if fmt == "markdown":
        esc = [[t.replace("|", "\\|") for t in r] for r in [cols, *text]]
        lines = ["| " + " | ".join(esc[0]) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join(r) + " |" for r in esc[1:]]
        return "\n".join(lines) + "\n"
    widths = [max([len(c)] + [len(r[i]) for r in text]) for i, c in enumerate(cols)]
    numeric = [all(_is_number(r[i]) for r in rows) and bool(rows) for i in range(len(cols))]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if n else v.ljust(w)
                         for v, w, n in zip(values, widths, numeric, strict=True)).rstrip()

    out = [line(cols), line(["─" * w for w in widths])] + [line(r) for r in text]
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out) + "\n"


def _is_number(v: Any) -> bool:
    return v is None or (isinstance(v, int | float | Decimal) and not isinstance(v, bool))
