"""The compact per-record summaries a capture is reduced to.

A capture can be gigabytes; only these small objects are kept. Bodies stay in the
file and are re-read through a RecordRef when someone asks for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from traceview.capture.packed import BITS, code, code0, count, flag

# A RecordRef packed into one int: offset | length << 48 | line << 88 | source << 128.
# Kept per turn as one small int object instead of four ints and a tuple (a tenth of the
# summary's memory on a large capture); unpacked only when a body is re-read.
_OFFSET_BITS, _LENGTH_BITS, _LINE_BITS = 48, 40, 40
_LENGTH_SHIFT = _OFFSET_BITS
_LINE_SHIFT = _LENGTH_SHIFT + _LENGTH_BITS
_SOURCE_SHIFT = _LINE_SHIFT + _LINE_BITS
_LINE_MASK = (1 << _LINE_BITS) - 1


class RecordRef(NamedTuple):
    """Where one record line sits: enough to re-read it with one pread."""

    source: int
    offset: int
    length: int
    line: int

    def pack(self) -> int:
        return (self.offset | self.length << _LENGTH_SHIFT | self.line << _LINE_SHIFT
                | self.source << _SOURCE_SHIFT)

    @classmethod
    def unpack(cls, packed: int) -> RecordRef:
        return cls(packed >> _SOURCE_SHIFT,
                   packed & ((1 << _OFFSET_BITS) - 1),
                   packed >> _LENGTH_SHIFT & ((1 << _LENGTH_BITS) - 1),
                   packed >> _LINE_SHIFT & _LINE_MASK)


def _pack(ref: RecordRef | None) -> int | None:
    return None if ref is None else ref.pack()


def _unpack(packed: int | None) -> RecordRef | None:
    return None if packed is None else RecordRef.unpack(packed)


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


_B1, _B2, _B3, _B4, _B5, _B6, _B7, _B8, _B9 = (BITS * i for i in range(1, 10))


class RequestFacts:
    """What the request side of a turn says, read once from its body.

    Counts and flags are packed (capture/packed.py): a large capture holds one of these
    per turn. Positional order is the constructor's, as in a dataclass.
    """

    __slots__ = ("api", "model", "conversation_id", "previous_response_id", "include",
                 "tools_offered", "user_text", "first_user_sig", "truncation", "_n", "_flags",
                 "extra")

    request_bytes = count(0)
    input_bytes = count(1, nullable=False)
    new_input_tokens = count(2, nullable=False)
    input_count = count(3, nullable=False)
    user_words = count(4)
    compaction_input = flag(0)
    compaction_trigger = flag(1)
    context_management = flag(2)
    stream = flag(3)
    background = flag(4)
    store_set = flag(5)
    store_value = flag(6)
    instructions = flag(7)

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
        # The first USER_TEXT_MAX characters, kept ASCII-cheap: the "…" that marks a cut
        # is added where the text is read (one non-ASCII character doubles a str's memory).
        self.user_text = user_text
        self.first_user_sig = first_user_sig
        self.truncation = truncation
        self._n = (code(request_bytes) | code0(input_bytes) << _B1
                   | code0(new_input_tokens) << _B2 | code0(input_count) << _B3
                   | code(user_words) << _B4)
        self._flags = (compaction_input | compaction_trigger << 1 | context_management << 2
                       | stream << 3 | background << 4)
        # Seldom-set facts (non-text input, compaction item keys, call ids answered, function
        # names offered): one dict on the turns that have any, None on the rest.
        self.extra: dict[str, Any] | None = None

    @property
    def store(self) -> bool | None:
        """The request's `store` flag, or None when it did not send one (provider default)."""
        return self.store_value if self.store_set else None

    def __repr__(self) -> str:
        return (f"RequestFacts(api={self.api!r}, model={self.model!r}, "
                f"request_bytes={self.request_bytes}, input_count={self.input_count})")


