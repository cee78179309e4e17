"""Whether a pricing table (the bundled one or a `--pricing` file) can price anything: each
entry checked by its key before a turn is priced, so a typo is one message naming where it
is, not a traceback or an infinite cost later."""

from __future__ import annotations

from typing import Any

# Keys a section of the table may hold beside its entries: when and where it was taken.
TABLE_NOTES = ("taken", "source", "note")

# No price or fee reaches this many USD (per 1M tokens, per call, per unit): a table that
# says more is a typo, and its costs would overflow to infinity.
PRICE_LIMIT = 1_000_000


def _price_ok(value: Any) -> bool:
    return type(value) in (int, float) and 0 <= value <= PRICE_LIMIT


def _model_error(where: str, prices: Any) -> str | None:
    """Why one model's entry (`where`: its key, named as the user wrote it) is no price."""
    if not isinstance(prices, dict):
        return f"{where} must be an object of USD prices, not {type(prices).__name__}"
    for need in ("input", "output"):
        if need not in prices:
            return f'{where} has no "{need}" price'
    for key, value in prices.items():
        if key in ("input", "cached_input", "output") and not _price_ok(value):
            return f'{where}["{key}"] must be a number from 0 to {PRICE_LIMIT:,}, not {value!r}'
    return None


def shape_error(table: dict[str, Any]) -> str | None:
    """The first entry of a pricing table that cannot be a price, named by its key."""
    for model, prices in table["models"].items():
        if bad := _model_error(f'models["{model}"]', prices):
            return bad
    if bad := _tiers_error(table.get("tiers")):
        return bad
    hosted = table.get("hosted_tools")
    if hosted is not None and not isinstance(hosted, dict):
        return f'"hosted_tools" must be an object, not {type(hosted).__name__}'
    for tool, fee in (hosted or {}).items():
        if tool in TABLE_NOTES and isinstance(fee, str):
            continue  # the section's own date and source, as the bundled table has
        if not isinstance(fee, dict):
            return f'hosted_tools["{tool}"] must be an object, not {type(fee).__name__}'
        for key in ("per_call", "per_container"):
            if key in fee and not _price_ok(fee[key]):
                return (f'hosted_tools["{tool}"]["{key}"] must be a number from 0 to '
                        f'{PRICE_LIMIT:,}, not {fee[key]!r}')
    return None


def _tiers_error(tiers: Any) -> str | None:
    """The first service tier that cannot be priced: a factor that is no number, a table
    of models that is no price."""
    if tiers is None:
        return None
    if not isinstance(tiers, dict):
        return f'"tiers" must be an object, not {type(tiers).__name__}'
    for tier, spec in tiers.items():
        if tier in TABLE_NOTES and isinstance(spec, str):
            continue
        if not isinstance(spec, dict):
            return f'tiers["{tier}"] must be an object, not {type(spec).__name__}'
        if "factor" in spec and not _price_ok(spec["factor"]):
            return (f'tiers["{tier}"]["factor"] must be a number from 0 to {PRICE_LIMIT:,}, '
                    f'not {spec["factor"]!r}')
        models = spec.get("models")
        if models is not None and not isinstance(models, dict):
            return f'tiers["{tier}"]["models"] must be an object, not {type(models).__name__}'
        for model, prices in (models or {}).items():
            if bad := _model_error(f'tiers["{tier}"]["models"]["{model}"]', prices):
                return bad
    return None
