"""An incremental cache of the fleet tables, so `traceview sql CAPTURES` reads each capture once.

The rows are Parquet files written by the export's own sink in small row groups, one
*segment* (a folder of one file per table) per refresh, each row tagged with its capture's
absolute path and its segment: building the cache never holds a whole table. A small
DuckDB catalog (`fleet.duckdb`) records per capture its (size, mtime, hash) and the segment
that holds its current rows. A re-run re-reads only the captures whose size or mtime
changed *and* whose content hash differs (a touched but unchanged file costs one hash).

A run that finds every capture fresh opens the catalog read-only, so runs at once share
it; one that must re-read opens it for writing, one at a time, and removes the segments
no capture uses any more (no reader can hold one then: DuckDB's lock keeps them out).
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import uuid
from pathlib import Path
from typing import Any

from traceview.analysis.options import Options
from traceview.export import need
from traceview.export.rows import capture_raw, columns
from traceview.export.run import shared_pricing
from traceview.export.schema import TABLES, arrow_schema
from traceview.export.sinks import ExportError, ParquetSink

CACHE_FILE = "fleet.duckdb"
SEGMENTS = "fleet.parts"  # beside the catalog: SEGMENTS/<segment>/<table>/rows.parquet
ROWS_FILE = "rows"
TAGS = ("capture_key", "segment")  # columns the cache adds to each table's schema
# Bumped when the tables' schema, the analysis options or the cache's layout change what
# a row holds or where it lives (2: rows in Parquet segments, not DuckDB tables).
CACHE_VERSION = "traceview.turns/1;2"
_SEGMENT_NAME = re.compile(r"[0-9a-f]{32}")


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "traceview"


def _same(st: os.stat_result, path: str) -> bool:
    try:
        other = os.stat(path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (other.st_dev, other.st_ino)


def file_hash(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "blake2b").hexdigest()[:32]


LOCK_WAIT_S = 120.0  # how long a run waits for another run holding the cache


def _take_turn(directory: Path) -> Any:
    """Hold the cache directory's lock file while the database is opened and its tables made:
    a run that found the file while another was still creating it would read a half-written
    header. None where the
    platform has no advisory locks (the DuckDB lock below still keeps writers apart)."""
    try:
        import fcntl
    except ImportError:
        return None
    fh = open(directory / (CACHE_FILE + ".lock"), "a+b")  # noqa: SIM115 (held for the run)
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fh
        except BlockingIOError:
            if time.monotonic() > deadline:
                fh.close()
                raise ExportError(f"{directory}: another traceview sql run holds the cache; "
                                  "try again when it ends, or give another --cache") from None
            time.sleep(0.05)


def _open(duckdb: Any, db: Path, read_only: bool) -> Any:
    """The catalog, waiting while another `sql` run holds it: DuckDB lets one process open a
    database file for writing (or any number for reading), so a run waits its turn instead
    of failing."""
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            return duckdb.connect(str(db), read_only=read_only)
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def cache_schemas() -> dict[str, Any]:
    """Each table's Arrow schema with the cache's tag columns appended."""
    pa = need("pyarrow", "fleet")
    return {t: arrow_schema(t).append(pa.field(TAGS[0], pa.string()))
            .append(pa.field(TAGS[1], pa.string())) for t in TABLES}


def open_cache(directory: Path, options: Options | None, files: list[str]) -> Cache:
    """The cache, up to date for `files`: read-only when every one is fresh, else opened
    for writing and refreshed."""
    if (directory / CACHE_FILE).is_file():
        cache = Cache(directory, options, inputs=files, read_only=True)
        if cache.fresh(files):
            return cache
        cache.con.close()
    cache = Cache(directory, options, inputs=files)
    cache.refresh(files)
    return cache


class Cache:
    def __init__(self, directory: Path, options: Options | None = None, *,
                 inputs: list[str] = (), read_only: bool = False) -> None:  # type: ignore[assignment]
        duckdb = need("duckdb", "fleet")
        directory.mkdir(parents=True, exist_ok=True)
        self.options = options or Options()
        self.version = CACHE_VERSION + f";{self.options!r}"
        self.segments = directory / SEGMENTS
        db = directory / CACHE_FILE
        if (db.is_symlink() or (db.exists() and not db.is_file())
                or self.segments.is_symlink()
                or (self.segments.exists() and not self.segments.is_dir())):
            raise ExportError(f"{db}: the cache must be a regular file (and {SEGMENTS} a "
                              "folder), not a symlink or device")
        mine = os.stat(db) if db.exists() else None
        if mine and any(_same(mine, p) for p in inputs):
            raise ExportError(f"{db}: the cache is one of the inputs; choose another --cache")
        turn = _take_turn(directory)  # held while the file is opened and its tables made
        try:
            self.con = _open(duckdb, db, read_only)
            if not read_only:
                self._create()
        finally:
            if turn is not None:
                turn.close()
        self.read: list[str] = []  # captures (re)analysed by the last refresh

    def _create(self) -> None:
        con = self.con
        con.execute("CREATE TABLE IF NOT EXISTS cache_meta (k VARCHAR PRIMARY KEY, v VARCHAR)")
        have = con.execute("SELECT v FROM cache_meta WHERE k = 'version'").fetchone()
        if have is None or have[0] != self.version:
            for table in TABLES:  # the rows as the cache's first layout held them
                con.execute(f"DROP TABLE IF EXISTS cache_{table}")
            con.execute("DROP TABLE IF EXISTS cache_captures")
            con.execute("INSERT OR REPLACE INTO cache_meta VALUES ('version', ?)", [self.version])
        con.execute("CREATE TABLE IF NOT EXISTS cache_captures (key VARCHAR PRIMARY KEY, "
                    "size BIGINT, mtime_ns BIGINT, hash VARCHAR, segment VARCHAR)")

    def _known(self) -> dict[str, tuple[int, int, str, str]]:
        """key -> (size, mtime_ns, hash, segment), for captures whose segment is whole."""
        rows = self.con.execute("SELECT key, size, mtime_ns, hash, segment "
                                "FROM cache_captures").fetchall()
        whole = {s: self._whole(s) for s in {r[4] for r in rows}}
        return {k: (s, m, h, seg) for k, s, m, h, seg in rows if whole[seg]}

    def _whole(self, segment: str) -> bool:
        return all((self.segments / segment / t / f"{ROWS_FILE}.parquet").is_file()
                   for t in TABLES)

    def fresh(self, files: list[str]) -> bool:
        """Whether the cache holds the current rows of every one of `files` (read-only)."""
        try:
            have = self.con.execute("SELECT v FROM cache_meta WHERE k = 'version'").fetchone()
            known = self._known() if have and have[0] == self.version else {}
        except need("duckdb", "fleet").CatalogException:  # a catalog still being made
            return False
        for path in files:
            old = known.get(os.path.abspath(path))
            try:
                st = os.stat(path)
            except OSError:
                return False
            if old is None or (old[0], old[1]) != (st.st_size, st.st_mtime_ns):
                return False
        return True

    def refresh(self, files: list[str]) -> list[str]:
        """Bring the cache up to date for `files`; returns their keys (absolute paths)."""
        keys = []
        self.read = []
        known = self._known()
        todo = []
        for path in files:
            key = os.path.abspath(path)
            keys.append(key)
            try:
                st = os.stat(path)
            except OSError:
                st = None
            size, mtime = (st.st_size, st.st_mtime_ns) if st else (-1, -1)
            old = known.get(key)
            if old and old[0] == size and old[1] == mtime:
                continue
            digest = file_hash(path) if st else ""
            if old and old[0] == size and old[2] == digest:
                self.con.execute("UPDATE cache_captures SET mtime_ns = ? WHERE key = ?",
                                 [mtime, key])
                continue
            todo.append((path, key, size, mtime, digest))
        if todo:
            self._load(todo)
        self._collect()
        return keys

    def _load(self, todo: list[tuple[str, str, int, int, str]]) -> None:
        """Write the rows of `todo`'s captures as a new segment, then name it theirs."""
        segment = uuid.uuid4().hex
        self.segments.mkdir(exist_ok=True)
        (self.segments / segment).mkdir()  # new: nothing in it is written over
        sink = ParquetSink(self.segments / segment, partition_by=(), prefix=ROWS_FILE,
                           schemas=cache_schemas())
        pricing = shared_pricing(self.options) if len(todo) > 1 else None
        try:
            for path, key, *_ in todo:
                for table, raw in capture_raw(path, self.options, pricing=pricing):
                    cols = columns(table, raw)
                    n = len(next(iter(cols.values())))
                    cols[TAGS[0]], cols[TAGS[1]] = [key] * n, [segment] * n
                    sink.add_columns(table, cols)
        finally:
            sink.close()
        self.con.executemany("INSERT OR REPLACE INTO cache_captures VALUES (?, ?, ?, ?, ?)",
                             [[key, size, mtime, digest, segment]
                              for _, key, size, mtime, digest in todo])
        self.read = [t[0] for t in todo]

    def _collect(self) -> None:
        """Remove the segments no capture names (superseded, or left by a run that
        stopped): only the files the cache writes, so nothing else in the folder goes."""
        if not self.segments.is_dir():
            return
        live = {s for (s,) in self.con.execute("SELECT DISTINCT segment FROM cache_captures")
                .fetchall()}
        for seg in self.segments.iterdir():
            if seg.name in live or not _SEGMENT_NAME.fullmatch(seg.name) or seg.is_symlink():
                continue
            for table in TABLES:
                (seg / table / f"{ROWS_FILE}.parquet").unlink(missing_ok=True)
                _rmdir(seg / table)
            _rmdir(seg)

    def views(self, keys: list[str]) -> None:
        """`turns`, `conversations`, … as views of the rows of `keys` only. The segments
        reach DuckDB as Arrow datasets read by pyarrow: the query's connection opens no
        file of its own."""
        pa = need("pyarrow", "fleet")
        known = self._known()
        segment = [known[k][3] for k in keys]
        wanted = pa.table({"key": pa.array(keys, pa.string()),  # noqa: F841 (read by name)
                           "segment": pa.array(segment, pa.string())})
        self.con.execute("CREATE OR REPLACE TEMP TABLE cache_wanted AS SELECT * FROM wanted")
        files = {t: [str(self.segments / s / t / f"{ROWS_FILE}.parquet")
                     for s in sorted(set(segment))] for t in TABLES}
        register(self.con, files, cache_schemas(),
                 where=f"({TAGS[0]}, {TAGS[1]}) IN (SELECT key, segment FROM cache_wanted)")


def register(con: Any, files: dict[str, list[str]], schemas: dict[str, Any],
             where: str = "true") -> None:
    """Each table's Parquet `files` as the temporary view of its name (the documented
    columns, rows where `where` holds), read through pyarrow so DuckDB itself may be
    denied every file."""
    dataset = need("pyarrow.dataset", "fleet")
    for table, paths in files.items():
        source = (dataset.dataset(paths, schema=schemas[table], format="parquet") if paths
                  else schemas[table].empty_table())
        con.register(f"{table}_files", source)
        cols = ", ".join(f'"{f.name}"' for f in arrow_schema(table))
        con.execute(f"CREATE OR REPLACE TEMP VIEW {table} AS SELECT {cols} "
                    f"FROM {table}_files WHERE {where}")


def _rmdir(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:  # not empty (something not the cache's) or already gone
        pass
