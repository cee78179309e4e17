"""An incremental cache of the fleet tables, so `traceview sql CAPTURES` reads each capture once.

The rows are Parquet files written as an export writes them (a large capture's by worker
processes, export/parts.py), one *segment* (a folder of files per table) per refresh, each
row tagged with its capture's absolute path and its segment: building the cache never
holds a whole table. A small JSON catalog (`fleet.json`) records per capture its (size,
mtime, hash) and the segment that holds its current rows. A re-run re-reads only the
captures whose size or mtime changed *and* whose content hash differs (a touched but
unchanged file costs one hash). Neither DuckDB nor pyarrow is loaded to keep the catalog:
DuckDB is opened for the query, once the cache is written.

Runs share the cache through a lock file: a run that finds every capture fresh holds it
shared until its query ends, so runs at once read together; one that must re-read holds
it exclusively, one at a time, and removes the segments no capture uses any more (no
reader can be using one then).
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import uuid
from pathlib import Path
from typing import Any

import orjson

from traceview.analysis.options import Options
from traceview.analysis.pricing import BUNDLED
from traceview.export import present
from traceview.export.clean import columns
from traceview.export.parts import tagged, write_parts
from traceview.export.rows import capture_raw
from traceview.export.run import shared_pricing
from traceview.export.schema import TABLES
from traceview.export.sinks import ExportError, ParquetSink

CATALOG = "fleet.json"
LOCK = "fleet.lock"
SEGMENTS = "fleet.parts"  # beside the catalog: SEGMENTS/<segment>/<table>/rows*.parquet
QUERIES = "fleet.query"  # each query's own copies of the files it reads (export/views.py)
ROWS_FILE = "rows"
TAGS = ("capture_key", "segment")  # columns the cache adds to each table's schema
# Bumped when the tables' schema, the analysis options or the cache's layout change what
# a row holds or where it lives (3: a JSON catalog, segments written in parts).
CACHE_VERSION = "traceview.turns/1;3"
MAX_CATALOG_BYTES = 64 << 20  # a catalog is ~200 bytes a capture
LOCK_WAIT_S = 120.0  # how long a run waits for another run holding the cache
_SEGMENT_NAME = re.compile(r"[0-9a-f]{32}")

Known = dict[str, tuple[int, int, str, str]]  # key -> (size, mtime_ns, hash, segment)


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


def pricing_key(path: str | None) -> str:
    """What the cached costs were priced with: the pricing file's digest, not its name, so
    an edited price file (or a newer bundled table) re-prices the captures instead of
    answering with the old costs. A pipe or an unreadable file matches nothing cached."""
    target = BUNDLED if path is None else Path(path)
    try:
        if target.is_file():
            return file_hash(str(target))
    except OSError:
        pass
    return uuid.uuid4().hex


class CacheLock:
    """The cache folder's lock file, held shared (readers) or exclusively (a refresh).
    Where the platform has no advisory locks it holds nothing."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.fh: Any = None
        self.exclusive = False

    def take(self, exclusive: bool) -> None:
        """Hold the lock as asked, waiting while another run holds it the other way."""
        try:
            import fcntl
        except ImportError:
            return
        if self.fh is None:
            self.fh = open(self.directory / LOCK, "a+b")  # noqa: SIM115 (held for the run)
        deadline = time.monotonic() + LOCK_WAIT_S
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        while True:
            try:
                fcntl.flock(self.fh.fileno(), mode | fcntl.LOCK_NB)
                self.exclusive = exclusive
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    self.release()
                    raise ExportError(f"{self.directory}: another traceview sql run holds the "
                                      "cache; try again when it ends, or give another --cache"
                                      ) from None
                time.sleep(0.05)

    def release(self) -> None:
        if self.fh is not None:
            self.fh.close()  # closing the file drops the lock
            self.fh = None


def open_cache(directory: Path, options: Options | None, files: list[str]) -> Cache:
    """The cache, up to date for `files`, its lock held until `close`: shared when every
    one is fresh, else exclusive while it is refreshed (and until the query ends)."""
    cache = Cache(directory, options, inputs=files)
    cache.lock.take(exclusive=False)
    if not cache.fresh(files):
        cache.lock.release()
        cache.refresh(files)
    return cache


