"""The per-record summaries a capture is reduced to, and how they are read.

A capture can be gigabytes; only its turn table (capture/table.py) is kept: one row per
turn, in columns. Facts are made as plain records (RequestFacts, ResponseFacts), stored as
rows, and read back through small views (`turn.req.input_count`, `turn.res.status`).
Bodies stay in the file and are re-read through a RecordRef when someone asks for them.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from traceview.capture.calls import HostedCall
from traceview.capture.table import (
    LIMIT,
    NO_CREATED,
    SET,
    UNKNOWN,
    Col,
    RequestSide,
    ResponseSide,
    Side,
    TurnTable,
)

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


def _known(value: int | None) -> int | None:
    """A nullable count, or None when it is unusable (negative, absurd): as the table keeps it."""
    return value if value is not None and 0 <= value < LIMIT else None


class RequestFacts:
    """What the request side of a turn says, read once from its body: a plain record, made
    by capture/facts.py, kept only until it is stored as a row of the turn table (then
    `turn.req` reads that row). Positional order is the constructor's, as in a dataclass.
    Counts are checked when stored (table.count): an unusable one reads back as unknown."""

    __slots__ = ("api", "model", "conversation_id", "previous_response_id", "include",
                 "tools_offered", "request_bytes", "input_bytes", "input_count",
                 "new_input_tokens", "user_text", "user_words", "first_user_sig",
                 "compaction_input", "compaction_trigger", "context_management", "truncation",
                 "stream", "background", "store_set", "store_value", "instructions", "extra",
                 "scanned", "quoted_ids", "raw_store_set", "raw_store_value")

    def __init__(self, api: str = "responses", model: str | None = None,
                 conversation_id: str | None = None, previous_response_id: str | None = None,
                 include: tuple[str, ...] = (), tools_offered: tuple[str, ...] = (),
                 request_bytes: int | None = None, input_bytes: int = 0, input_count: int = 0,
                 new_input_tokens: int = 0, user_text: str | None = None,
                 user_words: int | None = None, first_user_sig: int | None = None,
                 compaction_input: bool = False, compaction_trigger: bool = False,
                 context_management: bool = False, truncation: str | None = None,
                 stream: bool = False, background: bool = False) -> None:
        self.api = api
        self.model = model
        self.conversation_id = conversation_id
        self.previous_response_id = previous_response_id
        self.include = include
        self.tools_offered = tools_offered
        self.request_bytes = request_bytes
        self.input_bytes = input_bytes
        self.input_count = input_count
        self.new_input_tokens = new_input_tokens
        # The first USER_TEXT_MAX characters: the "…" that marks a cut is added where the
        # text is read.
        self.user_text = user_text
        self.user_words = user_words
        self.first_user_sig = first_user_sig
        self.compaction_input = compaction_input
        self.compaction_trigger = compaction_trigger
        self.context_management = context_management
        self.truncation = truncation
        self.stream = stream
        self.background = background
        self.store_set = self.store_value = self.instructions = False
        # Seldom-set facts (non-text input, compaction item keys, call ids answered, function
        # names offered): a dict on the turns that have any, None on the rest.
        self.extra: dict[str, Any] | None = None
        # What the objects inventory reads in the record's bytes (capture/scan.py), set
        # (`scanned`) when the line was read with its bytes at hand: the quoted vector
        # store / file ids and the first `"store": true|false`.
        self.scanned = self.raw_store_set = self.raw_store_value = False
        self.quoted_ids: tuple[bytes, ...] = ()

    @property
    def store(self) -> bool | None:
        """The request's `store` flag, or None when it did not send one (provider default)."""
        return self.store_value if self.store_set else None

    @property
    def has_sig(self) -> bool:
        return self.first_user_sig is not None

    def __repr__(self) -> str:
        return (f"RequestFacts(api={self.api!r}, model={self.model!r}, "
                f"request_bytes={self.request_bytes}, input_count={self.input_count})")


