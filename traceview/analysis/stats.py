"""Totals over turns: tokens, hosted calls, cost, latency percentiles."""

from __future__ import annotations

import statistics
from typing import Any

from traceview.analysis.turn_report import TurnReport


def percentiles(values: list[int]) -> dict[str, float | None]:
    """p50 / p95 by linear interpolation (statistics' inclusive method); null when empty."""
    if not values:
        return {"p50": None, "p95": None}
    if len(values) == 1:
        return {"p50": float(values[0]), "p95": float(values[0])}
    q = statistics.quantiles(values, n=100, method="inclusive")
    return {"p50": round(q[49], 1), "p95": round(q[94], 1)}


def totals(turns: list[TurnReport]) -> dict[str, Any]:
    def s(attr: str) -> int:
        return sum(getattr(t, attr) or 0 for t in turns)

    costs = [t.cost_usd for t in turns if t.cost_usd is not None]
    hosted_fees = sum(t.cost_hosted_usd for t in turns)
    lat = [t.elapsed_ms for t in turns if t.elapsed_ms is not None]
    lat_h = [t.elapsed_ms for t in turns if t.elapsed_ms is not None and t.hosted_calls]
    lat_n = [t.elapsed_ms for t in turns if t.elapsed_ms is not None and not t.hosted_calls]
    markers: dict[str, int] = {}
    for t in turns:
        for m in t.markers:
            markers[m] = markers.get(m, 0) + 1
    return {
        "turns": len(turns),
        "input_tokens": s("input_tokens"),
        "cached_tokens": s("cached_tokens"),
        "output_tokens": s("output_tokens"),
        "reasoning_tokens": s("reasoning_tokens"),
        "request_bytes": s("request_bytes"),
        "owned_state_bytes": s("owned_state_bytes"),
        "hosted_calls": sum(len(t.hosted_calls) for t in turns),
        "cost_usd": round(sum(costs), 6) if costs else None,
        "hosted_fees_usd": round(hosted_fees, 6),
        "cost_unknown_turns": sum(1 for t in turns if t.cost_usd is None),
        "latency_ms": {
            **percentiles(lat),
            "with_hosted_tools": percentiles(lat_h),
            "without": percentiles(lat_n),
        },
        "markers": markers,
    }
