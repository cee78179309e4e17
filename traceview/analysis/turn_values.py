"""The values of a turn's row that are computed (not read as stored), each by one small
function: a TurnReport's property (turn_report.py) calls it for one turn, the batch row
builder (turn_rows.py) for each turn of a batch. The values that read one side of the
turn alone are turn_sides.py's.
"""

from __future__ import annotations

from typing import Any

from traceview.analysis.cost.attribution import NO_ATTRIBUTION, NONE, TurnAttribution
from traceview.analysis.hosted.carry import TurnCarry
from traceview.analysis.pricing import Cost
from traceview.analysis.rules.account import report_lines
from traceview.analysis.rules.deposit import model_passes
from traceview.analysis.turn_columns import Attribution, TurnColumns

NOT_PRICED = Cost(None, None, 0.0, "not priced")  # the cost of a turn analysed without prices

def unexplained(input_tokens: int | None, expected: int | None) -> int | None:
    """Billed input minus expected input: positive is a deposit, negative compaction."""
    return None if input_tokens is None or expected is None else input_tokens - expected


def cost_usd(cost: Cost) -> float | None:
    """A turn's cost in USD, tokens and hosted fees (None: the tokens' price is unknown)."""
    return None if cost.tokens_usd is None else round(cost.tokens_usd + cost.hosted_usd, 6)


def passes(output_types: Any, calls: tuple[Any, ...]) -> int:
    """Model passes the output shows (1 + hosted calls the model continued after)."""
    return model_passes(output_types) if calls else 1


def attribution_dict(found: Any) -> dict[str, Any] | None:
    """A deposit's attribution as the report gives it (None: none)."""
    return found.to_dict() if type(found) is Attribution else found


def owner_dict(owner: TurnAttribution) -> dict[str, Any]:
    """Who the turn was for, as the report gives it (most turns': one shared dict)."""
    return NO_ATTRIBUTION if owner is NONE else owner.to_dict()


def carry_of(cols: TurnColumns, row: int, key: str, index: int) -> TurnCarry | None:
    """What turn `index` of conversation `key` pays for context carried from earlier turns:
    an override set on the row, else the ledger's account; None when it carries none."""
    carry = cols.carried.get(row) if cols.carried else None
    if carry is None and cols.ledger is not None:
        carry = cols.ledger.carry(key, index)
    return carry


def input_account(cols: TurnColumns, row: int, handle: str | None, expected: int | None,
                  index: int, made: dict[Any, dict[str, Any]] | None = None,
                  ) -> list[dict[str, Any]] | None:
    """The turn's billed input itemised (rules/account.py), its carried line named by
    `handle`; None when the request could not be read. `made`: the line dicts a batch of
    rows shares (`report_lines`)."""
    found = cols.account(row)
    if found is None:
        return None
    lines, source = found
    copy = cols.carried_copy.get(index) if cols.carried_copy else None  # none: no lookup
    return report_lines(lines, handle, expected, source, copy, made)


def context_value(context: dict[str, Any] | None, key: str) -> Any:
    """A rare finding of the analysis (`context`) as its row key gives it."""
    if key == "expected_input_unknown":  # why expected input is null though usage is known
        return context.get("expected_unknown") if context else None
    if key == "provider_counters":
        return list(context.get("counters", ())) if context else []
    return dict(context) if context else {}  # analysis_context
