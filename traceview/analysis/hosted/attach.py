"""The hosted-state passes over a whole analysed capture: the provider objects inventory,
the carried-context ledger and replay fidelity, attached to the analysis.

All three need the finished conversations (a source is billed on turns that arrive after
it), so they run once, after the analyzer's loop, and attach their results where every
output path already reads them: the analysis, its conversations and its turns. The ledger
needs nothing of the other two: on a large capture it is built in a forked worker
(`ledger_aside`) while this process makes the inventory and fidelity (nothing else runs
then: the workers that read the capture are done).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from traceview.analysis.by_index import finder
from traceview.analysis.hosted.fidelity import assess
from traceview.analysis.hosted.inventory import inventory
from traceview.analysis.hosted.ledger import Ledger
from traceview.analysis.hosted.ledger_pass import build_ledger
from traceview.analysis.reports import table_rows
from traceview.capture.model import Problem
from traceview.capture.pool import aside, min_parallel_rows, workers

LABEL = "capture only"  # fidelity from the capture alone, no provider copy given


LedgerMade = Callable[[], Ledger]


def attach(analysis: Any, ledger_made: LedgerMade | None = None) -> None:
    """Compute the objects inventory, the ledger and replay fidelity, and attach them;
    `ledger_made`: the ledger, when the caller began it already (`ledger_aside`).

    These passes read bodies again; a shape nothing anticipated must not take the rest of
    the report down with it, so a failure is reported as a problem (and the three stay
    unset) instead of raised.
    """
    try:
        if ledger_made is not None:
            _attach(analysis, ledger_made)
        else:
            with ledger_aside(analysis) as made:
                _attach(analysis, made)
    except Exception as exc:  # noqa: BLE001 - a safety net; the message names the cause
        source = analysis.capture.sources[0] if analysis.capture.sources else "?"
        analysis.problems.append(Problem(
            source, 0, "hosted_state_error",
            f"the carried-context / objects / fidelity passes stopped: "
            f"{type(exc).__name__}: {exc}; every other number is unaffected"))


def ledger_aside(analysis: Any) -> AbstractContextManager[LedgerMade]:
    """The carried-context ledger of `analysis` (its turns, conversations and price table
    set), begun in a forked worker on a large capture while the block goes on; the call
    yielded waits for it (built then, in one process)."""
    fork = len(analysis.turns) >= min_parallel_rows() and workers() >= 2
    return aside(_ledger, analysis, fork=fork)


def _attach(analysis: Any, ledger_made: LedgerMade) -> None:
    cap, turns = analysis.capture, analysis.turns
    objects = inventory(turns, cap.exchanges, cap.read_raw,
                        _storage_price(analysis.pricing_table))
    fidelity = assess(analysis, objects=objects, label=LABEL)
    ledger = ledger_made()
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


def _ledger(analysis: Any) -> Ledger:
    """The carried-context ledger of an analysis (its turns, conversations and price
    table set)."""
    bills = {c.key: c.cost_usd for c in analysis.conversations}
    return build_ledger(analysis.turns, analysis.pricing_table, bills,
                        analysis.capture.read_raw)


def _storage_price(pricing: Any) -> dict[str, Any] | None:
    """The vector store storage price from the price table, when it has one."""
    price = pricing.storage.get("vector_store") if pricing is not None else None
    return price if isinstance(price, dict) else None
