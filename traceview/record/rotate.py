"""A capture writer that starts a new file per day or per size, for a proxy left running.

Naming: ``-o trace.jsonl`` writes ``trace-2026-11-30.jsonl`` (daily) or
``trace-20261130-175500.jsonl`` (by size, the time the file was started, ``-2``, ``-3``…
if two start in the same second), in the same directory. ``trace.jsonl`` itself becomes a
symlink to the file being written, so ``traceview --follow trace.jsonl`` (or ``tail -F``)
always finds the current file; re-resolve the link to notice a rotation. Every finished
file is a complete capture on its own: records are never split across files (a request
and its response may be, when a rotation falls between them; they keep their ``id`` link,
so opening the files together pairs them again).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from traceview.record.writer import CaptureWriter

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class RotateError(ValueError):
    """A ``--rotate`` value or output path that cannot be used; the message says why."""


def parse_rotate(value: str) -> str | int:
    """``daily`` or a size such as ``100MB``, ``1G``, ``500k``, ``1048576`` (bytes)."""
    if value.strip().lower() == "daily":
        return "daily"
    m = _SIZE.match(value)
    if not m:
        raise RotateError(f"--rotate {value!r}: expected 'daily' or a size like 100MB or 1G")
    size = int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    if size < 1024:
        raise RotateError(f"--rotate {value!r}: a size below 1 KB would start a file per record")
    return size


class RotatingCaptureWriter(CaptureWriter):
    """Writes whole lines like :class:`CaptureWriter`, moving to a new file when due.

    One scrubber is shared by every file, so a key seen in January is still masked in March.
    """

    def __init__(self, link: str | os.PathLike[str], rotate: str | int, *, fsync: bool = False,
                 now: Callable[[], float] = time.time) -> None:
        self.link = Path(link)
        if self.link.exists() and not self.link.is_symlink():
            raise RotateError(f"{self.link} exists and is not a symlink: with --rotate it "
                              "becomes a link to the current file; choose another -o")
        self.rotate = rotate
        self._now = now
        self._key = self._period()
        super().__init__(self._next_path(), fsync=fsync)
        self._size = 0
        self._point_link()

    # -- naming -------------------------------------------------------------------------------
    def _period(self) -> str:
        return time.strftime("%Y-%m-%d", time.localtime(self._now()))

    def _next_path(self) -> Path:
        stem = self.link.name.removesuffix(".jsonl")
        if self.rotate == "daily":
            base = f"{stem}-{self._key}"
        else:
            base = f"{stem}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(self._now()))}"
        candidate = self.link.with_name(base + ".jsonl")
        n = 1
        while candidate.exists() and (self.rotate != "daily" or n > 1):
            n += 1
            candidate = self.link.with_name(f"{base}-{n}.jsonl")
        return candidate

    def _point_link(self) -> None:
        tmp = self.link.with_name(f".{self.link.name}.{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(self.path.name)
        os.replace(tmp, self.link)  # atomic: a follower never sees the link missing

    # -- writing ------------------------------------------------------------------------------
    def _due(self) -> bool:
        if self.rotate == "daily":
            return self._period() != self._key
        assert isinstance(self.rotate, int)
        return self._size >= self.rotate

    def write(self, record: dict[str, Any]) -> None:
        """A file reaching the size limit is closed before the next record, never mid-line
        (so a file can pass the limit by one record)."""
        if self._due():
            self._roll()
        super().write(record)
        with self._lock:
            if self._fd is not None and self.rotate != "daily":
                self._size = os.fstat(self._fd).st_size

    def _roll(self) -> None:
        with self._lock:
            self._key = self._period()
            path = self._next_path()
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND
                         | getattr(os, "O_CLOEXEC", 0), 0o600)
            old, self._fd, self.path, self._size = self._fd, fd, path, 0
            if old is not None:
                os.close(old)
            self._point_link()