class Cache:
    def __init__(self, directory: Path, options: Options | None = None, *,
                 inputs: list[str] = ()) -> None:  # type: ignore[assignment]
        present("pyarrow", "fleet")  # the segments are written with it (by the workers)
        present("duckdb", "fleet")  # and queried with it
        if directory.exists() and not directory.is_dir():
            raise ExportError(f"{directory}: exists and is not a directory; --cache names "
                              "the folder the cache is kept in")
        directory.mkdir(parents=True, exist_ok=True)
        self.options = options or Options()
        self.version = (CACHE_VERSION + f";{self.options!r};"
                        + pricing_key(self.options.pricing_path))
        self.directory = directory
        self.segments = directory / SEGMENTS
        self.catalog = directory / CATALOG
        cat, seg = self.catalog, self.segments
        if (cat.is_symlink() or (cat.exists() and not cat.is_file()) or seg.is_symlink()
                or (seg.exists() and not seg.is_dir())):
            raise ExportError(f"{cat}: the cache must be a regular file (and {SEGMENTS} a "
                              "folder), not a symlink or device")
        mine = os.stat(cat) if cat.exists() else None
        if mine and any(_same(mine, p) for p in inputs):
            raise ExportError(f"{cat}: the cache is one of the inputs; choose another --cache")
        self.lock = CacheLock(directory)
        self.read: list[str] = []  # captures (re)analysed by the last refresh

    def close(self) -> None:
        self.lock.release()

    def _catalog(self) -> Known:
        """The catalog's captures whose segment is whole ({} when there is no catalog yet,
        or it was written by another version or with other options)."""
        try:
            with open(self.catalog, "rb") as f:
                raw = f.read(MAX_CATALOG_BYTES + 1)
        except FileNotFoundError:
            return {}
        try:
            doc = orjson.loads(raw) if len(raw) <= MAX_CATALOG_BYTES else None
            if not isinstance(doc, dict):
                raise TypeError
            if doc.get("version") != self.version:
                return {}
            known = {k: (int(s), int(m), str(h), str(seg))
                     for k, (s, m, h, seg) in doc["captures"].items()}
        except (orjson.JSONDecodeError, TypeError, ValueError, KeyError, AttributeError):
            raise ExportError(f"{self.catalog}: not a traceview cache catalog; remove it or "
                              "give another --cache") from None
        whole = {s: self._whole(s) for s in {v[3] for v in known.values()}}
        return {k: v for k, v in known.items() if whole[v[3]]}

    def _save(self, known: Known) -> None:
        """The catalog written whole under a temporary name, then renamed over the old."""
        tmp = self.directory / f".{CATALOG}.{uuid.uuid4().hex}.tmp"
        doc = {"version": self.version, "captures": {k: list(v) for k, v in known.items()}}
        tmp.write_bytes(orjson.dumps(doc))
        os.replace(tmp, self.catalog)

    def _whole(self, segment: str) -> bool:
        return _SEGMENT_NAME.fullmatch(segment) is not None and all(
            any((self.segments / segment / t).glob(f"{ROWS_FILE}*.parquet")) for t in TABLES)

    def fresh(self, files: list[str]) -> bool:
        """Whether the cache holds the current rows of every one of `files`."""
        known = self._catalog()
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
        """Bring the cache up to date for `files` (holding its lock exclusively from here
        to `close`); returns their keys (absolute paths)."""
        if not self.lock.exclusive:
            self.lock.release()
            self.lock.take(exclusive=True)
        keys = []
        self.read = []
        known = self._catalog()
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
                known[key] = (size, mtime, digest, old[3])
                continue
            todo.append((path, key, size, mtime, digest))
        if todo:
            segment = self._load(todo)
            known.update({key: (size, mtime, digest, segment)
                          for _, key, size, mtime, digest in todo})
        self._save(known)
        self._collect(known)
        return keys

    def _load(self, todo: list[tuple[str, str, int, int, str]]) -> str:
        """Write the rows of `todo`'s captures as a new segment; its name."""
        segment = uuid.uuid4().hex
        self.segments.mkdir(exist_ok=True)
        (self.segments / segment).mkdir()  # new: nothing in it is written over
        sink = ParquetSink(self.segments / segment, partition_by=(), prefix=ROWS_FILE,
                           tags=TAGS)
        pricing = shared_pricing(self.options) if len(todo) > 1 else None
        try:
            for path, key, *_ in todo:
                tags = (key, segment)

                def elsewhere(analysis: Any, tags: tuple[str, str] = tags) -> bool:
                    return write_parts(sink, analysis, tags)

                for table, raw in capture_raw(path, self.options, pricing=pricing,
                                              elsewhere=elsewhere):
                    sink.add_columns(table, tagged(columns(table, raw), TAGS, tags))
        finally:
            sink.close()
        self.read = [t[0] for t in todo]
        return segment

    def _collect(self, known: Known) -> None:
        """Remove the segments no capture names (superseded, or left by a run that
        stopped) and queries' copies left by a run that stopped: only the files the cache
        writes, so nothing else in the folder goes."""
        live = {v[3] for v in known.values()}
        for seg in (self.segments.iterdir() if self.segments.is_dir() else ()):
            if seg.name in live or not _SEGMENT_NAME.fullmatch(seg.name) or seg.is_symlink():
                continue
            for table in TABLES:
                for part in (seg / table).glob(f"{ROWS_FILE}*.parquet"):
                    part.unlink(missing_ok=True)
                _rmdir(seg / table)
            _rmdir(seg)
        from traceview.export.views import remove_copies

        remove_copies(self.directory / QUERIES)

    def files(self, keys: list[str]) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
        """Each table's files holding the rows of `keys`, and the (key, segment) pairs
        that pick those rows out of them."""
        known = self._catalog()
        wanted = [(k, known[k][3]) for k in keys]
        segments = sorted({s for _, s in wanted})
        return ({t: [str(p) for s in segments
                     for p in sorted((self.segments / s / t).glob(f"{ROWS_FILE}*.parquet"))]
                 for t in TABLES}, wanted)


def _rmdir(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:  # not empty (something not the cache's) or already gone
        pass