class ResponseFacts:
    """What the response side of a turn says, read once from its body (counts packed, as
    in RequestFacts)."""

    __slots__ = ("response_id", "object", "status", "model", "conversation_id", "output_types",
                 "hosted_calls", "cache_miss_reason", "incomplete_reason", "error", "_n",
                 "_flags", "service_tier", "fingerprint", "error_code", "extra")

    # Usually-set counts first: the packed int is only as long as its highest field.
    input_tokens = count(0)
    cached_tokens = count(1)
    output_tokens = count(2)
    reasoning_tokens = count(3)
    elapsed_ms = count(4)
    output_bytes = count(5, nullable=False)
    input_transformations = count(6, nullable=False)
    http_status = count(7)
    stream_events = count(8)
    web_search_requests = count(9)
    file_search_requests = count(10)
    # When the turn started, whole seconds since the epoch (what `created_at` holds; ms
    # would not pack): the body's `created_at` (chat: `created`), else the record's `ts`
    # less the elapsed time. Set after construction.
    started_at = count(11)
    compaction_output = flag(0)
    stream_cut = flag(1)
    store_set = flag(2)
    store_value = flag(3)
    refusal = flag(4)

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
        self.model = model
        self.conversation_id = conversation_id
        self.output_types = output_types
        self.hosted_calls = hosted_calls
        self.cache_miss_reason = cache_miss_reason
        self.incomplete_reason = incomplete_reason
        self.error = error
        n = (code(input_tokens) | code(cached_tokens) << _B1 | code(output_tokens) << _B2
             | code(reasoning_tokens) << _B3 | code(elapsed_ms) << _B4
             | code0(output_bytes) << _B5)
        if (input_transformations or http_status is not None or stream_events is not None
                or web_search_requests is not None):  # seldom: skip four calls
            n |= (code0(input_transformations) << _B6 | code(http_status) << _B7
                  | code(stream_events) << _B8 | code(web_search_requests) << _B9)
        self._n = n
        self._flags = compaction_output | stream_cut << 1
        self.service_tier: str | None = None
        self.fingerprint: str | None = None  # chat system_fingerprint
        self.error_code: str | None = None
        # Seldom-set facts (unknown item types, action items, chat finish reasons, stored
        # headers, compaction item keys): one dict on the responses that have any.
        self.extra: dict[str, Any] | None = None

    @property
    def store(self) -> bool | None:
        return self.store_value if self.store_set else None

    def __repr__(self) -> str:
        return (f"ResponseFacts(response_id={self.response_id!r}, status={self.status!r}, "
                f"input_tokens={self.input_tokens}, output_tokens={self.output_tokens})")


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

    `attempts` holds the failed tries before it that were retried with the same input
    (empty on almost every turn): they are part of this turn, not turns of their own.
    """

    __slots__ = ("index", "source", "_line", "api", "_request", "_response", "req", "res",
                 "notes", "attempts")

    def __init__(self, index: int, source: int, line: int, api: str,
                 request: RecordRef | None = None, response: RecordRef | None = None,
                 req: RequestFacts | None = None, res: ResponseFacts | None = None,
                 notes: tuple[str, ...] = ()) -> None:
        self.index = index
        self.source = source
        self.api = api
        self._request = _pack(request)
        self._response = _pack(response)
        self.req = req
        self.res = res
        self.notes = notes
        self.attempts: tuple[Attempt, ...] = ()
        # The first line is read back from a packed ref when there is one (one int less).
        self._line = None if self._request is not None else line

    @property
    def line(self) -> int:
        """The turn's first line: its request's, else its response's."""
        if self._request is not None:
            return self._request >> _LINE_SHIFT & _LINE_MASK
        return self._line or 0

    def __repr__(self) -> str:
        return f"Turn(index={self.index}, line={self.line}, api={self.api!r})"

    @property
    def request(self) -> RecordRef | None:
        return _unpack(self._request)

    @request.setter
    def request(self, ref: RecordRef | None) -> None:
        self._request = _pack(ref)

    @property
    def response(self) -> RecordRef | None:
        return _unpack(self._response)

    @response.setter
    def response(self, ref: RecordRef | None) -> None:
        self._response = _pack(ref)

    @property
    def response_id(self) -> str | None:
        return self.res.response_id if self.res else None

    @property
    def conversation_id(self) -> str | None:
        if self.req and self.req.conversation_id:
            return self.req.conversation_id
        return self.res.conversation_id if self.res else None

    @property
    def previous_response_id(self) -> str | None:
        return self.req.previous_response_id if self.req else None

    @property
    def model(self) -> str | None:
        if self.res and self.res.model:
            return self.res.model
        return self.req.model if self.req else None


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
