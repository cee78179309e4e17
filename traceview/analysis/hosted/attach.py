"""The hosted-state passes over a whole analysed capture: the provider objects inventory,
the carried-context ledger and replay fidelity, attached to the analysis.

All three need the finished conversations (a source is billed on turns that arrive after
it), so they run once, after the analyzer's loop, and attach their results where every
output path already reads them: the analysis, its conversations and its turns.
"""

from __future__ import annotations

from typing import Any

from traceview.analysis.by_index import finder
from traceview.analysis.hosted.fidelity import assess
from traceview.analysis.hosted.inventory import inventory
from traceview.analysis.hosted.ledger_pass import build_ledger
from traceview.analysis.hosted.tools import TurnConfigs
from traceview.analysis.reports import table_rows
from traceview.capture.model import Problem

LABEL = "capture only"  # fidelity from the capture alone, no provider copy given


def attach(analysis: Any) -> None:
    """Compute the objects inventory, the ledger and replay fidelity, and attach them.

    These passes read bodies again; a shape nothing anticipated must not take the rest of
    the report down with it, so a failure is reported as a problem (and the three stay
    unset) instead of raised.
    """
    try:
        _attach(analysis)
    except Exception as exc:  # noqa: BLE001 - a safety net; the message names the cause
        source = analysis.capture.sources[0] if analysis.capture.sources else "?"
        analysis.problems.append(Problem(
            source, 0, "hosted_state_error",
            f"the carried-context / objects / fidelity passes stopped: "
            f"{type(exc).__name__}: {exc}; every other number is unaffected"))


def _attach(analysis: Any) -> None:
    cap, turns = analysis.capture, analysis.turns
    pricing = analysis.pricing_table
    # The inventory reads each request's quoted ids; the ledger takes each turn's tool
    # configuration (with its vector stores) from them.
    configs = TurnConfigs()
    objects = inventory(turns, cap.exchanges, cap.read_raw, _storage_price(pricing),
                        on_request=configs.see)
    bills = {c.key: c.cost_usd for c in analysis.conversations}
    ledger = build_ledger(turns, pricing, configs.get, bills)
    fidelity = assess(analysis, objects=objects, label=LABEL)
    # Each turn's carried context is looked up in the ledger when read
    # (TurnReport.carried): no account held per turn.
    for columns, _rows in table_rows(turns):
        columns.ledger = ledger
    for conv in analysis.conversations:
        conv.carried = ledger.conversations.get(conv.key)
    turn = finder(turns)
    for index, note in objects.turn_notes.items():
        t = turn(index)
        if t is not None:
            t.provider_copy = note
    analysis.ledger = ledger
    analysis.objects = objects
    analysis.fidelity = fidelity


def _storage_price(pricing: Any) -> dict[str, Any] | None:
    """The vector store storage price from the price table, when it has one."""
    price = pricing.storage.get("vector_store") if pricing is not None else None
    return price if isinstance(price, dict) else None
