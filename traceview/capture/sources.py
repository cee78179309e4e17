"""Turn the paths a user names into readable byte sources.

Bodies are re-read by byte range long after the first scan (detail view, diff), so
every source must support random access. Plain files are read in place; a `.gz`
capture or standard input is spooled once into an unnamed temporary file, which
keeps random access without holding the decompressed bytes in memory.
"""

from __future__ import annotations

import gzip
import os
import shutil
import sys
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

CAPTURE_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".ndjson", ".ndjson.gz", ".log", ".gz")


class SourceError(Exception):
    """A path that cannot be read at all (missing, unreadable, not a capture)."""


@dataclass
class Source:
    """One capture file, open for random access for as long as the capture lives."""

    name: str
    handle: BinaryIO
    size: int | None
    spooled: bool = False
    notes: list[str] = field(default_factory=list)

    def pread(self, offset: int, length: int) -> bytes:
        fd = self.handle.fileno()
        return os.pread(fd, length, offset)

    def close(self) -> None:
        self.handle.close()


def expand_paths(paths: list[str]) -> list[str]:
    """Files stay as given; a directory becomes its capture files, sorted, recursively."""
    out: list[str] = []
    for raw in paths:
        if raw == "-":
            out.append(raw)
            continue
        p = Path(raw)
        if p.is_dir():
            found = sorted(
                str(f)
                for f in p.rglob("*")
                if f.is_file() and f.name.lower().endswith(CAPTURE_SUFFIXES)
            )
            if not found:
                raise SourceError(f"{raw}: directory holds no capture files (*.jsonl, *.jsonl.gz)")
            out.extend(found)
        else:
            out.append(raw)
    return out


def _spool(reader: BinaryIO) -> tuple[BinaryIO, int]:
    tmp = tempfile.TemporaryFile()
    shutil.copyfileobj(reader, tmp, 1 << 20)
    size = tmp.tell()
    tmp.seek(0)
    return tmp, size


def open_source(path: str) -> Source:
    """Open one path for reading; raises SourceError with a message a person can act on."""
    if path == "-":
        handle, size = _spool(sys.stdin.buffer)
        return Source("<stdin>", handle, size, spooled=True)
    p = Path(path)
    if not p.exists():
        raise SourceError(f"{path}: no such file")
    if p.is_dir():
        raise SourceError(f"{path}: is a directory")
    try:
        handle = open(p, "rb")  # noqa: SIM115 - lives as long as the capture
    except OSError as exc:
        raise SourceError(f"{path}: cannot open ({exc.strerror or exc})") from exc
    magic = handle.read(2)
    handle.seek(0)
    if magic == b"\x1f\x8b":
        src = Source(path, handle, None, spooled=True)
        try:
            with gzip.GzipFile(fileobj=handle) as gz:
                spooled, size = _spool(gz)
        except (OSError, EOFError, zlib.error) as exc:
            # A gzip cut short still yields what was decompressed before the cut.
            handle.seek(0)
            spooled, size = _spool_partial_gzip(handle)
            src.notes.append(f"gzip stream damaged ({exc}); read {size} bytes before the damage")
        handle.close()
        src.handle, src.size = spooled, size
        return src
    return Source(path, handle, p.stat().st_size)


def _spool_partial_gzip(handle: BinaryIO) -> tuple[BinaryIO, int]:
    tmp = tempfile.TemporaryFile()
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    while chunk := handle.read(1 << 20):
        try:
            tmp.write(d.decompress(chunk))
        except zlib.error:
            break
    size = tmp.tell()
    tmp.seek(0)
    return tmp, size