class ResponseFacts:
    """What the response side of a turn says, read once from its body: a plain record
    until it is stored as a row (see RequestFacts)."""

    __slots__ = ("response_id", "object", "status", "http_status", "model", "conversation_id",
                 "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens",
                 "elapsed_ms", "output_bytes", "output_types", "hosted_calls",
                 "compaction_output", "cache_miss_reason", "incomplete_reason", "error",
                 "stream_events", "stream_cut", "web_search_requests", "input_transformations",
                 "file_search_requests", "started_at", "store_set", "store_value", "refusal",
                 "service_tier", "fingerprint", "error_code", "extra", "scanned", "quoted_ids",
                 "raw_created_at")

    def __init__(self, response_id: str | None = None, object: str | None = None,  # noqa: A002
                 status: str = "unknown", http_status: int | None = None,
                 model: str | None = None, conversation_id: str | None = None,
                 input_tokens: int | None = None, cached_tokens: int | None = None,
                 output_tokens: int | None = None, reasoning_tokens: int | None = None,
                 elapsed_ms: int | None = None, output_bytes: int = 0,
                 output_types: tuple[str, ...] = (),
                 hosted_calls: tuple[HostedCall, ...] = (), compaction_output: bool = False,
                 cache_miss_reason: str | None = None, incomplete_reason: str | None = None,
                 error: str | None = None, stream_events: int | None = None,
                 stream_cut: bool = False, web_search_requests: int | None = None,
                 input_transformations: int = 0) -> None:
        self.response_id = response_id
        self.object = object
        self.status = status
        self.http_status = http_status
        self.model = model
        self.conversation_id = conversation_id
        self.input_tokens = input_tokens
        self.cached_tokens = cached_tokens
        self.output_tokens = output_tokens
        self.reasoning_tokens = reasoning_tokens
        self.elapsed_ms = elapsed_ms
        self.output_bytes = output_bytes
        self.output_types = output_types
        self.hosted_calls = hosted_calls
        self.compaction_output = compaction_output
        self.cache_miss_reason = cache_miss_reason
        self.incomplete_reason = incomplete_reason
        self.error = error
        self.stream_events = stream_events
        self.stream_cut = stream_cut
        # Read back before it is stored (facts._response_common): unusable reads as unknown.
        self.web_search_requests = _known(web_search_requests)
        self.input_transformations = input_transformations
        self.file_search_requests: int | None = None
        # When the turn started, whole seconds since the epoch (what `created_at` holds):
        # the body's `created_at` (chat: `created`), else the record's `ts` less the
        # elapsed time. Set after construction.
        self.started_at: int | None = None
        self.store_set = self.store_value = self.refusal = False
        self.service_tier: str | None = None
        self.fingerprint: str | None = None  # chat system_fingerprint
        self.error_code: str | None = None
        # Seldom-set facts (unknown item types, action items, chat finish reasons, stored
        # headers, compaction item keys): a dict on the responses that have any.
        self.extra: dict[str, Any] | None = None
        # As RequestFacts, over the record's first scan.HEAD_BYTES (all of it with hosted
        # calls), with its first `"created_at": <number>`; not its store flag (the rare turn
        # whose facts hold none on either side is read again: TurnTable.seen).
        self.scanned = False
        self.quoted_ids: tuple[bytes, ...] = ()
        self.raw_created_at: int | float | None = None  # whole seconds: an int (scan.py)

    @property
    def store(self) -> bool | None:
        return self.store_value if self.store_set else None

    def __repr__(self) -> str:
        return (f"ResponseFacts(response_id={self.response_id!r}, status={self.status!r}, "
                f"input_tokens={self.input_tokens}, output_tokens={self.output_tokens})")


# ---- reading a row ------------------------------------------------------------------------
# A row view reads one row of a side of the turn table (capture/table.py) under the same
# names as the plain record; setting a name writes the row. Its properties are made from
# the side's SCHEMA, so a field is named once.

