"""A turn's cost, and the provider's hosted-tool counters against the calls in the output.

The price is Pricing.cost's: tokens at the model's rates plus hosted tool fees, where a
provider counter (web/file search requests) replaces counting the calls, because the
provider bills what it counted.
"""

from __future__ import annotations

from typing import Any

from traceview.analysis.cost.price import price
from traceview.analysis.pricing import COUNTERS, Cost, Pricing
from traceview.analysis.rules.facts import TurnFacts


def counters(f: TurnFacts) -> dict[str, int] | None:
    """The provider's own counters, keyed by the item type they count (None: none)."""
    if f.web_search_requests is None and f.file_search_requests is None:
        return None
    out = {item: n for attr, item in COUNTERS if (n := getattr(f, attr)) is not None}
    return out or None


def cost(pricing: Pricing, f: TurnFacts) -> Cost:
    """What the turn cost, or why that is unknown."""
    return price(pricing, f.model, f.input_tokens, f.cached_tokens, f.output_tokens,
                 f.hosted_calls, counters(f), f.service_tier, f.req_extra, f.tools_offered)


def counter_report(f: TurnFacts) -> list[dict[str, Any]]:
    """Each provider counter beside the calls of its type in the output (counters that
    say 0 of a type the output lacks are left out)."""
    if f.web_search_requests is None and f.file_search_requests is None:
        return []
    out = []
    for attr, item in COUNTERS:
        n = getattr(f, attr)
        items = sum(1 for c in f.hosted_calls if c.type == item)
        if n is not None and (n or items):
            out.append({"counter": attr, "provider": n, "items": items, "item": item})
    return out


def counter_mismatch(report: list[dict[str, Any]]) -> bool:
    """Whether a provider counter disagrees with the calls of its type in the output."""
    return any(x["provider"] != x["items"] for x in report)
