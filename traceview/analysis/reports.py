"""The analysis's turns as a sequence of rows: a TurnReport made when one is read.

A list of TurnReport objects held ~80 bytes a turn (the object and its list slot) for the
capture's life; this holds each turn's table row (4 bytes) in report order and makes the
view (turn_report.py) on access; while row n is the n-th report (no retried turn took
a row of its own, turns finished in order: the usual capture) the rows are a `range`
(nothing per turn). It reads like the list it replaces — len, index
(negative too), slices (a Reports of their own), iteration, `in`, sort by a key — so
screens, writers and the hosted-state passes read it unchanged. Views are made afresh on
each read: compare them with ==, not `is`.

Turns of several tables (one analyzer fed two captures) are kept as consecutive parts,
each with its own columns.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from operator import index, le
from typing import Any, overload

from traceview.analysis.turn_columns import TurnColumns
from traceview.analysis.turn_report import TurnReport


class Reports(Sequence[TurnReport]):
    """TurnReports by position: rows of one or more TurnColumns, in report order."""

    __slots__ = ("_rows", "_parts", "_starts")

    def __init__(self) -> None:
        self._rows: range | array[int] = range(0)
        self._parts: list[TurnColumns] = []  # the columns of each part …
        self._starts: list[int] = []  # … and the position where it starts

    def append(self, columns: TurnColumns, row: int) -> None:
        """The turn at `row` of `columns`, after the others."""
        parts = self._parts
        if not parts or parts[-1] is not columns:
            parts.append(columns)
            self._starts.append(len(self._rows))
        rows = self._rows
        if type(rows) is range:
            if row == rows.stop and rows.start == 0:  # (a range made here has step 1)
                self._rows = range(row + 1)
                return
            rows = self._rows = array("i", rows)
        rows.append(row)

    def __len__(self) -> int:
        return len(self._rows)

    def _columns_at(self, pos: int) -> TurnColumns:
        if len(self._parts) == 1:
            return self._parts[0]
        return self._parts[bisect_right(self._starts, pos) - 1]

    @overload
    def __getitem__(self, i: int) -> TurnReport: ...

    @overload
    def __getitem__(self, i: slice) -> Reports: ...

    def __getitem__(self, i: int | slice) -> TurnReport | Reports:
        if type(i) is int:  # the lookup by position (Analysis.turn): kept short
            r = self._rows[i]  # IndexError past the end; negative from the end
            parts = self._parts
            if len(parts) == 1:
                return TurnReport(parts[0], r)
            return TurnReport(self._columns_at(i if i >= 0 else i + len(self._rows)), r)
        if isinstance(i, slice):
            return self._slice(i)
        return self[index(i)]

    def _slice(self, s: slice) -> Reports:
        out = Reports()
        if len(self._parts) == 1 and s.step in (None, 1):
            start, stop, _ = s.indices(len(self._rows))
            out._rows = self._rows[start:stop]
            if len(out._rows):
                out._parts, out._starts = [self._parts[0]], [0]
            return out
        for pos in range(*s.indices(len(self._rows))):
            out.append(self._columns_at(pos), self._rows[pos])
        return out

    def __iter__(self) -> Iterator[TurnReport]:
        rows, starts, parts = self._rows, self._starts, self._parts
        for n, cols in enumerate(parts):
            end = starts[n + 1] if n + 1 < len(parts) else len(rows)
            for r in rows[starts[n]:end]:
                yield TurnReport(cols, r)

    def __contains__(self, value: object) -> bool:
        if type(value) is not TurnReport:
            return False
        return any(cols is value._cols and value._r in self._rows[
            self._starts[n]:(self._starts[n + 1] if n + 1 < len(self._parts)
                             else len(self._rows))] for n, cols in enumerate(self._parts))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Reports | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like the list it replaces

    def __repr__(self) -> str:
        return f"Reports({len(self)} turns)"

    def sort(self, key: Callable[[TurnReport], Any] | None = None) -> None:
        """In place, by `key` (default: the turn's index); stable, like list.sort."""
        if key is None and len(self._parts) == 1:
            index = self._parts[0].table.index
            rows = self._rows
            if type(rows) is range and rows.start == 0 and rows.step == 1:
                # Rows 0 … n-1 (the usual case): their indices compared in C, in one pass.
                idx = index[:rows.stop]
                in_order = all(map(le, idx, idx[1:]))
            else:
                in_order = all(index[a] <= index[b] for a, b in zip(rows, rows[1:],
                                                                    strict=False))
            if in_order:
                return  # already in order: the usual case
            self._rows = array("i", sorted(rows, key=index.__getitem__))
            return
        get = key or _index
        order = sorted(((get(t), n) for n, t in enumerate(self)), key=_first)
        cols = [self._columns_at(n) for _, n in order]
        picked = [int(self._rows[n]) for _, n in order]
        self._rows, self._parts, self._starts = range(0), [], []
        for c, r in zip(cols, picked, strict=True):
            self.append(c, r)

    def parts(self) -> list[tuple[TurnColumns, Sequence[int]]]:
        """Each part's columns and its rows, in report order."""
        ends = [*self._starts[1:], len(self._rows)][:len(self._parts)]
        return [(cols, self._rows[start:end])
                for cols, start, end in zip(self._parts, self._starts, ends, strict=True)]

    def rows(self) -> Sequence[int]:
        """The table rows in report order (of one table's columns)."""
        return self._rows


def table_rows(turns: Sequence[TurnReport]) -> list[tuple[TurnColumns, Sequence[int]]]:
    """`turns` as runs of rows of one TurnColumns each, in order: what a pass over the
    columns walks instead of making a view per turn (a list of views is grouped here)."""
    if isinstance(turns, Reports):
        return turns.parts()
    out: list[tuple[TurnColumns, array[int]]] = []
    for t in turns:
        if not out or out[-1][0] is not t.columns:
            out.append((t.columns, array("q")))
        out[-1][1].append(t._r)
    return list(out)


def _index(t: TurnReport) -> int:
    return t.index


def _first(pair: tuple[Any, int]) -> Any:
    return pair[0]
