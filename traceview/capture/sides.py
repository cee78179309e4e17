"""The two sides of a turn as plain records (RequestFacts, ResponseFacts: what
capture/facts.py makes of a body) and as views of a row of the turn table (RequestRow,
ResponseRow: what `turn.req` and `turn.res` give), under the same names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from traceview.capture.calls import HostedCall
from traceview.capture.side_columns import (
    LIMIT,
    NO_CREATED,
    SET,
    UNKNOWN,
    Col,
    RequestSide,
    ResponseSide,
    Side,
)


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
    return type(name, (RowView,), ns)


class RowView:
    __slots__ = ("_s", "_r")

    def __init__(self, side: Side, row: int) -> None:
        self._s = side
        self._r = row

    @property
    def store(self) -> bool | None:
        return self.store_value if self.store_set else None  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, RowView) and type(other) is type(self)
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
        self.has_sig = value is not None  # type: ignore[misc]


class ResponseRow(_row_view("ResponseRowBase", ResponseSide, ResponseFacts)):  # type: ignore[misc]
    __slots__ = ()

    @property
    def raw_created_at(self) -> float | None:
        c = self._s.cols["raw_created_at"][self._r]
        return None if c == NO_CREATED else c

    @raw_created_at.setter
    def raw_created_at(self, value: float | None) -> None:
        self._s.cols["raw_created_at"][self._r] = NO_CREATED if value is None else float(value)


