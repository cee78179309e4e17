"""The hosted-state passes over a whole analysed capture: the provider objects inventory,
the carried-context ledger and replay fidelity, attached to the analysis.

All three need the finished conversations (a source is billed on turns that arrive after
it), so they run once, after the analyzer's loop, and attach their results where every
output path already reads them: the analysis, its conversations and its turns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from traceview.analysis.by_index import finder
from traceview.analysis.hosted.fidelity import assess
from traceview.analysis.hosted.inventory import inventory, request_configs
from traceview.analysis.hosted.ledger import Ledger
from traceview.analysis.hosted.ledger_pass import build_ledger
from traceview.analysis.reports import table_rows
from traceview.capture.model import Problem
from traceview.capture.parallel import aside, min_parallel_rows, workers

LABEL = "capture only"  # fidelity from the capture alone, no provider copy given


def attach(analysis: Any, ledger_of: Callable[[], Ledger] | None = None) -> None:
    """Compute the objects inventory, the ledger and replay fidelity, and attach them;
    `ledger_of`: the ledger's answer when it was begun already (`ledger_aside`).

    These passes read bodies again; a shape nothing anticipated must not take the rest of
    the report down with it, so a failure is reported as a problem (and the three stay
    unset) instead of raised.
    """
    try:
        if ledger_of is not None:
            _attach(analysis, ledger_of)
        else:
            with ledger_aside(analysis) as begun:
                _attach(analysis, begun)
    except Exception as exc:  # noqa: BLE001 - a safety net; the message names the cause
        source = analysis.capture.sources[0] if analysis.capture.sources else "?"
        analysis.problems.append(Problem(
            source, 0, "hosted_state_error",
            f"the carried-context / objects / fidelity passes stopped: "
            f"{type(exc).__name__}: {exc}; every other number is unaffected"))


@contextmanager
def ledger_aside(analysis: Any) -> Iterator[Callable[[], Ledger]]:
    """The carried-context ledger of `analysis` (its turns, conversations and price table
    set), begun in a forked worker for a large capture while the block goes on (the
    inventory and fidelity, whatever else the caller has left): it reads only the turns,
    and takes each turn's tool configuration (with the vector stores its request quoted)
    from the turn table itself. The call yielded waits for it."""
    fork = len(analysis.turns) >= min_parallel_rows() and workers() >= 2
    key = id(analysis)
    _BUILDING[key] = analysis
    try:
        with aside(_ledger, key, fork) as ledger_of:
            yield ledger_of
    finally:
        del _BUILDING[key]


def _attach(analysis: Any, ledger_of: Callable[[], Ledger]) -> None:
    cap, turns = analysis.capture, analysis.turns
    objects = inventory(turns, cap.exchanges, cap.read_raw,
                        _storage_price(analysis.pricing_table))
    fidelity = assess(analysis, objects=objects, label=LABEL)
    ledger = ledger_of()
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


# The analyses whose ledgers are being built, by id: held while a worker forks (and,
# where none can, until the ledger is asked for here, within `ledger_aside`); two screens
# may each finish an analysis in a thread of their own.
_BUILDING: dict[int, Any] = {}


def _ledger(key: int) -> Ledger:
    """The carried-context ledger of the analysis `key` names in `_BUILDING`."""
    analysis = _BUILDING[key]
    turns = analysis.turns
    configs = request_configs(turns, analysis.capture.read_raw)
    bills = {c.key: c.cost_usd for c in analysis.conversations}
    return build_ledger(turns, analysis.pricing_table, configs.get, bills)


def _storage_price(pricing: Any) -> dict[str, Any] | None:
    """The vector store storage price from the price table, when it has one."""
    price = pricing.storage.get("vector_store") if pricing is not None else None
    return price if isinstance(price, dict) else None
