"""Whether a pricing table (the bundled one or a `--pricing` file) can price anything: each
entry checked by its key before a turn is priced, so a typo is one message naming where it
is, not a traceback or an infinite cost later.

Every part of the table the pricing code reads is checked here (analysis/pricing.py and
analysis/cost/): the model tables, the tiers, `reasoning_models`, and every leaf of
`hosted_tools`, `exchanges` and `storage`, which must be a price (a number from 0 to
PRICE_LIMIT) unless it is a note (TABLE_NOTES) or one of the few settings of another
kind (SETTINGS: a container's billing rule)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

# Keys a section or entry of the table may hold beside its prices, as text: when and where
# it was taken, what unit a price is in, how it is billed. Never read as a number.
TABLE_NOTES = ("taken", "source", "note", "unit", "basis")

# No price or fee reaches this many USD (per 1M tokens, per call, per unit): a table that
# says more is a typo, and its costs would overflow to infinity.
PRICE_LIMIT = 1_000_000

# The sections whose every leaf (below its entries, at any depth) is a price.
PRICED_SECTIONS = ("hosted_tools", "exchanges", "storage")

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _price_ok(value: Any) -> bool:
    return type(value) in (int, float) and 0 <= value <= PRICE_LIMIT


def _price_error(where: str, value: Any) -> str | None:
    """Why `value` (at `where`) is no price; None when it is one."""
    if _price_ok(value):
        return None
    return f"{where} must be a number from 0 to {PRICE_LIMIT:,}, not {value!r}"


def _minutes_error(where: str, value: Any) -> str | None:
    """A container's billing block: a whole number of minutes, at least 1 (a price is
    divided by it)."""
    if _price_ok(value) and value >= 1 and value == int(value):
        return None
    return f"{where} must be a whole number of minutes from 1 to {PRICE_LIMIT:,}, not {value!r}"


def _date_error(where: str, value: Any) -> str | None:
    """The day a billing rule starts, compared with each container's UTC day."""
    if isinstance(value, str) and _DATE.fullmatch(value):
        return None
    return f"{where} must be a date as YYYY-MM-DD, not {value!r}"


# Leaves of the priced sections that are not prices, each with its own rule.
SETTINGS: dict[str, Callable[[str, Any], str | None]] = {
    "block_minutes": _minutes_error, "since": _date_error}


def _kind(value: Any) -> str:
    return type(value).__name__


def _model_error(where: str, prices: Any) -> str | None:
    """Why one model's entry (`where`: its key, named as the user wrote it) is no price."""
    if not isinstance(prices, dict):
        return f"{where} must be an object of USD prices, not {_kind(prices)}"
    for need in ("input", "output"):
        if need not in prices:
            return f'{where} has no "{need}" price'
    for key, value in prices.items():
        if key in ("input", "cached_input", "output") \
                and (bad := _price_error(f'{where}["{key}"]', value)):
            return bad
    return None


def shape_error(table: dict[str, Any]) -> str | None:
    """The first entry of a pricing table that cannot be a price, named by its key."""
    for model, prices in table["models"].items():
        if bad := _model_error(f'models["{model}"]', prices):
            return bad
    if bad := _tiers_error(table.get("tiers")):
        return bad
    if bad := _reasoning_error(table.get("reasoning_models")):
        return bad
    for name in PRICED_SECTIONS:
        if bad := _section_error(name, table.get(name)):
            return bad
    return None


def _entries(label: str, section: Any) -> Iterator[str | tuple[str, str, dict[str, Any]]]:
    """Each entry of a section that is not a note, as (its key, where it is, its object);
    a string instead says why the section or an entry is no object (nothing follows it)."""
    if section is None:
        return
    if not isinstance(section, dict):
        yield f'"{label}" must be an object, not {_kind(section)}'
        return
    for key, entry in section.items():
        if key in TABLE_NOTES and isinstance(entry, str):
            continue  # the section's own date and source, as the bundled table has
        where = f'{label}["{key}"]'
        if not isinstance(entry, dict):
            yield f"{where} must be an object, not {_kind(entry)}"
            return
        yield key, where, entry


def _section_error(name: str, section: Any) -> str | None:
    """The first entry of a priced section that is no object, or a leaf in it that is no
    price."""
    for got in _entries(name, section):
        if isinstance(got, str):
            return got
        if bad := _leaves_error(got[1], got[2]):
            return bad
    return None


def _leaves_error(where: str, node: dict[str, Any]) -> str | None:
    """The first leaf below `node` that is neither a note, a setting by its rule, nor a
    price."""
    for key, value in node.items():
        at = f'{where}["{key}"]'
        if key in TABLE_NOTES and isinstance(value, str):
            continue
        if key in SETTINGS:
            bad = SETTINGS[key](at, value)
        elif isinstance(value, dict):
            bad = _leaves_error(at, value)
        else:
            bad = _price_error(at, value)
        if bad:
            return bad
    return None


def _reasoning_error(spec: Any) -> str | None:
    """The model-name prefixes a hosted fee bills as reasoning models (and the
    exceptions): lists of strings."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        return f'"reasoning_models" must be an object, not {_kind(spec)}'
    for key in ("prefixes", "except"):
        names = spec.get(key, [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return (f'reasoning_models["{key}"] must be a list of model-name prefixes '
                    f"(strings), not {names!r}")
    return None


def _tiers_error(tiers: Any) -> str | None:
    """The first service tier that cannot be priced: a factor that is no number, a table
    of models that is no price, a `same_as` that names no tier."""
    for got in _entries("tiers", tiers):
        if isinstance(got, str):
            return got
        tier, where, spec = got
        if "factor" in spec and (bad := _price_error(f'{where}["factor"]', spec["factor"])):
            return bad
        if "same_as" in spec:
            same = spec["same_as"]
            if not (isinstance(same, str) and same != tier
                    and (same == "default" or isinstance(tiers.get(same), dict))):
                return (f'{where}["same_as"] must name another tier of the table '
                        f"(or \"default\"), not {same!r}")
        models = spec.get("models")
        if models is not None and not isinstance(models, dict):
            return f'{where}["models"] must be an object, not {_kind(models)}'
        for model, prices in (models or {}).items():
            if bad := _model_error(f'{where}["models"]["{model}"]', prices):
                return bad
    return None
