"""The one place a turn is priced: its tier and its tool settings read from the turn, then
Pricing.cost. The analyzer's totals and every report's turn read their cost from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from traceview.analysis.pricing import Cost, Pricing, counters_for
from traceview.capture.model import HostedCall


def tier_of(res_tier: str | None, req_extra: dict[str, Any] | None) -> str | None:
    """The tier a turn is billed at: "batch" for a Batch API line (the importer says so),
    else the tier the response says served it, else the one the request asked for."""
    if req_extra and req_extra.get("mode") == "batch":
        return "batch"
    if res_tier:
        return res_tier
    return req_extra.get("service_tier") if req_extra else None


def price(pricing: Pricing, model: str | None, input_tokens: int | None, cached: int | None,
          output: int | None, calls: Sequence[HostedCall], counters: dict[str, int] | None,
          res_tier: str | None, req_extra: dict[str, Any] | None,
          tools: Sequence[str]) -> Cost:
    """What the turn cost at its tier, with hosted fees by tool and model class."""
    return pricing.cost(model, input_tokens, cached, output, calls, counters,
                        tier=tier_of(res_tier, req_extra), tools=tools,
                        container=req_extra.get("container_memory") if req_extra else None)


def price_sides(pricing: Pricing, model: str | None, req: Any, res: Any,
                calls: Sequence[HostedCall]) -> Cost:
    """`price` of a turn read from its request and response views (either may be None)."""
    extra, tools = (req.extra, req.tools_offered) if req is not None else (None, ())
    if res is None:
        return price(pricing, model, None, None, None, (), None, None, extra, tools)
    return price(pricing, model, res.input_tokens, res.cached_tokens, res.output_tokens,
                 calls, counters_for(res), res.service_tier, extra, tools)


_KIND = {"input": "input tokens", "cached input": "cached tokens", "output": "output tokens"}


def _rate(rate: float, per: str) -> str:
    """$2.50, $0.075, $0.0025: two decimals at least, the rate's own digits beyond."""
    text = f"{rate:,.6f}".rstrip("0")
    whole, _, frac = text.partition(".")
    return f"${whole}.{frac.ljust(2, '0')}/{per}"


def rates_text(parts: Sequence[Any], tier: str) -> str:
    """Each priced line with its quantity and rate, for the account sentence:
    "1,850 input tokens × $0.15/1M + 2 web search … × $25.00/1k (default tier)"."""
    return " + ".join([f"{p.quantity:,} {_priced_as(p.line_item, p.unit, p.rate)}"
                       for p in parts]) + f" ({tier} tier)"


@lru_cache(maxsize=1024)
def _priced_as(line_item: str, unit: str, rate: float) -> str:
    """What a unit of a priced line is and costs ("input tokens × $0.15/1M"): a turn's
    lines are a few of its model's, so each is worded once, not once a turn."""
    if unit == "1M tokens":
        kind = line_item.split(", ")[1] if ", " in line_item else line_item
        return f"{_KIND.get(kind, kind)} × {_rate(rate, '1M')}"
    if unit == "call":
        return f"{line_item} × {_rate(rate * 1000, '1k')}"
    return f"{line_item} × {_rate(rate, unit)}"
