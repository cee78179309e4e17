"""What a turn cost: tokens by the model's price, hosted tool calls by their fees.

Prices come from a data file (bundled, or --pricing FILE) with the date they were
taken. A model the table does not know gives no cost and a reason, never a 0.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from traceview.analysis.pricing_check import shape_error
from traceview.capture.model import HostedCall
from traceview.safety.outputs import read_bounded

_DATE_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}$")


# Counters the provider reports for hosted tools (ResponseFacts attribute), and the output
# item each one counts.
COUNTERS = (("web_search_requests", "web_search_call"),
            ("file_search_requests", "file_search_call"))


def counters_for(res: Any) -> dict[str, int] | None:
    """The provider's own hosted-tool counters, keyed by the item type they count: cost
    uses them in place of counting items (the provider bills what it counted)."""
    if res is None:
        return None
    return counters_of([getattr(res, attr) for attr, _item in COUNTERS])


def counters_of(counts: Sequence[int | None]) -> dict[str, int] | None:
    """`counters_for` from the counters' values, in COUNTERS order (None: not reported)."""
    out = {item: n for (_attr, item), n in zip(COUNTERS, counts, strict=True) if n is not None}
    return out or None


# Tier names the wire uses for another tier's price: a request's "auto" is served at the
# standard tier unless the response says otherwise; "fast" is served as priority.
TIER_ALIASES = {"auto": "default", "standard": "default", "fast": "priority"}

# The provider's line-item names for hosted tool fees (Costs API style).
HOSTED_LINE_ITEMS = {"web_search_call": "web search tool calls",
                     "file_search_call": "file search tool calls",
                     "code_interpreter_call": "code interpreter sessions",
                     "image_generation_call": "image generation"}


def _image_shape(call: HostedCall) -> str | None:
    """An image generation call's "SIZE QUALITY" as the capture carried them, when both
    are known and not "auto" (an auto image is priced at the flat rate); None otherwise."""
    if call.size is None or call.quality is None or "auto" in (call.size, call.quality):
        return None
    return f"{call.size} {call.quality}"


def _rounded(v: float | None) -> float | None:
    return None if v is None else round(v, 6)


class PricingError(Exception):
    """A pricing file that cannot be used; the message names the file and the fault."""


class Part(NamedTuple):
    """One line of a turn's price: what was billed (the line item, named like the
    provider's Costs API line items), how many units at what rate."""

    line_item: str
    usd: float
    quantity: float
    rate: float
    unit: str  # "1M tokens", "call", "container", …

    def to_dict(self) -> dict[str, Any]:
        line_item, usd, quantity, rate, unit = self
        return {"line_item": line_item, "usd": round(usd, 6), "quantity": quantity,
                "rate": rate, "unit": unit}


class _Rates(NamedTuple):
    """A model's token prices at a tier (USD per 1M tokens), and its three token lines
    (input, cached input, output) as (line item, rate)."""

    input: float
    cached_input: float
    output: float
    lines: tuple[tuple[str, float], ...]


class Cost(NamedTuple):
    """A turn's price (a tuple: built once per turn, and again whenever a report reads it).
    `parts`: the priced lines (tokens by kind, each hosted fee); `tier`: the processing
    tier the tokens were priced at ("default", "flex", "batch", "priority", …)."""

    usd: float | None
    tokens_usd: float | None
    hosted_usd: float
    reason: str | None
    parts: tuple[Part, ...] = ()
    tier: str = "default"

    def to_dict(self) -> dict[str, Any]:
        return {"tokens_usd": _rounded(self.tokens_usd), "hosted_usd": _rounded(self.hosted_usd),
                "reason": self.reason, "tier": self.tier,
                "lines": [p.to_dict() for p in self.parts]}


# The largest pricing table read: the bundled one is ~30 kB; a bigger file is refused unread.
PRICING_MAX_BYTES = 16 << 20
BUNDLED = Path(__file__).with_name("pricing.json")  # the table used without --pricing


