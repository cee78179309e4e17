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

from traceview.capture.table import (
    LIMIT,
    NO_CREATED,
    SET,
    SIGNED,
    RequestSide,
    ResponseSide,
    Side,
    TurnTable,
    count,
    count0,
    created,
)


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
class HostedCall:
    """One output item the provider executed itself, and what it left behind.

    A slots object, not a dict: a large capture holds one per hosted call. Reports turn
    it into a dict (`to_dict`) only when they write it.
    """

    type: str
    id: str | None
    status: str | None
    evidence: str  # captured | empty | missing
    include: str | None  # the include flag that captures the evidence, if one exists
    queries: tuple[str, ...] = ()
    detail: str | None = None  # one line: what was found, or why nothing was

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
# names as the plain record; setting a name writes the row. Properties are made from the
# side's field lists, so a field is named once.

def _getter(name: str, body: str, **consts: Any) -> Any:
    """A getter `get(v)` compiled with the column's attribute name written in it (a closure
    over the name and a dict lookup cost a third more a read: views are read a few hundred
    thousand times in a report)."""
    ns: dict[str, Any] = dict(consts)
    exec(compile(f"def get(v):\n    {body}\n", f"<view {name}>", "exec"), ns)  # noqa: S102
    return ns["get"]


def _count_property(name: str, nullable: bool) -> property:
    if nullable:
        get = _getter(name, f"n = v._s._c_{name}[v._r]\n    return None if n < 0 else n")
    else:
        get = _getter(name, f"return v._s._c_{name}[v._r]")

    store = count if nullable else count0

    def put(v: Any, value: int | None) -> None:
        v._s.put(name, v._r, store(value))

    return property(get, put)


def _pooled_property(name: str) -> property:
    get = _getter(name, f"s = v._s\n    return s._pv[s._c_{name}[v._r]]")

    def put(v: Any, value: Any) -> None:
        s = v._s
        s.put(name, v._r, s.pool.number(value))

    return property(get, put)


def _text_property(name: str) -> property:
    get = _getter(name, f"return v._s._c_{name}.get(v._r)")

    def put(v: Any, value: str | None) -> None:
        v._s.cols[name].set(v._r, value)

    return property(get, put)


def _flag_property(bit: int) -> property:
    mask = 1 << bit
    get = _getter(f"bit {bit}", f"return bool(v._s.flags[v._r] & {mask})")

    def put(v: Any, value: bool) -> None:
        flags = v._s.flags
        flags[v._r] = flags[v._r] | mask if value else flags[v._r] & ~mask

    return property(get, put)


def _sparse_property(name: str, default: Any, how: str) -> property:
    is_set = SET[how]
    get = _getter(name, f"return v._s._d_{name}.get(v._r, default)", default=default)

    def put(v: Any, value: Any) -> None:
        if value is not None and is_set(value):
            v._s.dicts[name][v._r] = value
        else:
            v._s.dicts[name].pop(v._r, None)

    return property(get, put)


def _row_view(name: str, side: type[Side]) -> type:
    """A class whose instances read (and write) one row of `side`."""
    ns: dict[str, Any] = {"__slots__": ("_s", "_r")}
    for field_name, nullable in side.COUNTS:
        ns[field_name] = _count_property(field_name, nullable)
    for field_name in side.POOLED:
        ns[field_name] = _pooled_property(field_name)
    for field_name in side.TEXTS:
        ns[field_name] = _text_property(field_name)
    for i, field_name in enumerate(side.FLAGS):
        ns[field_name] = _flag_property(i)
    for field_name, default, how in side.SPARSE:
        ns[field_name] = _sparse_property(field_name, default, how)
    return type(name, (_RowView,), ns)


class _RowView:
    __slots__ = ()
    _s: Any
    _r: int

    def __init__(self, side: Side, row: int) -> None:
        self._s = side
        self._r = row

    @property
    def store(self) -> bool | None:
        return self.store_value if self.store_set else None  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        return (type(other) is type(self) and other._s is self._s  # type: ignore[attr-defined]
                and other._r == self._r)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((id(self._s), self._r))


RequestRow = _row_view("RequestRow", RequestSide)
ResponseRow = _row_view("ResponseRow", ResponseSide)


def _first_user_sig(v: Any) -> int | None:
    return v._s.cols["first_user_sig"][v._r] if v.has_sig else None


def _put_first_user_sig(v: Any, value: int | None) -> None:
    v._s.cols["first_user_sig"][v._r] = value or 0
    v.has_sig = value is not None


RequestRow.first_user_sig = property(_first_user_sig, _put_first_user_sig)  # type: ignore[attr-defined]


def _raw_created_at(v: Any) -> float | None:
    c = v._s.cols["raw_created_at"][v._r]
    return None if c == NO_CREATED else float(c)  # whole seconds are stored as ints


def _put_raw_created_at(v: Any, value: float | None) -> None:
    v._s.put("raw_created_at", v._r, created(value))


ResponseRow.raw_created_at = property(_raw_created_at, _put_raw_created_at)  # type: ignore[attr-defined]
RequestRow.__repr__ = RequestFacts.__repr__  # type: ignore[method-assign]
ResponseRow.__repr__ = ResponseFacts.__repr__  # type: ignore[method-assign]


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


_NO_REF = (-1, -1, -1)  # a turn's request columns when it has no request record


