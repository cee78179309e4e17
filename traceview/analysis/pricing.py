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

from traceview.capture.model import HostedCall

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
    out = {item: n for attr, item in COUNTERS if (n := getattr(res, attr)) is not None}
    return out or None


def _rounded(v: float | None) -> float | None:
    return None if v is None else round(v, 6)


class PricingError(Exception):
    """A pricing file that cannot be used; the message names the file and the fault."""


class Cost(NamedTuple):
    """A turn's price (a tuple: built once per turn, and again whenever a report reads it)."""

    usd: float | None
    tokens_usd: float | None
    hosted_usd: float
    reason: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"tokens_usd": _rounded(self.tokens_usd), "hosted_usd": _rounded(self.hosted_usd),
                "reason": self.reason}


def _price_ok(value: Any) -> bool:
    return type(value) in (int, float) and value >= 0 and value == value and value != float("inf")


def _shape_error(table: dict[str, Any]) -> str | None:
    """The first entry of a pricing table that cannot be a price, named by its key."""
    for model, prices in table["models"].items():
        if not isinstance(prices, dict):
            return f'models["{model}"] must be an object of USD prices, not {type(prices).__name__}'
        for need in ("input", "output"):
            if need not in prices:
                return f'models["{model}"] has no "{need}" price'
        for key, value in prices.items():
            if key in ("input", "cached_input", "output") and not _price_ok(value):
                return f'models["{model}"]["{key}"] must be a number ≥ 0, not {value!r}'
    hosted = table.get("hosted_tools")
    if hosted is not None and not isinstance(hosted, dict):
        return f'"hosted_tools" must be an object, not {type(hosted).__name__}'
    for tool, fee in (hosted or {}).items():
        if not isinstance(fee, dict):
            return f'hosted_tools["{tool}"] must be an object, not {type(fee).__name__}'
        for key in ("per_call", "per_container"):
            if key in fee and not _price_ok(fee[key]):
                return f'hosted_tools["{tool}"]["{key}"] must be a number ≥ 0, not {fee[key]!r}'
    return None


class Pricing:
    def __init__(self, table: dict[str, Any], origin: str) -> None:
        self.origin = origin
        self.taken = str(table.get("taken", "unknown date"))
        self.models: dict[str, dict[str, float]] = dict(table.get("models") or {})
        self.hosted: dict[str, dict[str, Any]] = dict(table.get("hosted_tools") or {})
        storage = table.get("storage")
        self.storage: dict[str, Any] = dict(storage) if isinstance(storage, dict) else {}
        self._resolved: dict[str, dict[str, float] | None] = {}  # model name -> its prices
        # model name -> its (input, cached_input, output) prices, once they are known whole
        self._rates: dict[str, tuple[Any, Any, Any]] = {}
        self._reasons: dict[str | None, str] = {}

    @classmethod
    def load(cls, path: str | None = None) -> Pricing:
        if path is None:
            # Next to this module (importlib.resources would cost 2 MB of imports for one file).
            raw = Path(__file__).with_name("pricing.json").read_bytes()
            return cls(orjson.loads(raw), "bundled")
        try:
            table = orjson.loads(Path(path).read_bytes())
        except OSError as exc:
            raise PricingError(f"{path}: cannot read pricing file ({exc.strerror or exc})") from exc
        except orjson.JSONDecodeError as exc:
            raise PricingError(f"{path}: pricing file is not valid JSON ({exc})") from exc
        if not isinstance(table, dict) or not isinstance(table.get("models"), dict):
            raise PricingError(f'{path}: pricing file needs a "models" object '
                               '(model -> {"input", "cached_input", "output"} USD per 1M tokens)')
        bad = _shape_error(table)
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
             counters: dict[str, int] | None = None) -> Cost:
        hosted_usd = self._hosted(hosted, counters) if hosted or counters else 0.0
        if input_tokens is None or output is None:
            return Cost(None, None, hosted_usd, "no usage recorded for this turn")
        # The model's three prices in one lookup (a capture names a handful of models).
        rates = self._rates.get(model) if model else None
        if rates is None:
            prices = self.model_prices(model)
            if prices is None:
                return Cost(None, None, hosted_usd, self._unknown_reason(model))
            try:
                rates = (prices["input"], prices.get("cached_input", prices["input"]),
                         prices["output"])
            except (KeyError, TypeError, AttributeError):
                return Cost(None, None, hosted_usd,
                            f"pricing entry for {model!r} is incomplete")
            if model and len(self._rates) < 1024:
                self._rates[model] = rates
        price_in, price_cached, price_out = rates
        try:
            cached_n = cached or 0
            fresh = input_tokens - cached_n
            if fresh < 0:
                fresh = 0
            usd = (fresh * price_in + cached_n * price_cached + output * price_out) / 1_000_000
        except TypeError:
            return Cost(None, None, hosted_usd,
                        f"pricing entry for {model!r} is incomplete")
        return Cost(usd + hosted_usd, usd, hosted_usd, None)

    def _unknown_reason(self, model: str | None) -> str:
        """One shared string per unknown model, not one per turn."""
        reason = self._reasons.get(model)
        if reason is None:
            reason = (f"model {model!r} is not in the pricing table ({self.origin}, "
                      f"taken {self.taken}); pass --pricing FILE")
            if len(self._reasons) < 1024:
                self._reasons[model] = reason
        return reason

    def _hosted(self, hosted: Sequence[HostedCall],
                counters: dict[str, int] | None = None) -> float:
        total = 0.0
        container_billed = False  # calls do not name their container: one per turn
        for call in hosted:
            if counters and call.type in counters:
                continue  # billed by the provider's count below
            fee = self.hosted.get(call.type)
            if not isinstance(fee, dict):
                continue
            if "per_container" in fee:
                if not container_billed:
                    container_billed = True
                    total += float(fee["per_container"])
            elif "per_call" in fee:
                total += float(fee["per_call"])
        for item, n in (counters or {}).items():
            fee = self.hosted.get(item)
            if isinstance(fee, dict) and "per_call" in fee:
                total += float(fee["per_call"]) * n
        return total
