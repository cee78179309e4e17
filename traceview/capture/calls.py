"""The hosted calls of a capture's responses, in columns: one row per call.

Kept as objects, a response's hosted calls cost a dict entry, a tuple, a HostedCall, a tuple
of queries and a str per id and query: the largest part of the turn table on a capture of
hosted-state turns. Here each call's shape (its type, status, evidence, include flag,
detail and an image's size and quality, together) is one number into the side's pool, and
its id and queries sit as UTF-8 in byte buffers (texts.Texts).

`Calls` reads like the dict by response row it replaces (`get(row, ())`, `calls[row] = …`,
`pop`, `in`, `items`): the row views (capture/model.py) and the analysis's bindings use it
so. A read makes the row's HostedCall objects again (the last row read is kept: a report
reads one turn's calls a few times in a row).

Rows are stored in the order they are added, which is row order (a side adds rows at its
end, a worker's chunk is appended after them). A row set again or out of order (a later
retrieve replaces a turn's outcome) is kept in `changed`, which is read first.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from traceview.capture.texts import Pool, Texts

_GONE = object()  # in `changed`: the row's calls were removed
Brief = tuple[str, str | None, str, str | None]  # a call's type, id, evidence, include flag


@dataclass(slots=True)
class HostedCall:
    """One output item the provider executed itself, and what it left behind. Reports
    turn it into a dict (`to_dict`) only when they write it."""

    type: str
    id: str | None
    status: str | None
    evidence: str  # captured | empty | missing
    include: str | None  # the include flag that captures the evidence, if one exists
    queries: tuple[str, ...] = ()
    detail: str | None = None  # one line: what was found, or why nothing was
    size: str | None = None  # image_generation_call: the size it is billed by ("1024x1024")
    quality: str | None = None  # image_generation_call: low | medium | high | auto

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "id": self.id,
            "status": self.status,
            "evidence": self.evidence,
            "include": self.include,
            "queries": list(self.queries),
            "detail": self.detail,
        }


class Calls:
    """Every response row's hosted calls (see the module's docstring)."""

    __slots__ = ("pool", "rows", "ends", "shape", "ids", "q_ends", "queries", "changed",
                 "last")

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.rows = array("i")  # the response rows that have calls, increasing
        self.ends = array("i")  # per row: one past its last call
        self.shape = array("i")  # per call: the pool number of its shape
        self.ids = Texts()
        self.q_ends = array("i")  # per call: one past its last query
        self.queries = Texts()
        self.changed: dict[int, Any] = {}  # row -> calls set out of order, or _GONE
        self.last: tuple[int, Any] = (-1, None)

    # ---- writing --------------------------------------------------------------------
    def __setitem__(self, row: int, calls: tuple[HostedCall, ...]) -> None:
        self.update([(row, calls)])

    def update(self, rows_calls: list[tuple[int, tuple[HostedCall, ...]]]) -> None:
        """Set each (row, calls) in turn, as `calls[row] = …` would. Rows after the last
        stored, in increasing order (a side's new rows), go to the columns together: their
        ids and queries in one append to each buffer, not one per row."""
        self.last = (-1, None)
        rows = self.rows
        number = self.pool.number
        n_queries = len(self.queries.lens)
        ids: list[str | None] = []
        queries: list[str] = []
        for row, calls in rows_calls:
            if self.changed or (rows and row <= rows[-1]) or not calls:
                self.changed[row] = calls if calls else _GONE
                continue
            for c in calls:
                self.shape.append(number((c.type, c.status, c.evidence, c.include, c.detail,
                                          c.size, c.quality)))
                n_queries += len(c.queries)
                self.q_ends.append(n_queries)
                ids.append(c.id)
                queries += c.queries
            rows.append(row)
            self.ends.append(len(self.shape))
        self.ids.add_all(ids)
        self.queries.add_all(queries)

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
        self.rows.extend(array("i", [r + base for r in other.rows]))
        self.ends.extend(array("i", [e + n_calls for e in other.ends]))
        self.q_ends.extend(array("i", [e + n_queries for e in other.q_ends]))
        self.shape.extend(array("i", [to_mine[n] for n in other.shape]))
        self.ids.extend(other.ids)
        self.queries.extend(other.queries)
        for row, calls in other.changed.items():
            self.changed[row + base] = calls

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

    def _read(self, start: int, end: int) -> tuple[HostedCall, ...]:
        values, q_ends, queries, shape, ids = (self.pool.values, self.q_ends, self.queries,
                                               self.shape, self.ids)
        q0 = q_ends[start - 1] if start else 0
        out = []
        for i in range(start, end):
            q1 = q_ends[i]
            kind, status, evidence, include, detail, size, quality = values[shape[i]]
            out.append(HostedCall(kind, ids.get(i), status, evidence, include,
                                  tuple([queries.get(j) or "" for j in range(q0, q1)]), detail,
                                  size, quality))
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

    def brief(self, row: int) -> list[Brief]:
        """(type, id, evidence, include flag) of each of row `row`'s calls, in order,
        without making the calls (what the ledger and a deposit's attribution read)."""
        span = self.span(row)
        if span is None:
            return [(c.type, c.id, c.evidence, c.include) for c in self.get(row, ())]
        values, shape, ids = self.pool.values, self.shape, self.ids
        out = []
        for i in range(*span):
            kind, _status, evidence, include = values[shape[i]][:4]
            out.append((kind, ids.get(i), evidence, include))
        return out

    def picked(self, row: int, evidence: str) -> list[tuple[str, str | None]]:
        """(type, id) of each of row `row`'s calls whose evidence is `evidence`, in order,
        without making the calls (the ledger asks this of every turn with calls)."""
        return [(kind, cid) for kind, cid, ev, _include in self.brief(row) if ev == evidence]

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
        return sum(col.itemsize * len(col) for col in (self.rows, self.ends, self.q_ends,
                                                       self.shape)) \
            + self.ids.nbytes() + self.queries.nbytes()
