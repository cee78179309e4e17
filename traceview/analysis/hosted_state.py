"""The post-pass that follows hosted state over a whole capture: the carried-context
ledger and the provider objects inventory.

Both need the finished conversations (a source is billed on turns that arrive after it),
so they run once, after the one-pass analyzer, and attach their results to the turn and
conversation reports every output path already reads.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from traceview.analysis.fidelity import assess
from traceview.analysis.ledger import ToolConfig, build_ledger
from traceview.analysis.ledger import tool_name as _tool_name
from traceview.analysis.objects import inventory
from traceview.capture.model import Problem

if TYPE_CHECKING:
    from traceview.analysis.session import Analysis

_VS_ID = re.compile(rb'"(vs_[A-Za-z0-9_\-]+)"')


def attach(analysis: Analysis) -> None:
    """Compute the ledger, the objects inventory and replay fidelity, and attach them.

    These passes read bodies again; a shape nothing anticipated must not take the rest
    of the report down with it, so a failure is reported as a problem (and the three
    stay unset) instead of raised.
    """
    try:
        _attach(analysis)
    except Exception as exc:  # noqa: BLE001 - a safety net; the message names the cause
        source = analysis.capture.sources[0] if analysis.capture.sources else "?"
        analysis.problems.append(Problem(
            source, 0, "hosted_state_error",
            f"the carried-context / objects / fidelity passes stopped: "
            f"{type(exc).__name__}: {exc}; every other number is unaffected"))


def _attach(analysis: Analysis) -> None:
    cap = analysis.capture
    by_index = {t.index: t for t in analysis.turns}

    def config_of(index: int) -> ToolConfig | None:
        """Tools from the turn's facts; vector store ids from its request bytes (read only
        when it offers file_search, and never parsed)."""
        t = by_index.get(index)
        if t is None or t.turn.req is None:
            return None
        tools = frozenset(_tool_name(x) for x in t.tools_offered)
        stores: frozenset[str] = frozenset()
        if "file_search" in tools and t.request_ref is not None:
            raw = cap.read_raw(t.request_ref) or b""
            stores = frozenset(m.decode() for m in _VS_ID.findall(raw))
        return ToolConfig(tools, stores)

    bills = {c.key: c.cost_usd for c in analysis.conversations}
    pricing = getattr(analysis, "pricing_table", None)
    ledger = build_ledger(analysis.turns, pricing, config_of, bills)
    for index, carry in ledger.turns.items():
        t = by_index.get(index)
        if t is not None:
            t.carried = carry
    for conv in analysis.conversations:
        conv.carried = ledger.conversations.get(conv.key)
    analysis.ledger = ledger

    store_price = pricing.storage.get("vector_store") if pricing is not None else None
    storage = store_price if isinstance(store_price, dict) else None
    objects = inventory(analysis.turns, cap.exchanges, cap.read_raw, storage)
    for index, note in objects.turn_notes.items():
        t = by_index.get(index)
        if t is not None:
            t.provider_copy = note
    analysis.objects = objects
    # Replay fidelity from the capture alone (hosted turns stay unverified until a provider
    # copy is given: `traceview fidelity --live / --items`).
    analysis.fidelity = assess(analysis, objects=objects, label="capture only")
