"""The compact per-record summaries a capture is reduced to.

A capture can be gigabytes; only these small objects are kept. Bodies stay in the
file and are re-read through a RecordRef when someone asks for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class RecordRef:
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
    """One output item the provider executed itself, and what it left behind."""

    type: str
    id: str | None
    status: str | None
    evidence: str  # captured | empty | missing
    include: str | None  # the include flag that captures the evidence, if one exists
    queries: list[str] = field(default_factory=list)
    detail: str | None = None  # one line: what was found, or why nothing was

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "id": self.id,
            "status": self.status,
            "evidence": self.evidence,
            "include": self.include,
            "queries": self.queries,
            "detail": self.detail,
        }


@dataclass(slots=True)
class RequestFacts:
    """What the request side of a turn says, read once from its body."""

    api: str = "responses"
    model: str | None = None
    conversation_id: str | None = None
    previous_response_id: str | None = None
    include: tuple[str, ...] = ()
    tools_offered: tuple[str, ...] = ()
    request_bytes: int | None = None
    input_bytes: int = 0
    input_count: int = 0
    new_input_tokens: int = 0
    # The first USER_TEXT_MAX characters, kept ASCII-cheap: the "…" that marks a cut is
    # added where the text is read (a single non-ASCII character doubles a str's memory).
    user_text: str | None = None
    user_words: int | None = None
    first_user_sig: int | None = None
    compaction_input: bool = False
    compaction_trigger: bool = False
    context_management: bool = False
    truncation: str | None = None
    stream: bool = False
    background: bool = False


@dataclass(slots=True)
class ResponseFacts:
    """What the response side of a turn says, read once from its body."""

    response_id: str | None = None
    object: str | None = None
    status: str = "unknown"
    http_status: int | None = None
    model: str | None = None
    conversation_id: str | None = None
    input_tokens: int | None = None
    cached_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    elapsed_ms: int | None = None
    output_bytes: int = 0
    output_types: tuple[str, ...] = ()
    hosted_calls: list[dict[str, Any]] | tuple[()] = ()
    compaction_output: bool = False
    cache_miss_reason: str | None = None
    incomplete_reason: str | None = None
    error: str | None = None
    stream_events: int | None = None
    stream_cut: bool = False
    web_search_requests: int | None = None
    input_transformations: int = 0


@dataclass(slots=True)
class Turn:
    """One model call: a request with its response (either half may be missing)."""

    index: int
    source: int
    line: int
    api: str
    request: RecordRef | None = None
    response: RecordRef | None = None
    req: RequestFacts | None = None
    res: ResponseFacts | None = None
    link: str | None = None
    notes: tuple[str, ...] = ()

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
    link: str | None = None

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
