"""Turn the paths a user names into readable byte sources.

Bodies are re-read by byte range long after the first scan (detail view, diff), so
every source must support random access. Plain files are read in place; a `.gz`
capture or standard input is spooled once into an unnamed temporary file, which
keeps random access without holding the decompressed bytes in memory.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

CAPTURE_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".ndjson", ".ndjson.gz", ".log", ".gz",
                    ".har")


class SourceError(Exception):
    """A path that cannot be read at all (missing, unreadable, not a capture)."""


@dataclass
class Source:
    """One capture file: the name the user gave, and the file its bytes are read from.

    No file stays open here: a directory of ten thousand captures must not need ten
    thousand descriptors. A `.gz` or stdin source is decompressed once into `path`, a
    file in the capture's spool directory.
    """

    name: str
    path: str
    size: int | None
    spooled: bool = False
    notes: list[str] = field(default_factory=list)
    # (problem kind, message) about the whole file, e.g. an unsupported format.
    findings: list[tuple[str, str]] = field(default_factory=list)


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


def _spool(reader: BinaryIO, target: Path) -> int:
    import shutil  # here, like gzip and zlib below: plain files never need them

    with open(target, "wb") as out:
        shutil.copyfileobj(reader, out, 1 << 20)
        return out.tell()


def open_source(path: str, spool_dir: Callable[[], Path]) -> Source:
    """Check one path can be read; raises SourceError with a message a person can act on.

    `spool_dir` is called only when the source needs decompressing (or is stdin).
    """
    if path == "-":
        target = spool_dir() / "stdin.jsonl"
        size = _spool(sys.stdin.buffer, target)
        return Source("<stdin>", str(target), size, spooled=True)
    p = Path(path)
    if not p.exists():
        raise SourceError(f"{path}: no such file")
    if p.is_dir():
        raise SourceError(f"{path}: is a directory")
    try:
        with open(p, "rb") as handle:
            magic = handle.read(2)
            if magic != b"\x1f\x8b":
                return Source(path, path, p.stat().st_size)
            import gzip
            import zlib

            target = spool_dir() / f"{len(list(spool_dir().iterdir()))}-{p.name}.jsonl"
            src = Source(path, str(target), None, spooled=True)
            try:
                with gzip.GzipFile(fileobj=handle) as gz:
                    src.size = _spool(gz, target)
            except (OSError, EOFError, zlib.error) as exc:
                # A gzip cut short still yields what was decompressed before the cut.
                handle.seek(0)
                src.size = _spool_partial_gzip(handle, target)
                src.notes.append(f"gzip stream damaged ({exc}); read {src.size:,} bytes "
                                 "before the damage")
            return src
    except OSError as exc:
        raise SourceError(f"{path}: cannot read ({exc.strerror or exc})") from exc


def _spool_partial_gzip(handle: BinaryIO, target: Path) -> int:
    import zlib

    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    with open(target, "wb") as out:
        while chunk := handle.read(1 << 20):
            try:
                out.write(d.decompress(chunk))
            except zlib.error:
                break
        return out.tell()
