"""Turn the paths a user names into readable byte sources.

Bodies are re-read by byte range long after the first scan (detail view, diff), so
every source must support random access. Plain files are read in place; a `.gz`
capture or standard input is spooled once into an unnamed temporary file, which
keeps random access without holding the decompressed bytes in memory. A source that is
not a capture at all (binary, or no JSON object in its first lines) is told apart by its
first bytes (`not_a_capture`) before any line is read.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, BinaryIO, Protocol

import orjson

CAPTURE_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".ndjson", ".ndjson.gz", ".log", ".gz",
                    ".har")

# The first two bytes of a gzip stream: how a compressed capture is told from a plain one.
GZIP_MAGIC = b"\x1f\x8b"


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
    findings: list[tuple[str, str, int]] = field(default_factory=list)


def expand_paths(paths: list[str], errors: list[tuple[str, str]] | None = None) -> list[str]:
    """Files stay as given; a directory becomes its capture files, sorted, recursively.

    A sub-directory that cannot be listed is not skipped in silence: ``(path, reason)``
    goes on ``errors`` (the loader reports it as a problem).
    """
    out: list[str] = []
    for raw in paths:
        if raw == "-":
            out.append(raw)
            continue
        p = Path(raw)
        if p.is_dir():
            unreadable: list[tuple[str, str]] = []
            found = sorted(_walk(raw, unreadable))
            if errors is not None:
                errors.extend(unreadable)
            if not found and unreadable:
                raise SourceError(f"{unreadable[0][0]}: {unreadable[0][1]}")
            if not found:
                raise SourceError(f"{raw}: directory holds no capture files (*.jsonl, *.jsonl.gz)")
            out.extend(found)
        else:
            out.append(raw)
    return _once(out)


def _once(paths: list[str]) -> list[str]:
    """Each file once, where first named: the proxy's --rotate link beside the file it
    points at, or a file given twice (or also inside a folder given), was read twice,
    every turn and its cost counted twice with no word said."""
    import os

    seen: set[tuple[int, int]] = set()
    out = []
    for path in paths:
        try:
            st = os.stat(path) if path != "-" else None
        except OSError:
            st = None  # the read names it
        if st is not None:
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
        out.append(path)
    return out


def _walk(root: str, unreadable: list[tuple[str, str]]) -> list[str]:
    import os

    def onerror(exc: OSError) -> None:
        unreadable.append((exc.filename or root, f"cannot read directory "
                           f"({exc.strerror or exc}); its captures are not included"))

    return [os.path.join(d, f) for d, _, files in os.walk(root, onerror=onerror)
            for f in files if f.lower().endswith(CAPTURE_SUFFIXES)
            and os.path.isfile(os.path.join(d, f))]


FIFO_WAIT_S = 3.0  # how long a named pipe may wait for its writer before we say so


def _open_stream(path: str) -> _Prefixed:
    """Open a pipe without blocking forever: a FIFO nobody writes to is an error."""
    import fcntl
    import os
    import time

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    deadline = time.monotonic() + FIFO_WAIT_S
    first = b""
    while True:
        try:
            first = os.read(fd, 1 << 16)
        except BlockingIOError:  # a writer is attached, nothing written yet
            import select

            select.select([fd], [], [], 0.5)
            continue
        if first or time.monotonic() > deadline:
            break
        time.sleep(0.05)  # no writer yet (EOF): give one a moment to open the pipe
    if not first:
        os.close(fd)
        raise SourceError(f"{path}: a pipe with no writer (nothing arrived in "
                          f"{FIFO_WAIT_S:g} s); start the writer first, or give a file")
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return _Prefixed(first, os.fdopen(fd, "rb"))


class _Reader(Protocol):
    def read(self, n: int = -1, /) -> bytes: ...


class _Prefixed:
    """A stream with bytes already read put back in front (no peeked byte is lost)."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self.head, self.rest = head, rest

    def read(self, n: int = -1) -> bytes:
        if self.head:
            out, self.head = (self.head, b"") if n < 0 or n >= len(self.head) else (
                self.head[:n], self.head[n:])
            return out
        return self.rest.read(n)

    def close(self) -> None:
        self.rest.close()


SNIFF = 1 << 16  # a file is judged a capture or not by its first bytes (not_a_capture)
NUL_RUN = b"\x00" * 8


def binary_head(head: bytes) -> bool:
    """A leading run of NULs, or nothing but NULs: not lines at all (a preallocated or
    zeroed file, a binary format). One NUL inside a line is that line's problem."""
    return head.startswith(NUL_RUN) or bool(head) and not head.strip(b"\x00")