class Turn:
    """One model call: a request with its response (either half may be missing).

    A view of one row of the capture's TurnTable (capture/table.py): its attributes read
    and write that row. `req` and `res` are views of the row's facts (RequestRow,
    ResponseRow), None when that side is missing; assigning a RequestFacts/ResponseFacts
    record stores it as a new row.

    `attempts` holds the failed tries before it that were retried with the same input
    (empty on almost every turn): they are part of this turn, not turns of their own.
    """

    __slots__ = ("_t", "_r")

    def __init__(self, index: int, source: int, line: int, api: str,
                 request: RecordRef | None = None, response: RecordRef | None = None,
                 req: RequestFacts | None = None, res: ResponseFacts | None = None,
                 notes: tuple[str, ...] = (), *, table: TurnTable | None = None) -> None:
        t = table if table is not None else TurnTable()
        self._t = t
        r = self._r = len(t.index)
        n = t.pool.numbers.get(api)
        if n is None:
            n = t.pool.number(api)
        if request is not None:  # the request's columns written as they are made
            line, at = request.line, request
        else:
            at = _NO_REF
        try:  # a value too wide for its column: all of the row again, the slow way
            t.index.append(index)
            t.source.append(source)
            t.api.append(n)
            t.line.append(line)
            t.req_source.append(at[0])
            t.req_offset.append(at[1])
            t.req_length.append(at[2])
            t.res_source.append(-1)
            t.res_offset.append(-1)
            t.res_length.append(-1)
            t.res_line.append(-1)
            t.req_row.append(-1)
            t.res_row.append(-1)
        except OverflowError:
            t.append_row(r, (index, source, n, line, at[0], at[1], at[2], -1, -1, -1, -1,
                             -1, -1))
        if response is not None:
            self.response = response
        if req is not None:
            self.req = req
        if res is not None:
            self.res = res
        if notes:
            self.notes = notes

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
        return t.pool.values[t.api[self._r]]

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
        t, r = self._t, self._r
        if ref is None:
            t.req_source[r] = -1
            return
        try:
            t.req_source[r], t.req_offset[r], t.req_length[r] = ref.source, ref.offset, \
                ref.length
            t.line[r] = ref.line
        except OverflowError:  # a column too narrow for the value: widened
            for name, value in zip(("req_source", "req_offset", "req_length", "line"),
                                   (ref.source, ref.offset, ref.length, ref.line), strict=True):
                t.put(name, r, value)

    @property
    def response(self) -> RecordRef | None:
        t, r = self._t, self._r
        src = t.res_source[r]
        return None if src < 0 else RecordRef(src, t.res_offset[r], t.res_length[r],
                                              t.res_line[r])

    @response.setter
    def response(self, ref: RecordRef | None) -> None:
        t, r = self._t, self._r
        if ref is None:
            t.res_source[r] = -1
            return
        try:
            t.res_source[r], t.res_offset[r], t.res_length[r] = ref.source, ref.offset, \
                ref.length
            t.res_line[r] = ref.line
        except OverflowError:
            for name, value in zip(("res_source", "res_offset", "res_length", "res_line"),
                                   (ref.source, ref.offset, ref.length, ref.line), strict=True):
                t.put(name, r, value)

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
        return v

    @req.setter
    def req(self, facts: RequestFacts | RequestRow | int | None) -> None:
        t = self._t
        row = _row_of(t.requests, facts)
        try:
            t.req_row[self._r] = row
        except OverflowError:
            t.put("req_row", self._r, row)

    @property
    def res(self) -> ResponseRow | None:
        t = self._t
        row = t.res_row[self._r]
        if row < 0:
            return None
        v = t.last_res
        if v is None or v._r != row:
            v = t.last_res = ResponseRow(t.responses, row)
        return v

    @res.setter
    def res(self, facts: ResponseFacts | ResponseRow | int | None) -> None:
        t = self._t
        row = _row_of(t.responses, facts)
        try:
            t.res_row[self._r] = row
        except OverflowError:
            t.put("res_row", self._r, row)

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
            return req.conversation_id
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
            return res.model
        req = self.req
        return req.model if req else None


    def __eq__(self, other: object) -> bool:
        """The same row of the same table: a view made again (capture.turns makes one
        each time a turn is read) is the same turn."""
        return (type(other) is Turn and other._t is self._t  # type: ignore[attr-defined]
                and other._r == self._r)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((id(self._t), self._r))


_new_turn = Turn.__new__


def _view(table: TurnTable, row: int) -> Turn:
    """A Turn reading row `row` (the constructor makes a new row)."""
    t = _new_turn(Turn)
    t._t = table
    t._r = row
    return t


class Turns(Sequence[Turn]):
    """A capture's turns in order, as a sequence of views made when read (a list of one
    Turn object a turn cost ~84 bytes a turn, a third of the table).

    Position i is row i of the table while every turn appended was the table's next row
    (`rows` None: nothing is stored a turn). A retried turn replaces the turn it retries
    (`turns[-1] = retry`, a new row), and from then on each position's row is kept in an
    array (4 bytes a turn at most). Reading gives equal (`==`), not identical, views.
    """

    __slots__ = ("table", "rows", "n")

    def __init__(self, table: TurnTable) -> None:
        self.table = table
        self.rows: array | None = None  # None: position i is row i, for i < n
        self.n = 0

    def __len__(self) -> int:
        rows = self.rows
        return self.n if rows is None else len(rows)

    def _explicit(self) -> array:
        rows = self.rows
        if rows is None:
            rows = self.rows = array(SIGNED[2], range(self.n))
        return rows

    def append(self, turn: Turn) -> None:
        rows = self.rows
        if rows is None and turn._r == self.n and turn._t is self.table:
            self.n += 1
            return
        if turn._t is not self.table:
            raise ValueError("a turn of another table")
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
        return _view(self.table, i if rows is None else rows[i])

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
            t = _new_turn(Turn)
            t._t = table
            t._r = r
            yield t

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