def _property(c: Col, bit: int) -> property:
    """How a view reads and writes column `c` (`bit`: its place among the side's flags)."""
    name, null = c.name, c.null
    get: Callable[[Any], Any]
    put: Callable[[Any, Any], None]
    if c.kind == "count":
        store = c.store
        assert store is not None
        if null == UNKNOWN:
            def get(v: Any) -> Any:
                n = v._s.cols[name][v._r]
                return None if n < 0 else n
        else:
            def get(v: Any) -> Any:
                return v._s.cols[name][v._r]

        def put(v: Any, value: Any) -> None:
            v._s.cols[name][v._r] = store(value)
    elif c.kind == "pooled":
        def get(v: Any) -> Any:
            s = v._s
            return s.pool.values[s.cols[name][v._r]]

        def put(v: Any, value: Any) -> None:
            v._s.cols[name][v._r] = v._s.pool.number(value)
    elif c.kind == "text":
        def get(v: Any) -> Any:
            return v._s.cols[name].get(v._r)

        def put(v: Any, value: Any) -> None:
            v._s.cols[name].set(v._r, value)
    elif c.kind == "flag":
        mask = 1 << bit

        def get(v: Any) -> Any:
            return bool(v._s.flags[v._r] & mask)

        def put(v: Any, value: Any) -> None:
            flags = v._s.flags
            flags[v._r] = flags[v._r] | mask if value else flags[v._r] & ~mask
    else:  # sparse
        is_set = SET[c.how]

        def get(v: Any) -> Any:
            return v._s.dicts[name].get(v._r, null)

        def put(v: Any, value: Any) -> None:
            if value is not None and is_set(value):
                v._s.dicts[name][v._r] = value
            else:
                v._s.dicts[name].pop(v._r, None)
    return property(get, put)


def _row_view(name: str, side: type[Side], base: type) -> type:
    """A class whose instances read (and write) one row of `side`."""
    ns: dict[str, Any] = {"__slots__": (), "__repr__": base.__repr__}
    flags = side.FLAGS
    for c in side.SCHEMA:
        if c.kind != "number":  # the few of their own, below
            ns[c.name] = _property(c, flags.index(c.name) if c.kind == "flag" else -1)
    return type(name, (_RowView,), ns)


class _RowView:
    __slots__ = ("_s", "_r")

    def __init__(self, side: Side, row: int) -> None:
        self._s = side
        self._r = row

    @property
    def store(self) -> bool | None:
        return self.store_value if self.store_set else None  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, _RowView) and type(other) is type(self)
                and other._s is self._s and other._r == self._r)

    def __hash__(self) -> int:
        return hash((id(self._s), self._r))


class RequestRow(_row_view("RequestRowBase", RequestSide, RequestFacts)):  # type: ignore[misc]
    __slots__ = ()

    @property
    def first_user_sig(self) -> int | None:
        return self._s.cols["first_user_sig"][self._r] if self.has_sig else None

    @first_user_sig.setter
    def first_user_sig(self, value: int | None) -> None:
        self._s.cols["first_user_sig"][self._r] = value or 0
        self.has_sig = value is not None


class ResponseRow(_row_view("ResponseRowBase", ResponseSide, ResponseFacts)):  # type: ignore[misc]
    __slots__ = ()

    @property
    def raw_created_at(self) -> float | None:
        c = self._s.cols["raw_created_at"][self._r]
        return None if c == NO_CREATED else c

    @raw_created_at.setter
    def raw_created_at(self, value: float | None) -> None:
        self._s.cols["raw_created_at"][self._r] = NO_CREATED if value is None else float(value)


@dataclass(slots=True)
class Attempt:
    """One failed try of a turn that was then retried with the same input."""

    line: int
    status: str
    http_status: int | None
    error: str | None
    error_code: str | None
    elapsed_ms: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "status": self.status, "http_status": self.http_status,
                "error": self.error, "error_code": self.error_code,
                "elapsed_ms": self.elapsed_ms}


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

    def __setitem__(self, i: int, turn: Turn) -> None:  # type: ignore[override]
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
    if isinstance(facts, _RowView) and facts._s is side:
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

    def to_dict(self) -> dict[str, object]:
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
