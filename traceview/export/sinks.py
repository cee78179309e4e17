"""Where rows go: Parquet (partitioned), CSV files (a DuckDB database: export/duck.py).

Each sink takes rows one at a time, or a batch of rows as columns (`add_columns`, what the
export feeds it), and writes them in batches (a Parquet row group, a CSV block):
memory holds one batch per open partition, never a whole table.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from traceview.export import need, present
from traceview.export.schema import TABLES, arrow_schema, column_names

BATCH_ROWS = 2048  # rows a row sink (CSV, OTLP) holds as dicts before writing them
ROW_GROUP_ROWS = 8192  # rows per Parquet row group (held as Arrow columns until written)
ROW_GROUP_BYTES = 4 << 20  # or fewer, when rows are large (conversations' accounts)
MANIFEST = "_traceview.json"
PARTITION_KEYS = ("date", "model")


class ExportError(Exception):
    """An output that cannot be written; the message says which and why."""


class Sink:
    """Buffers rows per (table, partition) and hands full batches to `_write`."""

    batch_rows = BATCH_ROWS

    def __init__(self) -> None:
        self._buf: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.counts = {t: 0 for t in TABLES}

    def partition(self, table: str, row: dict[str, Any]) -> str:
        return ""

    def add(self, table: str, row: dict[str, Any]) -> None:
        key = (table, self.partition(table, row))
        buf = self._buf.setdefault(key, [])
        buf.append(row)
        self.counts[table] += 1
        if len(buf) >= self.batch_rows:
            self._write(key[0], key[1], buf)
            self._buf[key] = []

    def add_columns(self, table: str, cols: dict[str, list[Any]]) -> None:
        """A batch of rows given as columns (rows.columns); row sinks take them
        one row at a time, the Parquet sink as they are."""
        names = list(cols)
        for values in zip(*cols.values(), strict=True):
            self.add(table, dict(zip(names, values, strict=True)))

    def close(self) -> None:
        for (table, part), rows in self._buf.items():
            if rows:
                self._write(table, part, rows)
        self._buf.clear()
        self._close()

    def _write(self, table: str, part: str, rows: list[dict[str, Any]]) -> None:
        raise NotImplementedError

    def _close(self) -> None:
        pass


def check_dir(out: Path) -> None:
    """ExportError unless ``out`` may take an export: new, empty, or a previous export."""
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise ExportError(f"{out}: directory is not empty and holds no traceview export; "
                          "choose a new or empty directory")


def prepare_dir(out: Path) -> None:
    """An output directory: new, empty, or a previous export (whose tables are replaced)."""
    check_dir(out)
    if out.is_dir() and any(out.iterdir()):
        for table in TABLES:
            shutil.rmtree(out / table, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)


def write_manifest(out: Path, partition_by: tuple[str, ...], sources: int) -> None:
    doc = {"schemas": {t: name for t, (name, _) in TABLES.items()},
           "partition_by": list(partition_by), "captures": sources,
           "layout": "TABLE/[date=D/[model=M/]]PREFIX-N.parquet"}
    (out / MANIFEST).write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))


def _pool(pa: Any) -> Any:
    """The allocator the export's Arrow data lives in: the system's, which returns what a
    written row group freed (pyarrow's default keeps it for reuse, for the whole run)."""
    return pa.system_memory_pool()


def arrow_batch(pa: Any, schema: Any, cols: dict[str, list[Any]]) -> Any:
    """Columns (rows.columns) as one Arrow record batch of `schema`, a column at a time."""
    pool = _pool(pa)
    return pa.RecordBatch.from_arrays(
        [pa.array(cols[f.name], type=f.type, memory_pool=pool) for f in schema], schema=schema)


class ParquetSink(Sink):
    """`DIR/turns/date=…[/model=…]/PREFIX-N.parquet`, `DIR/conversations/…`, `DIR/problems/…`.

    Partition values are kept inside the files too, so a file read alone has every
    column of the documented schema. `prefix` names this writer's files: a cluster's
    workers write side by side into the same layout.
    """

    def __init__(self, out: Path | str, *, partition_by: tuple[str, ...] = ("date",),
                 prefix: str = "part-0", tags: tuple[str, ...] = (),
                 write_empty: bool = True) -> None:
        super().__init__()
        present("pyarrow", "fleet")  # named now when missing; loaded when a row is written
        self.out = Path(out)
        bad = [k for k in partition_by if k not in PARTITION_KEYS]
        if bad:
            raise ExportError(f"cannot partition by {', '.join(bad)} (choose from date, model)")
        self.partition_by = partition_by
        self.prefix = prefix
        # `tags`: string columns of the writer's own after the table's (the sql cache's).
        self.tags = tags
        self._schemas: dict[str, Any] = {}
        # Whether a table with no row gets a file at close (a part of a layout does not).
        self.write_empty = write_empty
        # Empty tables' files, made by a process that loaded pyarrow (`add_parts`).
        self._empty: dict[str, bytes] = {}
        self.parts = 0  # files of this layout written by other processes, numbered
        self._writers: dict[tuple[str, str], Any] = {}
        # Record batches waiting for a full row group: Arrow, never Python objects.
        self._pending: dict[tuple[str, str], list[Any]] = {}
        self._npending: dict[tuple[str, str], tuple[int, int]] = {}  # (rows, bytes)
        self._part_names: dict[tuple[Any, ...], str] = {}

    @property
    def pa(self) -> Any:
        """pyarrow, imported when the first row is written here: an export whose parts are
        written by worker processes never loads it in this one (export/parts.py)."""
        return need("pyarrow", "fleet")

    @property
    def pq(self) -> Any:
        return need("pyarrow.parquet", "fleet")

    def schema(self, table: str) -> Any:
        s = self._schemas.get(table)
        if s is None:
            s = arrow_schema(table)
            for tag in self.tags:
                s = s.append(self.pa.field(tag, self.pa.string()))
            s = self._schemas[table] = s
        return s

    def add_parts(self, counts: dict[str, int], empty: dict[str, bytes]) -> None:
        """Rows written into this sink's layout by other processes (export/parts.py):
        counted as this sink's, and `empty` (each table's file with no row, made where
        pyarrow is loaded) written at close for a table that got no row at all."""
        for table, n in counts.items():
            self.counts[table] += n
        self._empty.update(empty)

    def partition(self, table: str, row: dict[str, Any]) -> str:
        if table != "turns":
            return ""
        parts = []
        for key in self.partition_by:
            value = row.get(key) or "unknown"
            parts.append(f"{key}={quote(str(value), safe='')}")
        return "/".join(parts)

    def add_columns(self, table: str, cols: dict[str, list[Any]]) -> None:
        """A batch of rows given as columns, made Arrow at once, a record batch per
        partition: no row dict per row, and no Python objects held past the call."""
        n = len(next(iter(cols.values()))) if cols else 0
        if not n:
            return
        self.counts[table] += n
        if table != "turns" or not self.partition_by:
            self._add_batch(table, "", arrow_batch(self.pa, self.schema(table), cols))
            return
        parts: dict[str, list[int]] = {}
        for i, values in enumerate(zip(*(cols[k] for k in self.partition_by), strict=True)):
            try:
                part = self._part_names.get(values)
            except TypeError:  # a value the capture made a list: named, never memoised
                part = self.partition(table, dict(zip(self.partition_by, values, strict=True)))
            if part is None:
                part = self.partition(table, dict(zip(self.partition_by, values, strict=True)))
                if len(self._part_names) < 4096:
                    self._part_names[values] = part
            parts.setdefault(part, []).append(i)
        for part, idx in parts.items():
            some = cols if len(parts) == 1 else {
                name: [values[i] for i in idx] for name, values in cols.items()}
            self._add_batch(table, part, arrow_batch(self.pa, self.schema(table), some))

    def _add_batch(self, table: str, part: str, batch: Any) -> None:
        key = (table, part)
        self._pending.setdefault(key, []).append(batch)
        # Each batch's size is taken once (`nbytes` walks every buffer of its arrays).
        rows, size = self._npending.get(key, (0, 0))
        rows, size = rows + batch.num_rows, size + batch.nbytes
        self._npending[key] = (rows, size)
        if rows >= ROW_GROUP_ROWS or size >= ROW_GROUP_BYTES:
            self._flush(table, part)

    def _writer(self, table: str, part: str) -> Any:
        w = self._writers.get((table, part))
        if w is None:
            d = self.out / table / part if part else self.out / table
            d.mkdir(parents=True, exist_ok=True)
            w = self.pq.ParquetWriter(d / f"{self.prefix}.parquet", self.schema(table),
                                      compression="snappy", memory_pool=_pool(self.pa))
            self._writers[(table, part)] = w
        return w

    def _write(self, table: str, part: str, rows: list[dict[str, Any]]) -> None:
        self._add_batch(table, part, self.pa.RecordBatch.from_pylist(
            rows, schema=self.schema(table)))

    def _flush(self, table: str, part: str) -> None:
        pending = self._pending.pop((table, part), [])
        self._npending.pop((table, part), None)
        if pending:
            self._writer(table, part).write_table(self.pa.Table.from_batches(pending))

    def _close(self) -> None:
        for table, part in list(self._pending):
            self._flush(table, part)
        for table in TABLES:
            if (not self.write_empty or self.counts[table]
                    or any(t == table for t, _ in self._writers)):
                continue
            # An empty table still has a file, so its schema reads back.
            part = self.partition(table, {}) if table == "turns" else ""
            if table in self._empty:
                d = self.out / table / part if part else self.out / table
                d.mkdir(parents=True, exist_ok=True)
                (d / f"{self.prefix}.parquet").write_bytes(self._empty[table])
            else:
                self._writer(table, part)
        for w in self._writers.values():
            w.close()
        self._writers.clear()

    def empty_files(self) -> dict[str, bytes]:
        """Each table's Parquet file with no row (what `_close` writes for an empty
        table), as bytes: for `add_parts` in a process that has not loaded pyarrow."""
        out = {}
        for table in TABLES:
            buf = self.pa.BufferOutputStream()
            self.pq.ParquetWriter(buf, self.schema(table), compression="snappy").close()
            out[table] = buf.getvalue().to_pybytes()
        return out


CSV_FILES = tuple(f"{table}.csv" for table in TABLES)
FORMULA_LEAD = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> Any:
    """A cell as CSV text, neutralised: a spreadsheet runs a cell that begins with
    ``= + - @`` (or tab/CR) as a formula, so such text gets a leading apostrophe. Numbers
    stay numbers (a negative count is not a formula)."""
    if value is None:
        return ""
    if isinstance(value, list | dict):
        value = json.dumps(value, ensure_ascii=False)
    if isinstance(value, str) and value.startswith(FORMULA_LEAD):
        return "'" + value
    return value


class CsvSink(Sink):
    """`DIR/turns.csv`, `DIR/conversations.csv`, `DIR/problems.csv`; lists and structs as
    JSON text, unknown values as empty cells, times as ISO 8601 UTC. Each file is written
    under a temporary name and renamed when the export ends, so a failed export leaves the
    folder as it was."""

    def __init__(self, out: Path | str) -> None:
        super().__init__()
        self.out = Path(out)
        if self.out.exists() and not self.out.is_dir():
            raise ExportError(f"{self.out}: exists and is not a directory")
        self.out.mkdir(parents=True, exist_ok=True)
        self._files = {}
        self._writers = {}
        self._tmp = {t: self.out / f".{t}.csv.tv-{os.getpid()}.tmp" for t in TABLES}
        for table in TABLES:
            f = open(self._tmp[table], "x", newline="", encoding="utf-8")  # noqa: SIM115
            self._files[table] = f
            self._writers[table] = csv.writer(f)
            self._writers[table].writerow(column_names(table))

    def _write(self, table: str, part: str, rows: list[dict[str, Any]]) -> None:
        cols = column_names(table)
        w = self._writers[table]
        for row in rows:
            cells = []
            for c in cols:
                v = row.get(c)
                if c in ("ts", "first_ts") and v is not None:
                    v = _iso(v)
                cells.append(csv_safe(v))
            w.writerow(cells)

    def _close(self) -> None:
        for f in self._files.values():
            f.close()
        for table, tmp in self._tmp.items():
            os.replace(tmp, self.out / f"{table}.csv")


def _iso(ms: float) -> str | None:
    """A time in ms as ISO 8601 UTC; None (an empty cell) when no calendar holds it."""
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, ValueError, OSError):  # past year 9999: as the report reads it
        return None
