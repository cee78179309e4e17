"""Append-only capture writer: one record, one line, one ``os.write``.

Many threads, asyncio tasks and even processes may record into the same capture.
Each record is serialised completely first and then handed to the kernel in a single
``write`` on a descriptor opened with ``O_APPEND``, under a per-path lock, so lines never
interleave and a process killed at any moment leaves only whole lines behind (at worst
a request record whose response never arrived, which traceview shows as ``request_only``).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import orjson

from traceview.record.scrub import Scrubber
from traceview.safety.redact import nothing_to_mask, redact
from traceview.safety.sanitise import json_safe

_PATH_LOCKS: dict[str, threading.Lock] = {}
_PATH_LOCKS_GUARD = threading.Lock()


def _lock_for(path: str) -> threading.Lock:
    """One lock per real path, shared by every writer in this process."""
    with _PATH_LOCKS_GUARD:
        return _PATH_LOCKS.setdefault(path, threading.Lock())


def _dumps(record: dict[str, Any]) -> bytes:
    """Compact JSON; falls back to the stdlib for values orjson refuses (huge ints)."""
    try:
        return orjson.dumps(record)
    except TypeError:
        return json.dumps(record, separators=(",", ":"), ensure_ascii=False, default=str).encode()


def _too_deep(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its body (and events) replaced by a note: the exchange is still
    relayed and still has its line, which says what was not kept."""
    kept = {k: v for k, v in record.items() if k not in ("body", "events")}
    kept["body"] = {"non_json": True, "not_kept": "nested too deep to record"}
    return kept


class CaptureWriter:
    """Writes records to one capture file; safe to share between threads and tasks."""

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync
        self.scrubber = Scrubber()
        # 0o600: a capture holds prompts and answers; other users have no business reading it.
        self._fd: int | None = os.open(
            self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o600
        )
        self._lock = _lock_for(os.path.realpath(self.path))
        self._end_fragment()

    def _end_fragment(self) -> None:
        """A process killed mid-``write`` (or another program) can leave a last line without
        its newline; end it, so the first record of this run is a line of its own and the
        fragment stays one damaged line instead of swallowing a good record."""
        assert self._fd is not None
        size = os.fstat(self._fd).st_size
        if size and os.pread(self._fd, 1, size - 1) != b"\n":
            os.write(self._fd, b"\n")

    def write(self, record: dict[str, Any]) -> None:
        """Serialise, scrub secrets, and append the record as one whole line."""
        try:
            line = self._line(record)
        except RecursionError:  # nested deeper than a record can be walked: kept as a problem
            line = self._line(_too_deep(record))
        with self._lock:
            if self._fd is None:
                raise ValueError(f"capture {self.path} is closed")
            start = -1  # where this record began, known once part of it is written
            view = memoryview(line)
            try:
                while view:  # a regular file takes it in one go; loop only for pathology
                    written = os.write(self._fd, view)
                    if start < 0 and written < len(view):  # O_APPEND: it ends where we are
                        start = os.lseek(self._fd, 0, os.SEEK_CUR) - written
                    view = view[written:]
                if self.fsync:
                    os.fsync(self._fd)
            except OSError:
                # Full disk, file size limit (EFBIG), quota: a partial line would merge with
                # the next record. Cut the file back to where this record began.
                if start < 0 and not view:  # written whole, then fsync failed
                    start = os.lseek(self._fd, 0, os.SEEK_CUR) - len(line)
                if start >= 0:
                    try:
                        os.ftruncate(self._fd, start)
                    except OSError:
                        pass
                raise

    def _line(self, record: dict[str, Any]) -> bytes:
        """The record's line, masked: serialised once and, when its text holds nothing the
        redactor would mask (most records), only this recorder's exact secrets looked for;
        else masked value by value, then as text (a shape across a key and its value).
        C1, bidi and invisible characters leave as ``\\uXXXX`` (`json_safe`): the data
        verbatim, the file inert on a terminal."""
        raw = _dumps(record)
        if nothing_to_mask(raw):
            return json_safe(self.scrubber.scrub_bytes(raw, shapes=False)) + b"\n"
        return json_safe(self.scrubber.scrub_bytes(_dumps(redact(record)))) + b"\n"

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> CaptureWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort at interpreter exit
        try:
            self.close()
        except Exception:
            pass
