"""The hosted calls of a capture's responses, in columns: one row per call.

Kept as objects, a response's hosted calls cost a dict entry and an int key for its row, a
tuple, a HostedCall, a tuple of queries and a str per id and query: about 390 bytes a call,
the largest part of the turn table on a capture of hosted-state turns. Here each call is a
few narrow numbers (its type, status, evidence, include flag and detail, together, are one
number into the side's pool) and its id and queries sit as UTF-8 in byte buffers
(table.Texts): about 75 bytes a call.

`Calls` reads like the dict by response row it replaces (`get(row, ())`, `calls[row] = …`,
`pop`, `in`, `items`): the row views (capture/model.py) and the analysis's bindings
(analysis/columns.py) use it unchanged. A read makes the row's HostedCall objects again (the
last row read is kept: a report reads one turn's calls a few times in a row).

Rows are stored in the order they are added, which is row order (a side adds rows at its
end, a worker's chunk is appended after them). A row set again or out of order (a later
retrieve replaces a turn's outcome) is kept in `changed`, which is read first.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator
from typing import Any

from traceview.capture.table import SIGNED, Layout, Pool, Texts, fits, itemsize, joined, wider

_GONE = object()  # in `changed`: the row's calls were removed
_HostedCall: Any = None  # capture.model.HostedCall, once a row is read


def _append(obj: Any, name: str, value: int) -> None:
    col = getattr(obj, name)
    try:
        col.append(value)
    except (OverflowError, ValueError):  # ValueError: a bytearray's
        col = wider(col, value)
        setattr(obj, name, col)
        col.append(value)


class Calls:
    """Every response row's hosted calls (see the module's docstring)."""

    __slots__ = ("pool", "rows", "ends", "shape", "ids", "q_ends", "queries", "changed",
                 "last")

    # A call's shape: what it shares with many others, one pooled tuple (a few hundred
    # distinct in a large capture), read back as the HostedCall's fields of those names.
    SHAPE = ("type", "status", "evidence", "include", "detail")

    def __init__(self, pool: Pool, layout: Layout | None = None) -> None:
        self.pool = pool
        self.rows = array(SIGNED[0])  # the response rows that have calls, increasing
        self.ends = array(SIGNED[0])  # per row: one past its last call
        self.shape = bytearray()  # pool numbers, a bytearray first as the sides' pooled
        layout = layout if layout is not None else Layout()
        self.ids = Texts(layout)
        self.q_ends = array(SIGNED[0])  # per call: one past its last query
        self.queries = Texts(layout)
        self.changed: dict[int, Any] = {}  # row -> calls set out of order, or _GONE
        self.last: tuple[int, Any] = (-1, None)

    # ---- writing --------------------------------------------------------------------
    def __setitem__(self, row: int, calls: tuple[Any, ...]) -> None:
        self.last = (-1, None)
        rows = self.rows
        if self.changed or (rows and row <= rows[-1]) or not calls:
            self.changed[row] = calls if calls else _GONE
            return
        known = self.pool.numbers.get
        ids, queries = self.ids, self.queries
        try:
            for c in calls:
                shape = (c.type, c.status, c.evidence, c.include, c.detail)
                n = known(shape)
                if n is None:
                    n = self.pool.number(shape)
                self.shape.append(n)
                ids.append(c.id)  # Texts widen their own columns when a value needs it
                for q in c.queries:
                    queries.append(q)
                self.q_ends.append(len(queries.lens))
            self.rows.append(row)
            self.ends.append(len(self.shape))
        except (OverflowError, ValueError):  # a column too narrow: the row again, widening
            self._again(row, calls)

    def _again(self, row: int, calls: tuple[Any, ...]) -> None:
        """Drop what a row's quick appends made before one overflowed, and add it with every
        column widened as it needs."""
        n_rows = len(self.ends)  # rows complete before this one (`ends` is appended last)
        start = self.ends[n_rows - 1] if n_rows else 0
        q_start = self.q_ends[start - 1] if start else 0
        for name in ("rows", "ends"):
            del getattr(self, name)[n_rows:]
        for name in ("shape", "q_ends"):
            del getattr(self, name)[start:]
        for texts, keep in ((self.ids, start), (self.queries, q_start)):
            del texts.starts[keep:]
            del texts.lens[keep:]
        number = self.pool.number
        for c in calls:
            _append(self, "shape", number(tuple(getattr(c, name) for name in self.SHAPE)))
            self.ids.append(c.id)
            for q in c.queries:
                self.queries.append(q)
            _append(self, "q_ends", len(self.queries.lens))
        _append(self, "rows", row)
        _append(self, "ends", len(self.shape))

    def pop(self, row: int, default: Any = None) -> Any:
        value = self.get(row, _GONE)
        if value is _GONE:
            return default
        self.last = (-1, None)
        self.changed[row] = _GONE
        return value

    def extend(self, other: Calls, base: int, to_mine: list[int]) -> None:
        """Append a worker's chunk's calls, its rows shifted by `base` (its first row
        here), its pool numbers as this pool's (`to_mine`)."""
        self.last = (-1, None)
        n_calls, n_queries = len(self.shape), len(self.queries.lens)
        for name, shift in (("rows", base), ("ends", n_calls), ("q_ends", n_queries)):
            theirs = getattr(other, name)
            if shift and len(theirs):
                theirs = array("q", [v + shift for v in theirs])
            self._join(name, theirs)
        self._join("shape", array("q", [to_mine[n] for n in other.shape]))
        self.ids.extend(other.ids)
        self.queries.extend(other.queries)
        for row, calls in other.changed.items():
            self.changed[row + base] = calls

    def _join(self, name: str, theirs: Any) -> None:
        if not len(theirs):  # a chunk without calls: an empty 8-byte array would widen
            return
        mine = getattr(self, name)
        if len(theirs) and type(theirs) is array and theirs.itemsize == 8:
            # Shifted or renumbered: stored at the size the values need here.
            top, low = max(theirs), min(theirs)
            if not (fits(mine, top) and fits(mine, low)):
                mine = wider(mine, top, low)
            theirs = bytearray(theirs.tolist()) if type(mine) is bytearray else \
                array(mine.typecode, theirs)
        mine, theirs = joined(mine, theirs)
        setattr(self, name, mine)
        mine.extend(theirs)

    # ---- reading --------------------------------------------------------------------
    def get(self, row: int, default: Any = None) -> Any:
        last = self.last
        if last[0] == row:
            return last[1]
        if self.changed:
            value = self.changed.get(row)
            if value is not None:
                return default if value is _GONE else value
        rows = self.rows
        k = bisect_left(rows, row)
        if k == len(rows) or rows[k] != row:
            return default
        calls = self._read(self.ends[k - 1] if k else 0, self.ends[k])
        self.last = (row, calls)
        return calls

    def _read(self, start: int, end: int) -> tuple[Any, ...]:
        global _HostedCall
        HostedCall = _HostedCall
        if HostedCall is None:  # model.py imports this module's importer: not at import
            from traceview.capture.model import HostedCall

            _HostedCall = HostedCall
        values, q_ends, queries, shape = self.pool.values, self.q_ends, self.queries, self.shape
        # The ids decoded here, not through `Texts.get` (its one-row cache is a tuple made
        # per read): this runs for every call a report, the ledger or fidelity reads.
        ids = self.ids
        buf, starts, lens = ids.buf, ids.starts, ids.lens
        q0 = q_ends[start - 1] if start else 0
        out = []
        for i in range(start, end):
            n = lens[i]
            if n < 0:
                cid = None
            else:
                s = starts[i]
                try:
                    cid = buf[s:s + n].decode()
                except UnicodeDecodeError:  # a lone surrogate, stored as it came
                    cid = ids.get(i)
            q1 = q_ends[i]
            kind, status, evidence, include, detail = values[shape[i]]
            out.append(HostedCall(kind, cid, status, evidence, include,
                                  tuple([queries.get(j) for j in range(q0, q1)])
                                  if q1 > q0 else (), detail))
            q0 = q1
        return tuple(out)

    def span(self, row: int) -> tuple[int, int] | None:
        """Where row `row`'s calls are in the call columns, [start, end); None when the row
        has none there (no calls, or calls set out of order: read those with `get`)."""
        if self.changed and row in self.changed:
            return None
        rows = self.rows
        k = bisect_left(rows, row)
        if k == len(rows) or rows[k] != row:
            return None
        return (self.ends[k - 1] if k else 0), self.ends[k]

    def picked(self, row: int, evidence: str) -> list[tuple[str, str | None]]:
        """(type, id) of each of row `row`'s calls whose evidence is `evidence`, in order,
        without making the calls (the ledger asks this of every turn with calls)."""
        span = self.span(row)
        if span is None:
            calls = self.get(row, ())
            return [(c.type, c.id) for c in calls if c.evidence == evidence]
        values, shape, ids = self.pool.values, self.shape, self.ids
        out = []
        for i in range(*span):
            v = values[shape[i]]
            if v[2] == evidence:
                out.append((v[0], ids.get(i)))
        return out

    def has(self, row: int, evidence: str) -> bool:
        """Whether any of row `row`'s calls has evidence `evidence` (no call made)."""
        span = self.span(row)
        if span is None:
            return any(c.evidence == evidence for c in self.get(row, ()))
        values, shape = self.pool.values, self.shape
        return any(values[shape[i]][2] == evidence for i in range(*span))

    def __getitem__(self, row: int) -> Any:
        value = self.get(row, _GONE)
        if value is _GONE:
            raise KeyError(row)
        return value

    def __contains__(self, row: object) -> bool:
        if type(row) is not int:
            return False
        if self.changed:
            value = self.changed.get(row)
            if value is not None:
                return value is not _GONE
        rows = self.rows  # found without making the row's calls
        k = bisect_left(rows, row)
        return k < len(rows) and rows[k] == row

    def keys(self) -> list[int]:
        changed = self.changed
        rows = {r for r in self.rows if r not in changed}
        rows.update(r for r, v in changed.items() if v is not _GONE)
        return sorted(rows)

    def __iter__(self) -> Iterator[int]:
        return iter(self.keys())

    def items(self) -> Iterator[tuple[int, Any]]:
        for row in self.keys():
            yield row, self[row]

    def __len__(self) -> int:
        return len(self.rows) if not self.changed else len(self.keys())

    def __bool__(self) -> bool:
        return len(self) > 0

    def nbytes(self) -> int:
        n = 0
        for name in ("rows", "ends", "q_ends", "shape"):
            col = getattr(self, name)
            n += itemsize(col) * len(col)
        for texts in (self.ids, self.queries):
            n += len(texts.buf) + texts.starts.itemsize * len(texts.starts) \
                + texts.lens.itemsize * len(texts.lens)
        return n
