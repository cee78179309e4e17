"""The analysed numbers of one turn: exactly the report contract's keys, plus a few extras."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from traceview.analysis.explain import explain
from traceview.capture.model import RecordRef

# Keys of a turn in traceview.report/1, in contract order.
CONTRACT_KEYS = (
    "index", "line", "conversation", "api", "status", "user_text", "request_bytes",
    "owned_state_bytes", "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens",
    "elapsed_ms", "expected_input", "unexplained_tokens", "tools_offered", "hosted_calls",
    "markers", "cost_usd",
)
EXTRA_KEYS = (
    "source", "conversation_key", "model", "response_id", "previous_response_id",
    "user_words", "assistant_text", "cumulative_input_tokens", "new_input_estimate",
    "attribution", "cost", "incomplete_reason", "error", "stream_events", "notes", "explanation",
)


@dataclass(slots=True)
class TurnReport:
    index: int
    line: int
    source: str
    conversation: str | None
    conversation_key: str
    api: str
    status: str
    model: str | None = None
    response_id: str | None = None
    previous_response_id: str | None = None
    user_text: str | None = None
    user_words: int | None = None
    assistant_text: str | None = None
    request_bytes: int | None = None
    owned_state_bytes: int | None = None
    input_tokens: int | None = None
    cached_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    elapsed_ms: int | None = None
    new_input_estimate: int | None = None
    expected_input: int | None = None
    unexplained_tokens: int | None = None
    cumulative_input_tokens: int | None = None
    tools_offered: list[str] = field(default_factory=list)
    hosted_calls: list[dict[str, Any]] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)
    attribution: dict[str, Any] | None = None
    cost_usd: float | None = None
    cost_tokens_usd: float | None = None
    cost_hosted_usd: float = 0.0
    cost_reason: str | None = None
    incomplete_reason: str | None = None
    error: str | None = None
    stream_events: int | None = None
    notes: list[str] = field(default_factory=list)
    request_ref: RecordRef | None = None
    response_ref: RecordRef | None = None

    @property
    def cost(self) -> dict[str, Any]:
        """Where the cost came from: tokens, hosted tool fees, or why it is unknown."""
        r = None if self.cost_tokens_usd is None else round(self.cost_tokens_usd, 6)
        return {"tokens_usd": r, "hosted_usd": round(self.cost_hosted_usd, 6),
                "reason": self.cost_reason}

    @property
    def explanation(self) -> list[str]:
        """Plain-language sentences, composed on demand (cheap, and not held for every turn)."""
        return explain(self)

    def to_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in CONTRACT_KEYS}
        d.update({k: getattr(self, k) for k in EXTRA_KEYS})
        return d


@dataclass(slots=True)
class ConversationReport:
    key: str
    id: str | None
    kind: str  # conversation | chain | stateless
    source: str
    turns: list[int] = field(default_factory=list)
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    hosted_calls: int = 0
    cost_usd: float | None = 0.0
    cost_unknown_turns: int = 0
    markers: dict[str, int] = field(default_factory=dict)
    exchanges: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "key": self.key, "kind": self.kind, "source": self.source,
            "turns": self.turns, "input_tokens": self.input_tokens,
            "cached_tokens": self.cached_tokens, "output_tokens": self.output_tokens,
            "hosted_calls": self.hosted_calls,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "cost_unknown_turns": self.cost_unknown_turns, "markers": self.markers,
            "exchanges": self.exchanges,
        }
