"""The per-record summaries a capture is reduced to, and how they are read.

A capture can be gigabytes; only its turn table (capture/table.py) is kept: one row per
turn, in columns. Facts are made as plain records (RequestFacts, ResponseFacts), stored as
rows, and read back through small views (`turn.req.input_count`, `turn.res.status`).
Bodies stay in the file and are re-read through a RecordRef when someone asks for them.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from traceview.capture.calls import HostedCall
from traceview.capture.side_columns import Side
from traceview.capture.sides import (
    RequestFacts,
    RequestRow,
    ResponseFacts,
    ResponseRow,
    RowView,
)
from traceview.capture.table import TurnTable

__all__ = ["Attempt", "Exchange", "HostedCall", "Problem", "RecordRef", "RequestFacts",
           "RequestRow", "ResponseFacts", "ResponseRow", "Turn", "Turns", "new_turn"]


class RecordRef(NamedTuple):
    """Where one record line sits: enough to re-read it with one pread."""

    source: int
    offset: int
    length: int
    line: int


@dataclass(slots=True)
class Problem:
    """Something in a capture that could not be read as intended; never fatal."""

    source: str
    line: int
    kind: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "kind": self.kind,
                "message": self.message}


@dataclass(slots=True)
class Attempt:
    """One failed try of a turn that was then retried with the same input."""

    line: int
    status: str
    http_status: int | None
    error: str | None
    error_code: str | None
    elapsed_ms: int | None
    sent_ts: float | None = None  # the recorder's `ts` of its request: when it was sent
    limits: dict[str, str] | None = None  # Retry-After, x-ratelimit-* as the provider sent

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "status": self.status, "http_status": self.http_status,
                "error": self.error, "error_code": self.error_code,
                "elapsed_ms": self.elapsed_ms, "limits": self.limits}


class Turn:
    """One model call: a request with its response (either half may be missing).

    A view of one row of the capture's TurnTable (capture/table.py): its attributes read
    and write that row (`new_turn` makes the row). `req` and `res` are views of the row's
    facts (RequestRow, ResponseRow), None when that side is missing; assigning a
    RequestFacts/ResponseFacts record stores it as a new row of that side.

    `attempts` holds the failed tries before it that were retried with the same input
    (empty on almost every turn): they are part of this turn, not turns of their own.
    Two views of the same row are equal.
    """

    __slots__ = ("_t", "_r")

    def __init__(self, table: TurnTable, row: int) -> None:
        self._t = table
        self._r = row

    @property
    def table(self) -> TurnTable:
        return self._t

    @property
    def row(self) -> int:
        return self._r

    @property
    def index(self) -> int:
        return self._t.index[self._r]

    @property
    def source(self) -> int:
        return self._t.source[self._r]

    @property
    def api(self) -> str:
        t = self._t
        return t.pool.values[t.api[self._r]]  # type: ignore[no-any-return]

    @property
    def line(self) -> int:
        """The turn's first line: its request's, else its response's."""
        return self._t.line[self._r]

    def __repr__(self) -> str:
        return f"Turn(index={self.index}, line={self.line}, api={self.api!r})"

    @property
    def request(self) -> RecordRef | None:
        t, r = self._t, self._r
        src = t.req_source[r]
        return None if src < 0 else RecordRef(src, t.req_offset[r], t.req_length[r], t.line[r])

    @request.setter
    def request(self, ref: RecordRef | None) -> None:
        self._t.set_request(self._r, ref)

    @property
    def response(self) -> RecordRef | None:
        t, r = self._t, self._r
        src = t.res_source[r]
        return None if src < 0 else RecordRef(src, t.res_offset[r], t.res_length[r],
                                              t.res_line[r])

    @response.setter
    def response(self, ref: RecordRef | None) -> None:
        self._t.set_response(self._r, ref)

    # Reading a side makes a view; the last one made is kept on the table and handed out
    # again while the same row is asked for (a report reads one turn's facts a dozen times
    # in a row). Views hold no state but their row, so sharing one is safe.
    @property
    def req(self) -> RequestRow | None:
        t = self._t
        row = t.req_row[self._r]
        if row < 0:
            return None
        v = t.last_req
        if v is None or v._r != row:
            v = t.last_req = RequestRow(t.requests, row)
        return v  # type: ignore[no-any-return]

    @req.setter
    def req(self, facts: RequestFacts | RequestRow | int | None) -> None:
        self._t.req_row[self._r] = _row_of(self._t.requests, facts)

    @property
    def res(self) -> ResponseRow | None:
        t = self._t
        row = t.res_row[self._r]
        if row < 0:
            return None
        v = t.last_res
        if v is None or v._r != row:
            v = t.last_res = ResponseRow(t.responses, row)
        return v  # type: ignore[no-any-return]

    @res.setter
    def res(self, facts: ResponseFacts | ResponseRow | int | None) -> None:
        self._t.res_row[self._r] = _row_of(self._t.responses, facts)

    @property
    def notes(self) -> tuple[str, ...]:
        return self._t.notes.get(self._r, ())

    @notes.setter
    def notes(self, notes: tuple[str, ...]) -> None:
        _put(self._t.notes, self._r, notes)

    @property
    def attempts(self) -> tuple[Attempt, ...]:
        return self._t.attempts.get(self._r, ())

    @attempts.setter
    def attempts(self, attempts: tuple[Attempt, ...]) -> None:
        _put(self._t.attempts, self._r, attempts)

    @property
    def response_id(self) -> str | None:
        res = self.res
        return res.response_id if res else None

    @property
    def conversation_id(self) -> str | None:
        req = self.req
        if req and req.conversation_id:
            return req.conversation_id  # type: ignore[no-any-return]
        res = self.res
        return res.conversation_id if res else None

    @property
    def previous_response_id(self) -> str | None:
        req = self.req
        return req.previous_response_id if req else None

    @property
    def model(self) -> str | None:
        res = self.res
        if res and res.model:
            return res.model  # type: ignore[no-any-return]
        req = self.req
        return req.model if req else None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Turn) and other._t is self._t and other._r == self._r

    def __hash__(self) -> int:
        return hash((id(self._t), self._r))


