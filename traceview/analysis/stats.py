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
    """One pass over the turns' facts (not their report properties: this runs per capture
    over every turn, a hundred thousand of them on a large one)."""
    inp = cached = out = reasoning = req_bytes = owned = hosted = unpriced = 0
    cost = hosted_fees = 0.0
    priced = False
    lat: list[int] = []
    lat_h: list[int] = []
    lat_n: list[int] = []
    markers: dict[str, int] = {}
    for t in turns:
        req, res = t.turn.req, t.turn.res
        if req is not None and req.request_bytes is not None:
            req_bytes += req.request_bytes
        owned += t.owned_state_bytes or 0
        if res is not None:
            inp += res.input_tokens or 0
            cached += res.cached_tokens or 0
            out += res.output_tokens or 0
            reasoning += res.reasoning_tokens or 0
            hosted += len(res.hosted_calls)
            if res.elapsed_ms is not None:
                lat.append(res.elapsed_ms)
                (lat_h if res.hosted_calls else lat_n).append(res.elapsed_ms)
        hosted_fees += t.cost_hosted_usd
        if t.cost_tokens_usd is None:
            unpriced += 1
        else:
            priced = True
            cost += t.cost_tokens_usd + t.cost_hosted_usd
        for m in t.markers:
            markers[m] = markers.get(m, 0) + 1
    return {
        "turns": len(turns),
        "input_tokens": inp,
        "cached_tokens": cached,
        "output_tokens": out,
        "reasoning_tokens": reasoning,
        "request_bytes": req_bytes,
        "owned_state_bytes": owned,
        "hosted_calls": hosted,
        "cost_usd": round(cost, 6) if priced else None,
        "hosted_fees_usd": round(hosted_fees, 6),
        "cost_unknown_turns": unpriced,
        "latency_ms": {
            **percentiles(lat),
            "with_hosted_tools": percentiles(lat_h),
            "without": percentiles(lat_n),
        },
        "markers": markers,
    }
