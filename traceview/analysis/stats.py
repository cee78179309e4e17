"""Totals over turns: tokens, hosted calls, cost, latency percentiles."""

from __future__ import annotations

import statistics
from typing import Any


def percentiles(values: list[int]) -> dict[str, float | None]:
    """p50 / p95 by linear interpolation (statistics' inclusive method); null when empty."""
    if not values:
        return {"p50": None, "p95": None}
    if len(values) == 1:
        return {"p50": float(values[0]), "p95": float(values[0])}
    q = statistics.quantiles(values, n=100, method="inclusive")
    return {"p50": round(q[49], 1), "p95": round(q[94], 1)}


class Totals:
    """Capture-wide sums, kept as turns are analysed.

    The analyzer adds each turn while it already holds the turn's numbers, so totals cost
    no second pass over a hundred thousand turns.
    """

    __slots__ = ("turns", "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens",
                 "request_bytes", "owned_state_bytes", "hosted_calls", "cost_usd",
                 "hosted_fees_usd", "priced", "cost_unknown_turns", "latency",
                 "latency_hosted", "latency_plain", "markers")

    def __init__(self) -> None:
        self.turns = 0
        self.input_tokens = self.cached_tokens = self.output_tokens = 0
        self.reasoning_tokens = self.request_bytes = self.owned_state_bytes = 0
        self.hosted_calls = self.cost_unknown_turns = 0
        self.cost_usd = self.hosted_fees_usd = 0.0
        self.priced = False
        self.latency: list[int] = []
        self.latency_hosted: list[int] = []  # turns with hosted tool calls
        self.latency_plain: list[int] = []  # turns without
        self.markers: dict[str, int] = {}

    def to_dict(self) -> dict[str, Any]:
        return {
            "turns": self.turns,
            "input_tokens": self.input_tokens,
            "cached_tokens": self.cached_tokens,
            "output_tokens": self.output_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "request_bytes": self.request_bytes,
            "owned_state_bytes": self.owned_state_bytes,
            "hosted_calls": self.hosted_calls,
            "cost_usd": round(self.cost_usd, 6) if self.priced else None,
            "hosted_fees_usd": round(self.hosted_fees_usd, 6),
            "cost_unknown_turns": self.cost_unknown_turns,
            "latency_ms": {
                **percentiles(self.latency),
                "with_hosted_tools": percentiles(self.latency_hosted),
                "without": percentiles(self.latency_plain),
            },
            "markers": self.markers,
        }
