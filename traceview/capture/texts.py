"""The two shapes of string column the turn table keeps: values repeated on many rows
(`Pool`: each distinct one stored once, rows hold its number) and values unique to a row
(`Texts`: UTF-8 in one buffer, a start and a length per row)."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Any


class Pool:
    """Interned values (strings, tuples of strings): each distinct value stored once, rows
    hold its number. Number 0 is None."""

    __slots__ = ("values", "numbers")

    def __init__(self) -> None:
        self.values: list[Any] = [None]
        self.numbers: dict[Any, int] = {None: 0}

    def number(self, value: Any) -> int:
        n = self.numbers.get(value)
        if n is None:
            n = self.numbers[value] = len(self.values)
            self.values.append(value)
        return n

    def numbers_of(self, values: Sequence[Any]) -> list[int]:
        """The number of each of `values` (a new value gets the next one, in order of first
        appearance): each distinct value numbered once, then all looked up in one pass."""
        numbers = self.numbers
        for value in dict.fromkeys(values):
            if value not in numbers:
                self.number(value)
        return list(map(numbers.__getitem__, values))

    def mapping(self, other: Pool) -> list[int]:
        """Each of `other`'s numbers as this pool's number (for appending its rows)."""
        return [self.number(v) for v in other.values]


def _encoded(text: str) -> bytes:
    try:
        return text.encode()
    except UnicodeEncodeError:  # a lone surrogate, stored as it came
        return text.encode("utf-8", "surrogatepass")


class Texts:
    """Strings that differ on every row, as UTF-8 in one buffer: start (8 bytes) and length
    (4 bytes; -1: None) per row. Reading one decodes it again, which is cheap for short
    strings; the last row read is kept (a report reads a turn's id several times)."""

    __slots__ = ("buf", "starts", "lens", "last")

    def __init__(self) -> None:
        self.buf = bytearray()
        self.starts = array("q")
        self.lens = array("i")
        self.last: tuple[int, str | None] = (-1, None)

    def append(self, text: str | None) -> None:
        self.add_all((text,))

    def add_all(self, texts: Iterable[str | None]) -> None:
        """Append each of `texts` as a new row (the rows' starts and lengths gathered in
        lists, then added to their arrays at once: an array extended by a list converts it
        item by item, several times slower than one made from the list)."""
        buf = self.buf
        starts: list[int] = []
        lens: list[int] = []
        for text in texts:
            if text is None:
                starts.append(0)
                lens.append(-1)
                continue
            raw = _encoded(text)
            starts.append(len(buf))
            lens.append(len(raw))
            buf += raw
        self.starts.extend(array("q", starts))
        self.lens.extend(array("i", lens))

    def get(self, row: int) -> str | None:
        last = self.last
        if last[0] == row:
            return last[1]
        n = self.lens[row]
        if n < 0:
            return None
        s = self.starts[row]
        text = self.buf[s:s + n].decode("utf-8", "surrogatepass")
        self.last = (row, text)
        return text

    def set(self, row: int, text: str | None) -> None:
        """Replace a row's text (rare): the new bytes go at the end, the old stay unused."""
        self.last = (-1, None)
        if text is None:
            self.lens[row] = -1
            return
        raw = _encoded(text)
        self.starts[row] = len(self.buf)
        self.lens[row] = len(raw)
        self.buf += raw

    def extend(self, other: Texts) -> None:
        base = len(self.buf)
        self.buf += other.buf
        self.starts.extend(array("q", [s + base for s in other.starts]))
        self.lens.extend(other.lens)

    def nbytes(self) -> int:
        return len(self.buf) + self.starts.itemsize * len(self.starts) \
            + self.lens.itemsize * len(self.lens)