def new_turn(index: int, source: int, line: int, api: str,
             request: RecordRef | None = None, response: RecordRef | None = None,
             req: RequestFacts | RequestRow | int | None = None,
             res: ResponseFacts | ResponseRow | int | None = None,
             notes: tuple[str, ...] = (), *, table: TurnTable | None = None) -> Turn:
    """A turn as a new row of `table` (a new table when none is given): its request's
    line is its first line when it has a request."""
    t = table if table is not None else TurnTable()
    req_row = _row_of(t.requests, req)
    r = t.append_turn(index, source, line if request is None else request.line, api,
                      request, req_row)
    turn = Turn(t, r)
    if response is not None:
        turn.response = response
    if res is not None:
        turn.res = res
    if notes:
        turn.notes = notes
    return turn


class Turns(Sequence[Turn]):
    """A capture's turns in order, as a sequence of views made when read (a list of one
    Turn object a turn would cost ~84 bytes a turn).

    Position i is row i of the table while every turn appended was the table's next row
    (`rows` None: nothing is stored a turn). A retried turn replaces the turn it retries
    (`turns[-1] = retry`, a new row), and from then on each position's row is kept in an
    array. Reading gives equal (`==`), not identical, views.
    """

    __slots__ = ("table", "rows", "n")

    def __init__(self, table: TurnTable) -> None:
        self.table = table
        self.rows: array[int] | None = None  # None: position i is row i, for i < n
        self.n = 0

    def __len__(self) -> int:
        rows = self.rows
        return self.n if rows is None else len(rows)

    def _explicit(self) -> array[int]:
        rows = self.rows
        if rows is None:
            rows = self.rows = array("i", range(self.n))
        return rows

    def append(self, turn: Turn) -> None:
        if turn._t is not self.table:
            raise ValueError("a turn of another table")
        if self.rows is None and turn._r == self.n:
            self.n += 1
        else:
            self._explicit().append(turn._r)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("turn position out of range")
        rows = self.rows
        return Turn(self.table, i if rows is None else rows[i])

    def __setitem__(self, i: int, turn: Turn) -> None:
        if turn._t is not self.table:
            raise ValueError("a turn of another table")
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("turn position out of range")
        if self.rows is None and turn._r == i:
            return
        self._explicit()[i] = turn._r

    def __iter__(self) -> Iterator[Turn]:
        table, rows = self.table, self.rows
        for r in (range(self.n) if rows is None else rows):
            yield Turn(table, r)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Turns | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other,
                                                                        strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{len(self)} turns>"


def _row_of(side: Side, facts: Any) -> int:
    """The row of `side` that holds `facts`: a plain record is stored as a new row, a row
    number (a worker's, already appended) or a view of this side is used as it is."""
    if facts is None:
        return -1
    if type(facts) is int:
        return facts
    if isinstance(facts, RowView) and facts._s is side:
        return facts._r
    return side.add(facts)


def _put(d: dict[int, Any], row: int, value: Any) -> None:
    if value:
        d[row] = value
    else:
        d.pop(row, None)


@dataclass(slots=True)
class Exchange:
    """A recorded call that is not a model turn: listings, retrieves, deletes, creates."""

    index: int
    source: int
    line: int
    method: str
    path: str
    query: str
    request: RecordRef | None = None
    response: RecordRef | None = None
    status_code: int | None = None
    object: str | None = None
    conversation_id: str | None = None
    response_id: str | None = None
    item_count: int | None = None
    has_more: bool | None = None
    error: str | None = None

    @property
    def endpoint(self) -> str:
        return f"{self.method} {self.path}" + (f"?{self.query}" if self.query else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "line": self.line,
            "endpoint": self.endpoint,
            "status_code": self.status_code,
            "object": self.object,
            "conversation": self.conversation_id,
            "response_id": self.response_id,
            "item_count": self.item_count,
            "has_more": self.has_more,
            "error": self.error,
        }
