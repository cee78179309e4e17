"""An incremental cache of the fleet tables, so `traceview sql CAPTURES` reads each capture once.

One DuckDB file holds every capture's rows, tagged with the capture's absolute path, and
a manifest of (size, mtime, hash) per capture. A re-run over a directory re-reads only
the captures whose size or mtime changed *and* whose content hash differs (a touched but
unchanged file costs one hash, not an analysis).
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

from traceview.analysis.options import Options
from traceview.export import need
from traceview.export.rows import capture_raw, columns
from traceview.export.schema import TABLES, arrow_schema, column_names
from traceview.export.sinks import ExportError, arrow_batch

CACHE_FILE = "fleet.duckdb"
# Bumped when the tables' schema or the analysis options change what a row holds.
CACHE_VERSION = "traceview.turns/1;1"


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


def _open(duckdb: Any, db: Path) -> Any:
    """The cache database, waiting while another `sql` run holds it: DuckDB lets one process
    open a database file for writing, so a second run waits its turn instead of failing."""
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            return duckdb.connect(str(db))
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class Cache:
    def __init__(self, directory: Path, options: Options | None = None, *,
                 inputs: list[str] = ()) -> None:  # type: ignore[assignment]
        duckdb = need("duckdb", "fleet")
        self.pa = need("pyarrow", "fleet")
        directory.mkdir(parents=True, exist_ok=True)
        self.options = options or Options()
        db = directory / CACHE_FILE
        if db.is_symlink() or (db.exists() and not db.is_file()):
            raise ExportError(f"{db}: the cache must be a regular file, not a symlink or device")
        mine = os.stat(db) if db.exists() else None
        if mine and any(_same(mine, p) for p in inputs):
            raise ExportError(f"{db}: the cache is one of the inputs; choose another --cache")
        turn = _take_turn(directory)  # held while the file is opened and its tables made
        try:
            self.con = _open(duckdb, db)
            self._create()
        finally:
            if turn is not None:
                turn.close()
        self.read: list[str] = []  # captures (re)analysed by the last refresh

    def _create(self) -> None:
        con = self.con
        con.execute("CREATE TABLE IF NOT EXISTS cache_meta (k VARCHAR PRIMARY KEY, v VARCHAR)")
        have = con.execute("SELECT v FROM cache_meta WHERE k = 'version'").fetchone()
        version = CACHE_VERSION + f";{self.options!r}"
        if have is None or have[0] != version:
            for table in TABLES:
                con.execute(f"DROP TABLE IF EXISTS cache_{table}")
            con.execute("DROP TABLE IF EXISTS cache_captures")
            con.execute("INSERT OR REPLACE INTO cache_meta VALUES ('version', ?)", [version])
        for table in TABLES:
            s = arrow_schema(table)
            empty = s.append(self.pa.field("capture_key", self.pa.string())).empty_table()  # noqa: F841
            con.execute(f"CREATE TABLE IF NOT EXISTS cache_{table} AS SELECT * FROM empty")
        con.execute("CREATE TABLE IF NOT EXISTS cache_captures (key VARCHAR PRIMARY KEY, "
                    "size BIGINT, mtime_ns BIGINT, hash VARCHAR)")

    def refresh(self, files: list[str]) -> list[str]:
        """Bring the cache up to date for `files`; returns their keys (absolute paths)."""
        keys = []
        self.read = []
        known = {k: (s, m, h) for k, s, m, h in
                 self.con.execute("SELECT key, size, mtime_ns, hash FROM cache_captures")
                 .fetchall()}
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
            self._load(path, key, size, mtime, digest)
        return keys

    def _load(self, path: str, key: str, size: int, mtime: int, digest: str) -> None:
        con = self.con
        con.execute("BEGIN")
        try:
            for table in TABLES:
                con.execute(f"DELETE FROM cache_{table} WHERE capture_key = ?", [key])
            for table, cols in capture_raw(path, self.options):
                self._insert(table, columns(table, cols), key)
            con.execute("INSERT OR REPLACE INTO cache_captures VALUES (?, ?, ?, ?)",
                        [key, size, mtime, digest])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        self.read.append(path)

    def _insert(self, table: str, cols: dict[str, list[Any]], key: str) -> None:
        """A batch of one capture's rows (as columns), tagged with the capture's key."""
        pa = self.pa
        rows = arrow_batch(pa, arrow_schema(table), cols)
        batch = pa.Table.from_batches([rows]).append_column(  # noqa: F841 (read by name)
            "capture_key", pa.array([key] * rows.num_rows, pa.string()))
        self.con.execute(f"INSERT INTO cache_{table} SELECT * FROM batch")

    def views(self, keys: list[str]) -> None:
        """`turns`, `conversations`, `problems` as views of the rows of `keys` only."""
        wanted_keys = self.pa.table({"key": self.pa.array(keys, self.pa.string())})  # noqa: F841
        self.con.execute("CREATE OR REPLACE TEMP TABLE wanted AS SELECT key FROM wanted_keys")
        for table in TABLES:
            cols = ", ".join(f'"{c}"' for c in column_names(table))
            self.con.execute(f"CREATE OR REPLACE TEMP VIEW {table} AS SELECT {cols} FROM "
                             f"cache_{table} WHERE capture_key IN (SELECT key FROM wanted)")
