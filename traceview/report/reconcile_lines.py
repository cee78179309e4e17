"""The capture's side of a reconciliation: what each day's turns cost, as lines.

Until the cost attribution (analysis/cost) gives finer lines, a turn gives at most two: its
model's tokens and its hosted tool fees, from the turn's own price (``TurnReport.cost``).
The seam is :class:`traceview.report.reconcile.CostLine`; any function giving such lines
can replace :func:`capture_lines`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from traceview.report.reconcile import HOSTED_LINE, model_base


@dataclass(frozen=True)
class TurnCostLine:
    day: str
    project_id: str | None
    line_item: str
    usd: float | None


def _day(turn: Any) -> str | None:
    ts = turn.ts
    return ts[:10] if isinstance(ts, str) else None


def capture_lines(turns: Iterable[Any]) -> tuple[list[TurnCostLine], int]:
    """A tokens line per priced turn (unknown cost: ``usd`` None) and a hosted-tools line
    where the turn paid tool fees; with the count of turns left out for having no time
    (a day cannot be given to them)."""
    out: list[TurnCostLine] = []
    undated = 0
    for t in turns:
        day = _day(t)
        if day is None:
            undated += 1
            continue
        cost = t.cost
        model = model_base(t.model) if t.model else "unknown model"
        if t.input_tokens is not None or cost.get("tokens_usd") is not None:
            out.append(TurnCostLine(day, None, f"{model}, tokens", cost.get("tokens_usd")))
        if cost.get("hosted_usd"):
            out.append(TurnCostLine(day, None, HOSTED_LINE, cost["hosted_usd"]))
    return out, undated


def captured_requests(turns: Iterable[Any]) -> dict[tuple[str, str], int]:
    """Model requests the capture holds, by (day, model base): one a turn with a response."""
    out: dict[tuple[str, str], int] = defaultdict(int)
    for t in turns:
        day = _day(t)
        if day is not None and t.model and t.input_tokens is not None:
            out[(day, model_base(t.model))] += 1
    return dict(out)