class Pricing:
    def __init__(self, table: dict[str, Any], origin: str) -> None:
        self.origin = origin
        self.taken = str(table.get("taken", "unknown date"))
        self.models: dict[str, dict[str, float]] = dict(table.get("models") or {})
        self.hosted: dict[str, dict[str, Any]] = dict(table.get("hosted_tools") or {})
        storage = table.get("storage")
        self.storage: dict[str, Any] = dict(storage) if isinstance(storage, dict) else {}
        self._resolved: dict[str, dict[str, float] | None] = {}  # model name -> its prices
        # (model, tier) -> its prices and line items, once they are known whole
        self._rates: dict[tuple[str | None, str], _Rates] = {}
        self._reasons: dict[Any, str] = {}
        # (calls' types and image shapes, counters, model, tools, container) -> fees
        self._fee_sets: dict[tuple[Any, ...], tuple[float, tuple[Part, ...]]] = {}
        tiers = table.get("tiers")
        self.tiers: dict[str, Any] = {k: tiers[v["same_as"]] if isinstance(v, dict)
                                      and v.get("same_as") in tiers else v
                                      for k, v in tiers.items()} \
            if isinstance(tiers, dict) else {}
        rm = table.get("reasoning_models")
        self.reasoning_models: dict[str, Any] = rm if isinstance(rm, dict) else {}
        ex = table.get("exchanges")
        self.exchanges: dict[str, Any] = ex if isinstance(ex, dict) else {}
        self.table = table

    @classmethod
    def load(cls, path: str | None = None) -> Pricing:
        if path is None:
            # Next to this module (importlib.resources would import much more for one file).
            raw = BUNDLED.read_bytes()
            return cls(orjson.loads(raw), "bundled")
        try:
            table = orjson.loads(read_bounded(path, PRICING_MAX_BYTES))
        except OSError as exc:
            raise PricingError(f"{path}: cannot read pricing file ({exc.strerror or exc})") from exc
        except orjson.JSONDecodeError as exc:
            raise PricingError(f"{path}: pricing file is not valid JSON ({exc})") from exc
        if not isinstance(table, dict) or not isinstance(table.get("models"), dict):
            raise PricingError(f'{path}: pricing file needs a "models" object '
                               '(model -> {"input", "cached_input", "output"} USD per 1M tokens)')
        bad = shape_error(table)
        if bad:
            raise PricingError(f"{path}: {bad}")
        return cls(table, path)

    def model_prices(self, model: str | None) -> dict[str, float] | None:
        if not model:
            return None
        try:
            return self._resolved[model]  # a capture names a handful of models many times
        except KeyError:
            pass
        prices = self.models.get(model)
        if prices is None:
            prices = self.models.get(_DATE_SUFFIX.sub("", model))
        if len(self._resolved) < 1024:
            self._resolved[model] = prices
        return prices

    def cost(self, model: str | None, input_tokens: int | None, cached: int | None,
             output: int | None, hosted: Sequence[HostedCall],
             counters: dict[str, int] | None = None, *, tier: str | None = None,
             tools: Sequence[str] = (), container: str | None = None) -> Cost:
        """The turn's price at `tier` (the response's service_tier, else the request's;
        "batch" for Batch API lines), hosted fees by tool and model class (`tools`: the
        tool types offered, which tell web_search_preview from GA web_search)."""
        tier = TIER_ALIASES.get(tier or "default", tier or "default")
        hosted_usd, parts = self._fees(hosted, counters, model, tools, container) \
            if hosted or counters else (0.0, ())
        if input_tokens is None or output is None:
            return Cost(None, None, hosted_usd, "no usage recorded for this turn", parts, tier)
        if cached is not None and cached > input_tokens:  # which part was cached is unknown
            return Cost(None, None, hosted_usd, "its usage says more cached tokens than input "
                        "tokens", parts, tier)
        rates = self._tier_rates(model, tier)
        if isinstance(rates, str):
            return Cost(None, None, hosted_usd, rates, parts, tier)
        price_in, price_cached, price_out, lines = rates
        try:
            cached_n = cached or 0
            fresh = input_tokens - cached_n
            if fresh < 0:
                fresh = 0
            usd = (fresh * price_in + cached_n * price_cached + output * price_out) / 1_000_000
        except TypeError:
            return Cost(None, None, hosted_usd, f"pricing entry for {model!r} is incomplete",
                        parts, tier)
        tokens = [Part(name, n * rate / 1e6, n, rate, "1M tokens")
                  for (name, rate), n in zip(lines, (fresh, cached_n, output), strict=True) if n]
        return Cost(usd + hosted_usd, usd, hosted_usd, None, (*tokens, *parts), tier)

    def _tier_rates(self, model: str | None, tier: str) -> _Rates | str:
        """(input, cached_input, output) USD per 1M tokens at `tier` with the three line
        items' names, looked up once per model and tier; or why there are none (a shared
        string per model and tier)."""
        key = (model, tier)
        rates = self._rates.get(key)
        if rates is not None:
            return rates
        spec = self.tiers.get(tier) if tier != "default" else None
        if tier != "default" and not isinstance(spec, dict):
            return self._reason(key, f"service tier {tier!r} has no price in the pricing "
                                     f"table ({self.origin}, taken {self.taken})")
        if spec is not None and spec.get("reserved"):
            return self._reason(key, f"service tier {tier!r} is billed by reserved capacity, "
                                     "not per token")
        table = spec.get("models") if spec is not None else None
        if isinstance(table, dict):
            prices = table.get(model) or table.get(_DATE_SUFFIX.sub("", model or ""))
            factor = 1.0
            if prices is None:
                return self._reason(key, f"model {model!r} has no {tier} price in the pricing "
                                         f"table ({self.origin}, taken {self.taken})")
        else:
            prices = self.model_prices(model)
            factor = float(spec.get("factor", 1.0)) if spec is not None else 1.0
            if prices is None:
                return self._unknown_reason(model)
        suffix = "" if tier == "default" else f", {tier}"
        try:
            rate = (prices["input"] * factor,
                    prices.get("cached_input", prices["input"]) * factor,
                    prices["output"] * factor)
            rates = _Rates(*rate, tuple((f"{model}, {kind}{suffix}", r) for kind, r in
                                        zip(("input", "cached input", "output"), rate,
                                            strict=True)))
        except (KeyError, TypeError, AttributeError):
            return f"pricing entry for {model!r} is incomplete"
        if len(self._rates) < 1024:
            self._rates[key] = rates
        return rates

    def _reason(self, key: Any, text: str) -> str:
        reason = self._reasons.get(key)
        if reason is None:
            reason = text
            if len(self._reasons) < 1024:
                self._reasons[key] = reason
        return reason

    def is_reasoning(self, model: str | None) -> bool:
        """Whether a hosted tool fee bills `model` as a reasoning model."""
        spec = self.reasoning_models
        name = model or ""
        if any(name.startswith(x) for x in spec.get("except", ())):
            return False
        return any(name.startswith(x) for x in spec.get("prefixes", ()))

    def _unknown_reason(self, model: str | None) -> str:
        """One shared string per unknown model, not one per turn."""
        reason = self._reasons.get(model)
        if reason is None:
            reason = (f"model {model!r} is not in the pricing table ({self.origin}, "
                      f"taken {self.taken}); pass --pricing FILE")
            if len(self._reasons) < 1024:
                self._reasons[model] = reason
        return reason

    def _fees(self, hosted: Sequence[HostedCall], counters: dict[str, int] | None,
              model: str | None, tools: Sequence[str], container: str | None
              ) -> tuple[float, tuple[Part, ...]]:
        """The hosted fees (`_hosted`) and their sum, made once per distinct set of calls,
        counters and settings: turns repeat them (a search a turn), only tokens differ."""
        key = (tuple([(c.type, c.size, c.quality) for c in hosted]),
               tuple(counters.items()) if counters else None, model,
               tools if type(tools) is tuple else tuple(tools), container)
        fees = self._fee_sets.get(key)
        if fees is None:
            parts: list[Part] = []
            fees = (self._hosted(hosted, counters, model, tools, container, parts),
                    tuple(parts))
            if len(self._fee_sets) < 1024:
                self._fee_sets[key] = fees
        return fees

    def _hosted(self, hosted: Sequence[HostedCall], counters: dict[str, int] | None,
                model: str | None, tools: Sequence[str], container: str | None,
                parts: list[Part]) -> float:
        """Hosted tool fees, each a Part: a provider counter replaces counting the calls of
        its type (the provider bills what it counted); one container per turn (calls do
        not name their container)."""
        counts: dict[tuple[str, str | None], int] = {}
        for call in hosted:
            if not (counters and call.type in counters):
                key = (call.type, _image_shape(call))
                counts[key] = counts.get(key, 0) + 1
        for item, n in (counters or {}).items():
            counts[(item, None)] = counts.get((item, None), 0) + n
        total = 0.0
        for (kind, shape), n in counts.items():
            fee = self.hosted.get(kind)
            if not isinstance(fee, dict) or not n:
                continue
            part = self._fee(kind, n, fee, model, tools, container, shape)
            if part is not None:
                parts.append(part)
                total += part.usd
        return total

    def _fee(self, kind: str, n: int, fee: dict[str, Any], model: str | None,
             tools: Sequence[str], container: str | None, shape: str | None) -> Part | None:
        """`n` calls of `kind` at the fee that applies to them (`shape`: an image's
        "SIZE QUALITY")."""
        name = HOSTED_LINE_ITEMS.get(kind, kind)
        images = fee.get("by_size_quality")
        if shape is not None and isinstance(images, dict):
            size, quality = shape.split(" ")
            by_quality = images.get(size)
            price = by_quality.get(quality) if isinstance(by_quality, dict) else None
            if isinstance(price, int | float):
                return Part(f"{name} ({shape})", float(price) * n, n, float(price), "call")
        if "per_container" in fee:
            sizes = fee.get("by_memory")
            box = container if isinstance(sizes, dict) and container in sizes else "1g"
            rate = float(sizes[box]) if isinstance(sizes, dict) and box in sizes \
                else float(fee["per_container"])
            return Part(f"{name} ({box})", rate, 1, rate, "container")
        if "per_call" not in fee:
            return None
        rate = float(fee["per_call"])
        preview = fee.get("preview")
        if kind == "web_search_call" and isinstance(preview, dict) \
                and any(t.startswith("web_search_preview") for t in tools) \
                and not any(t == "web_search" or t.startswith("web_search_2") for t in tools):
            cls = "reasoning" if self.is_reasoning(model) else "non_reasoning"
            rate = float(preview.get(cls, rate))
            name = f"web search preview tool calls ({cls.replace('_', '-')} model)"
        return Part(name, rate * n, n, rate, "call")
