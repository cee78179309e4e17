"""Scan a source for lines without holding the file in memory.

Iterates the buffered file object (the fastest line loop CPython has, and its buffer
stays small: the page cache, not this process, keeps the bytes — an mmap would count
every touched page in our RSS). Each line comes with its byte offset, so any record can
be re-read later with one `pread`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO


def iter_lines(handle: BinaryIO) -> Iterator[tuple[int, int, bytes, bool]]:
    """Yield (line_number, offset, line_bytes, ended_with_newline).

    Line numbers start at 1; `line_bytes` keeps its newline (JSON parsers ignore it).
    The last line of a file cut mid-write has no newline, which the reader reports as a
    possibly truncated record.
    """
    handle.seek(0)
    offset = 0
    line_no = 0
    for raw in handle:
        line_no += 1
        yield line_no, offset, raw, raw[-1:] == b"\n"
        offset += len(raw)
