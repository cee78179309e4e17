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


LATENCY_BASIS = ("caller latency per turn: the final attempt's elapsed_ms plus every failed "
                 "attempt retried before it")


class Totals:
    """Capture-wide sums, kept as turns are analysed.

    The analyzer adds each turn while it already holds the turn's numbers, so totals cost
    no second pass over a hundred thousand turns.
    """

    __slots__ = ("turns", "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens",
                 "request_bytes", "owned_state_bytes", "hosted_calls", "cost_usd",
                 "hosted_fees_usd", "priced", "cost_unknown_turns", "latency",
                 "latency_hosted", "latency_plain", "markers", "attempts", "usage_turns",
                 "cost_turns")

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
        self.attempts = 0  # failed attempts that were retried (not counted as turns)
        self.usage_turns = 0  # turns whose billed usage is known
        self.cost_turns = 0  # turns whose cost is known

    def to_dict(self) -> dict[str, Any]:
        known = self.usage_turns > 0  # a total over turns that are all unknown is unknown
        return {
            "turns": self.turns,
            "input_tokens": self.input_tokens if known else None,
            "cached_tokens": self.cached_tokens if known else None,
            "output_tokens": self.output_tokens if known else None,
            "reasoning_tokens": self.reasoning_tokens if known else None,
            "usage_turns": self.usage_turns,
            "cost_turns": self.cost_turns,
            "attempts": self.attempts,
            "request_bytes": self.request_bytes,
            "owned_state_bytes": self.owned_state_bytes,
            "hosted_calls": self.hosted_calls,
            "cost_usd": round(self.cost_usd, 6) if self.priced else None,
            "hosted_fees_usd": round(self.hosted_fees_usd, 6),
            "cost_unknown_turns": self.cost_unknown_turns,
            "latency_ms": {
                **percentiles(self.latency),
                "basis": LATENCY_BASIS,
                "with_hosted_tools": percentiles(self.latency_hosted),
                "without": percentiles(self.latency_plain),
            },
            "markers": self.markers,
        }
