"""The turn table: a capture's per-turn facts kept in columns, one row per turn.

A large capture holds a hundred thousand turns; as objects each would cost a kilobyte. Here
every column is declared once, in a schema (side_columns.py `Col`: its name, its kind, its
fixed array typecode and what None is stored as), and holds one item per row: counts as 8-byte ints
(4-byte where one record's length bounds them), repeated strings and tuples (model, status,
conversation id, item kinds) as numbers into one shared `Pool`, strings unique to a row
(response id, user text excerpt) as UTF-8 in one buffer (`Texts`), booleans as bits of one
flags column. The rare things (hosted calls, the seldom-set `extra` facts, notes, attempts)
are dicts keyed by row. No column is ever replaced by a wider one: a value a column cannot
hold is unknown by the schema's rule before it is stored.

Screens and reports read a turn through the small views of capture/model.py
(`turn.req.input_count`); the hot analysis passes read the columns at a row.

Columns are also what a worker process sends back (capture/parallel.py): arrays pickle as
raw bytes, and `extend` appends a worker's rows to the main table in one copy per column.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

from traceview.capture.calls import Calls
from traceview.capture.side_columns import (
    NO_CREATED,
    RequestSide,
    ResponseSide,
    flag_bit,
)
from traceview.capture.texts import Pool, Texts

__all__ = ["Calls", "Facts", "Pool", "Texts", "TurnTable"]


class Facts:
    """A request side and a response side sharing one pool: what a worker sends back for
    its chunk, and what the main table keeps."""

    # Columns are never replaced, so a binding of them never goes stale: readers that
    # compare this (or `layout.version`) to their binding's always find it unchanged.
    version = 0

    def __init__(self) -> None:
        self.pool = Pool()
        self.requests = RequestSide(self.pool)
        self.responses = ResponseSide(self.pool)

    @property
    def layout(self) -> Facts:
        return self


_REQ_SCANNED = flag_bit(RequestSide, "scanned")
_REQ_STORE_SET = flag_bit(RequestSide, "raw_store_set")
_REQ_STORE_VALUE = flag_bit(RequestSide, "raw_store_value")
_REQ_FACTS_STORE = flag_bit(RequestSide, "store_set")
_RES_SCANNED = flag_bit(ResponseSide, "scanned")
_RES_FACTS_STORE = flag_bit(ResponseSide, "store_set")

# A record's place in its source (a record is at most MAX_LINE_BYTES long), and a row of a
# side: -1 when the turn has none.
_TURN_SCHEMA = (("index", "i"), ("source", "i"), ("api", "i"), ("line", "q"),
                ("req_source", "i"), ("req_offset", "q"), ("req_length", "i"),
                ("res_source", "i"), ("res_offset", "q"), ("res_length", "i"),
                ("res_line", "q"), ("req_row", "i"), ("res_row", "i"))


class TurnTable(Facts):
    """Every turn of a capture: where its records are, its index and API, and which row of
    each side holds its facts (-1: that side is missing). `line` is the request's line
    when there is one, else the turn's own."""

    COLUMNS = tuple(name for name, _ in _TURN_SCHEMA)

    def __init__(self) -> None:
        super().__init__()
        for name, typecode in _TURN_SCHEMA:
            setattr(self, name, array(typecode))
        self.notes: dict[int, tuple[str, ...]] = {}
        self.attempts: dict[int, tuple[Any, ...]] = {}
        self.last_req: Any = None  # the last row views made (model.Turn.req / .res)
        self.last_res: Any = None
        self._unanswered = (self.res_source, self.res_offset, self.res_length, self.res_line)

    # The columns, for the type checker (set from _TURN_SCHEMA above).
    index: array[int]
    source: array[int]
    api: array[int]
    line: array[int]
    req_source: array[int]
    req_offset: array[int]
    req_length: array[int]
    res_source: array[int]
    res_offset: array[int]
    res_length: array[int]
    res_line: array[int]
    req_row: array[int]
    res_row: array[int]

    def __len__(self) -> int:
        return len(self.index)

    def append_turn(self, index: int, source: int, line: int, api: str,
                    request: Sequence[int] | None = None, req_row: int = -1) -> int:
        """A new row: the turn's index, source and first line, its API, where its request
        record is (source, offset, length, line) and the request side's row; its number."""
        r = len(self.index)
        self.index.append(index)
        self.source.append(source)
        self.api.append(self.pool.number(api))
        self.line.append(line)
        if request is None:
            request = (-1, -1, -1)
        self.req_source.append(request[0])
        self.req_offset.append(request[1])
        self.req_length.append(request[2])
        for col in self._unanswered:  # the response's columns: set when it arrives
            col.append(-1)
        self.req_row.append(req_row)
        self.res_row.append(-1)
        return r

    def set_request(self, r: int, ref: Sequence[int] | None) -> None:
        if ref is None:
            self.req_source[r] = -1
            return
        self.req_source[r], self.req_offset[r], self.req_length[r], self.line[r] = ref

    def set_response(self, r: int, ref: Sequence[int] | None) -> None:
        if ref is None:
            self.res_source[r] = -1
            return
        self.res_source[r], self.res_offset[r], self.res_length[r], self.res_line[r] = ref

    def seen(self, r: int) -> tuple[tuple[bytes, ...], tuple[bytes, ...], float | None,
                                     bool | None, int | None] | None:
        """What the objects inventory reads in turn `r`'s record bytes, as found when its
        lines were read (capture/scan.py): (request ids, response ids, the response's
        created_at, the request's store flag in its bytes, the response's line or None
        when it has none). None when a record of the turn was not scanned (a row made from a
        rebuilt stream, a later retrieve, a request body that is no object), or when the
        inventory would look for a store flag in the response's bytes (a stored response
        whose facts hold no store flag on either side, nor its request's bytes): the caller
        reads its bytes again."""
        req_ids: tuple[bytes, ...] = ()
        res_ids: tuple[bytes, ...] = ()
        when = store = line = None
        facts_store = 0
        values = self.pool.values
        if self.res_source[r] >= 0:
            line, row, side = self.res_line[r], self.res_row[r], self.responses
            if row < 0 or not side.flags[row] & _RES_SCANNED:
                return None
            res_ids = values[side.cols["quoted_ids"][row]]
            c = side.cols["raw_created_at"][row]
            when = None if c == NO_CREATED else c
            facts_store = side.flags[row] & _RES_FACTS_STORE
        if self.req_source[r] >= 0:
            row, q = self.req_row[r], self.requests
            if row < 0 or not q.flags[row] & _REQ_SCANNED:
                return None
            bits = q.flags[row]
            req_ids = values[q.cols["quoted_ids"][row]]
            if bits & _REQ_STORE_SET:
                store = bool(bits & _REQ_STORE_VALUE)
            facts_store |= bits & _REQ_FACTS_STORE
        if store is None and not facts_store and line is not None and \
                values[self.api[r]] == "responses" and \
                self.responses.cols["response_id"].lens[self.res_row[r]] > 0:
            return None
        return req_ids, res_ids, when, store, line

    def request_ids(self, r: int) -> tuple[bytes, ...] | None:
        """The object ids quoted in turn `r`'s request record, as found when its lines were
        read (`seen`'s first); None when the turn has no request or it was not scanned."""
        row = self.req_row[r] if self.req_source[r] >= 0 else -1
        q = self.requests
        if row < 0 or not q.flags[row] & _REQ_SCANNED:
            return None
        ids: tuple[bytes, ...] = self.pool.values[q.cols["quoted_ids"][row]]
        return ids

    def nbytes(self) -> int:
        """Bytes held by the columns (not the dicts of rare values, nor the string pool)."""
        n = self.requests.nbytes() + self.responses.nbytes()
        for name in self.COLUMNS:
            col = getattr(self, name)
            n += col.itemsize * len(col)
        return n
