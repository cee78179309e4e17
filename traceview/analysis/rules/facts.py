"""What the per-turn rules read of one turn, read from the turn table once.

Every rule takes a `TurnFacts`: the turn's request and response values, with the
absent side's values filled in (no request: no bytes, no tools; no response: status
"unknown", no usage). Reading them once keeps each rule a plain expression over names.
"""

from __future__ import annotations

from typing import Any

from traceview.capture.model import Attempt, HostedCall, Turn


class TurnFacts:
    """One turn's facts, as the rules read them (None: unknown)."""

    __slots__ = (
        "index", "row", "source", "api", "model", "attempts",
        # the request
        "has_req", "request_bytes", "input_bytes", "new_input_tokens", "req_conversation_id",
        "previous_response_id", "tools_offered", "instructions", "compaction_input",
        "compaction_trigger", "req_extra",
        # the response
        "has_res", "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens",
        "status", "hosted_calls", "output_types", "cache_miss_reason", "fingerprint",
        "service_tier", "output_bytes", "elapsed_ms", "compaction_output", "stream_cut",
        "refusal", "res_extra", "web_search_requests", "file_search_requests",
        # both
        "store",
    )

    index: int
    row: int
    source: int
    api: str
    model: str | None
    attempts: tuple[Attempt, ...]
    has_req: bool
    request_bytes: int | None
    input_bytes: int
    new_input_tokens: int
    req_conversation_id: str | None
    previous_response_id: str | None
    tools_offered: tuple[str, ...]
    instructions: bool
    compaction_input: bool
    compaction_trigger: bool
    req_extra: dict[str, Any] | None
    has_res: bool
    input_tokens: int | None
    cached_tokens: int | None
    output_tokens: int | None
    reasoning_tokens: int | None
    status: str
    hosted_calls: tuple[HostedCall, ...]
    output_types: tuple[str, ...]
    cache_miss_reason: str | None
    fingerprint: str | None
    service_tier: str | None
    output_bytes: int
    elapsed_ms: int | None
    compaction_output: bool
    stream_cut: bool
    refusal: bool
    res_extra: dict[str, Any] | None
    web_search_requests: int | None
    file_search_requests: int | None
    store: bool | None

    def __init__(self, turn: Turn) -> None:
        req, res = turn.req, turn.res
        self.index = turn.index
        self.row = turn.row
        self.source = turn.source
        self.api = turn.api
        self.attempts = turn.attempts
        self._request(req)
        self._response(res)
        self.model = (res.model if res is not None else None) or (
            req.model if req is not None else None)
        store = req.store if req is not None else None
        if store is None and res is not None:
            store = res.store
        self.store = store

    def _request(self, req: Any) -> None:
        self.has_req = req is not None
        if req is None:
            self.request_bytes = self.req_conversation_id = None
            self.previous_response_id = self.req_extra = None
            self.input_bytes = self.new_input_tokens = 0
            self.tools_offered = ()
            self.instructions = self.compaction_input = self.compaction_trigger = False
            return
        self.request_bytes = req.request_bytes
        self.input_bytes = req.input_bytes
        self.new_input_tokens = req.new_input_tokens
        self.req_conversation_id = req.conversation_id
        self.previous_response_id = req.previous_response_id
        self.tools_offered = req.tools_offered
        self.instructions = req.instructions
        self.compaction_input = req.compaction_input
        self.compaction_trigger = req.compaction_trigger
        self.req_extra = req.extra

    def _response(self, res: Any) -> None:
        self.has_res = res is not None
        if res is None:
            self.input_tokens = self.cached_tokens = self.output_tokens = None
            self.reasoning_tokens = self.elapsed_ms = self.cache_miss_reason = None
            self.fingerprint = self.service_tier = self.res_extra = None
            self.web_search_requests = self.file_search_requests = None
            self.status = "unknown"
            self.hosted_calls = self.output_types = ()
            self.output_bytes = 0
            self.compaction_output = self.stream_cut = self.refusal = False
            return
        self.input_tokens = res.input_tokens
        self.cached_tokens = res.cached_tokens
        self.output_tokens = res.output_tokens
        self.reasoning_tokens = res.reasoning_tokens
        self.status = res.status
        self.hosted_calls = res.hosted_calls
        self.output_types = res.output_types
        self.cache_miss_reason = res.cache_miss_reason
        self.fingerprint = res.fingerprint
        self.service_tier = res.service_tier
        self.output_bytes = res.output_bytes
        self.elapsed_ms = res.elapsed_ms
        self.compaction_output = res.compaction_output
        self.stream_cut = res.stream_cut
        self.refusal = res.refusal
        self.res_extra = res.extra
        self.web_search_requests = res.web_search_requests
        self.file_search_requests = res.file_search_requests

    @property
    def actions(self) -> tuple[tuple[str, str | None, str | None, str | None], ...]:
        """Output items that hand the next step to the application: (type, call id, name,
        item id)."""
        x = self.res_extra
        return x.get("actions", ()) if x else ()

    @property
    def unknown_items(self) -> bool:
        """Whether the response holds an output item of a type traceview does not know."""
        x = self.res_extra
        return bool(x) and "unknown_items" in x  # type: ignore[operator]
