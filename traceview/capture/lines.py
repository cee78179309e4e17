"""Scan a source for lines without holding the file in memory.

Reads fixed-size chunks with plain `read` (page cache, not process memory, keeps the
bytes; an mmap would count every touched page in our RSS), and yields each line with
its byte offset so any record can be re-read later with one `pread`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

CHUNK = 4 << 20


def iter_lines(handle: BinaryIO, chunk_size: int = CHUNK) -> Iterator[tuple[int, int, bytes, bool]]:
    """Yield (line_number, offset, line_bytes_without_newline, ended_with_newline).

    Line numbers start at 1. The last line of a file cut mid-write has no newline,
    which the reader reports as a possibly truncated record.
    """
    handle.seek(0)
    line_no = 0
    offset = 0
    carry = b""
    while True:
        chunk = handle.read(chunk_size)
        if not chunk:
            break
        buf = carry + chunk if carry else chunk
        start = 0
        find = buf.find
        while True:
            nl = find(b"\n", start)
            if nl < 0:
                break
            line_no += 1
            yield line_no, offset + start, buf[start:nl], True
            start = nl + 1
        offset += start
        carry = buf[start:]
    if carry:
        line_no += 1
        yield line_no, offset, carry, False
