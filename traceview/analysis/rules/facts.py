"""What the per-turn rules read of one turn, read from the turn table's columns once.

Every rule takes a `TurnFacts`: the turn's request and response values, with the
absent side's values filled in (no request: no bytes, no tools; no response: status
"unknown", no usage). Reading them once keeps each rule a plain expression over names.
"""

from __future__ import annotations

from typing import Any

from traceview.analysis.columns import (
    Q_COMPACTION_INPUT,
    Q_COMPACTION_TRIGGER,
    Q_INSTRUCTIONS,
    Q_STORE_SET,
    Q_STORE_VALUE,
    S_COMPACTION_OUTPUT,
    S_REFUSAL,
    S_STORE_SET,
    S_STORE_VALUE,
    S_STREAM_CUT,
    Columns,
)
from traceview.capture.model import Attempt, HostedCall


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
        "started_at",
        "service_tier", "output_bytes", "elapsed_ms", "compaction_output", "stream_cut",
        "refusal", "res_extra", "web_search_requests", "file_search_requests", "actions",
        "unknown_items",
        # both
        "store", "conversation_id",
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
    started_at: int | None
    service_tier: str | None
    output_bytes: int
    elapsed_ms: int | None
    compaction_output: bool
    stream_cut: bool
    refusal: bool
    res_extra: dict[str, Any] | None
    web_search_requests: int | None
    file_search_requests: int | None
    # Output items that hand the next step to the application: (type, call id, name,
    # item id).
    actions: tuple[tuple[str, str | None, str | None, str | None], ...]
    # Whether the response holds an output item of a type traceview does not know.
    unknown_items: bool
    store: bool | None
    conversation_id: str | None  # the request's, else the response's

    def __init__(self, r: int, c: Columns) -> None:
        """The turn at row `r` of the table `c` binds (analysis/columns.py). Both sides'
        facts are read here, in one frame (a method a side was two calls a turn); an
        absent side's are filled by `_no_request` / `_no_response`."""
        self.index = c.index[r]
        self.row = r
        self.source = c.source[r]
        values = c.values
        self.api = values[c.api[r]]
        self.attempts = c.attempts.get(r, ())
        q, s = c.req_row[r], c.res_row[r]
        self.has_req, self.has_res = q >= 0, s >= 0
        req_store = res_store = req_model = res_model = res_conv = None
        if q >= 0:
            bits = c.q_flags[q]
            self.request_bytes = n if (n := c.q_bytes[q]) >= 0 else None
            self.input_bytes = c.q_input_bytes[q]
            self.new_input_tokens = c.q_new[q]
            self.req_conversation_id = values[c.q_conv[q]]
            self.previous_response_id = c.q_prev.get(q)
            self.tools_offered = values[c.q_tools[q]]
            self.instructions = bool(bits & Q_INSTRUCTIONS)
            self.compaction_input = bool(bits & Q_COMPACTION_INPUT)
            self.compaction_trigger = bool(bits & Q_COMPACTION_TRIGGER)
            self.req_extra = c.q_extra.get(q)
            req_store = bool(bits & Q_STORE_VALUE) if bits & Q_STORE_SET else None
            req_model = values[c.q_model[q]]
        else:
            self._no_request()
        if s >= 0:
            bits = c.s_flags[s]
            # A nullable count column's value (negative: unknown), read in place.
            self.input_tokens = n if (n := c.s_in[s]) >= 0 else None
            self.cached_tokens = n if (n := c.s_cached[s]) >= 0 else None
            self.output_tokens = n if (n := c.s_out[s]) >= 0 else None
            self.reasoning_tokens = n if (n := c.s_reasoning[s]) >= 0 else None
            self.elapsed_ms = n if (n := c.s_elapsed[s]) >= 0 else None
            self.started_at = n if (n := c.s_started[s]) >= 0 else None
            self.output_bytes = c.s_out_bytes[s]
            self.status = values[c.s_status[s]]
            self.output_types = values[c.s_types[s]]
            self.service_tier = values[c.s_tier[s]]
            self.fingerprint = values[c.s_fp[s]]
            self.hosted_calls = c.s_hosted.get(s, ())
            self.cache_miss_reason = c.s_miss.get(s)
            self.web_search_requests = c.s_web.get(s)
            self.file_search_requests = c.s_file.get(s)
            self.compaction_output = bool(bits & S_COMPACTION_OUTPUT)
            self.stream_cut = bool(bits & S_STREAM_CUT)
            self.refusal = bool(bits & S_REFUSAL)
            x = self.res_extra = c.s_extra.get(s)
            # Read by several rules each: looked up once here.
            self.actions = x.get("actions", ()) if x else ()
            self.unknown_items = bool(x) and "unknown_items" in x
            res_store = bool(bits & S_STORE_VALUE) if bits & S_STORE_SET else None
            res_model, res_conv = values[c.s_model[s]], values[c.s_conv[s]]
        else:
            self._no_response()
        self.model = res_model or req_model
        self.conversation_id = self.req_conversation_id or res_conv
        self.store = req_store if req_store is not None else res_store

    def _no_request(self) -> None:
        """The facts of a turn with no request record."""
        self.request_bytes = self.req_conversation_id = None
        self.previous_response_id = self.req_extra = None
        self.input_bytes = self.new_input_tokens = 0
        self.tools_offered = ()
        self.instructions = self.compaction_input = self.compaction_trigger = False

    def _no_response(self) -> None:
        """The facts of a turn with no response record (status "unknown", no usage)."""
        self.input_tokens = self.cached_tokens = self.output_tokens = None
        self.reasoning_tokens = self.elapsed_ms = self.cache_miss_reason = None
        self.fingerprint = self.service_tier = self.res_extra = None
        self.started_at = None
        self.web_search_requests = self.file_search_requests = None
        self.status = "unknown"
        self.hosted_calls = self.output_types = ()
        self.output_bytes = 0
        self.compaction_output = self.stream_cut = self.refusal = False
        self.actions, self.unknown_items = (), False