SNIFF_LINES = 20


def not_a_capture(path: str) -> str | None:
    """Why the file at ``path`` is not a JSONL capture, judged from its first 64 KB; None
    if it may be one (an empty file may still become one: it is being written)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(SNIFF)
    except OSError:
        return None  # the read loop reports it with the line it stopped at
    if binary_head(head):
        return "binary data (NUL bytes) in its first bytes; expected JSON lines"
    lines = head.split(b"\n")
    complete = [line for line in lines[:-1] if line.strip()][:SNIFF_LINES]
    if b"\x00" in head and not any(line.lstrip().startswith(b"{") for line in complete):
        # NULs and not one JSON object among the first lines: a binary file (an image,
        # an archive), said as such rather than as lines that are not JSON.
        return "binary data (NUL bytes) in its first bytes; expected JSON lines"
    if not complete:
        start = head.lstrip().removeprefix(b"\xef\xbb\xbf")[:1]
        if start and start != b"{":
            return f"it starts with {_shown(head)}; expected one JSON object per line"
        return None
    for line in complete:
        try:
            if isinstance(orjson.loads(line), dict):
                return None
        except orjson.JSONDecodeError:
            continue
    return (f"none of its first {len(complete)} lines is a JSON object (line 1: "
            f"{_shown(complete[0])}); expected one JSON record per line")


def _shown(raw: bytes) -> str:
    text = raw.strip()[:40].decode("utf-8", "replace")
    return repr(text) + ("…" if len(raw.strip()) > 40 else "")


def _spool(reader: _Reader | IO[bytes], target: Path) -> int:
    """Copy `reader` into `target`. A head of NULs stops the copy: the file is refused
    whole by that head, and a gzip bomb's gigabytes of zeros would fill the disk first."""
    import shutil  # here, like gzip and zlib below: plain files never need them

    with open(target, "wb") as out:
        head = b""
        while len(head) < SNIFF and (more := reader.read(SNIFF - len(head))):
            head += more
        out.write(head)
        if not binary_head(head):
            shutil.copyfileobj(reader, out, 1 << 20)
        return out.tell()


def refuse_device(path: str) -> int:
    """The mode of ``path``; SourceError for a device or a socket, which never end or never
    hold a capture (a FIFO is read: process substitution gives one)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise SourceError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
        raise SourceError(f"{path}: is a device, not a capture file (give a file, a "
                          "directory, or - for a pipe)")
    return mode


FOLLOW_NEEDS = ("--follow needs exactly one plain capture file (not a directory, .gz or "
                "stdin)")


def unfollowable(paths: list[str]) -> str | None:
    """Why `paths` cannot be followed as they grow (FOLLOW_NEEDS, naming the path), or None:
    said before the inspector opens, not as a load that stopped on an empty screen."""
    if len(paths) != 1 or paths[0] == "-":
        return FOLLOW_NEEDS
    try:
        if not stat.S_ISREG(os.stat(paths[0]).st_mode):
            return f"{paths[0]}: {FOLLOW_NEEDS}"
        with open(paths[0], "rb") as handle:
            gzipped = handle.read(2) == GZIP_MAGIC
    except OSError:
        return None  # the load names why it cannot be read
    return f"{paths[0]}: {FOLLOW_NEEDS}" if gzipped else None


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
        raise SourceError(f"{path}: no such file or directory")
    if p.is_dir():
        raise SourceError(f"{path}: is a directory")
    mode = refuse_device(path)
    if stat.S_ISFIFO(mode):
        # A pipe (process substitution <(…), a named FIFO) is read once, whole, into
        # the spool: peeking at it for the gzip magic would lose what was peeked.
        try:
            stream = _open_stream(path)
        except OSError as exc:
            raise SourceError(f"{path}: cannot read ({exc.strerror or exc})") from exc
        try:
            head = stream.read(2)
            stream.head = head + stream.head
            target = spool_dir() / f"{len(list(spool_dir().iterdir()))}-pipe.jsonl"
            if head == GZIP_MAGIC:
                import gzip

                with gzip.GzipFile(fileobj=stream) as gz:  # type: ignore[call-overload]
                    size = _spool(gz, target)
            else:
                size = _spool(stream, target)
        except (OSError, EOFError) as exc:
            raise SourceError(f"{path}: cannot read ({exc})") from exc
        finally:
            stream.close()
        return Source(path, str(target), size, spooled=True)
    try:
        with open(p, "rb") as handle:
            magic = handle.read(2)
            if magic != GZIP_MAGIC:
                return Source(path, path, p.stat().st_size)
            handle.seek(0)  # the magic bytes belong to the gzip header
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
