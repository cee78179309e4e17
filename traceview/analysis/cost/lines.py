"""A capture's cost as the provider's bill is laid out: per day, project and line item.

This is the seam `traceview reconcile` reads (the provider's Costs API pages are grouped the
same way), so its signature stays stable:

    cost_lines(reports, extra=(), project=None) -> list[CostLine]

`reports`: analysed turns (TurnReport, or anything with `ts` and `priced.parts`);
`extra`: lines that are not turns (vector-store storage accrued, embeddings,
moderations); `project`: the provider project the traffic ran under, when the caller
knows it (a capture does not record it), else None. The whole capture's lines, turns and
the rest, once the report's cost section is made:
`analysis/cost/section.py analysis_cost_lines(analysis, project=None)`.

Line items are named like the Costs API's: "<model>, input", "<model>, cached input",
"<model>, output" (", <tier>" appended off the standard tier, e.g. ", flex", ", batch"),
"web search tool calls", "web search preview tool calls (non-reasoning model)",
"file search tool calls", "code interpreter sessions (1g)", "image generation",
"vector store storage", "<embedding model>, embeddings", "moderations".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CostLine:
    """What the capture attributes to one (day, project, line item): `usd` summed over the
    turns (or objects) on that UTC day; `day` None when the capture has no time for them."""

    day: str | None
    project: str | None
    line_item: str
    usd: float
    quantity: float = 0.0
    unit: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"day": self.day, "project": self.project, "line_item": self.line_item,
                "usd": round(self.usd, 6), "quantity": self.quantity, "unit": self.unit}


def cost_lines(reports: Iterable[Any], extra: Iterable[CostLine] = (),
               project: str | None = None) -> list[CostLine]:
    """Every priced part of every turn, plus `extra`, summed by (day, project, line item)
    and sorted by day (unknown last), then line item. Turns whose cost is unknown add
    nothing here: their count is in the report's totals (cost_unknown_turns)."""
    sums: dict[tuple[str | None, str | None, str], list[Any]] = {}
    for rep in reports:
        ts = rep.ts
        day = ts[:10] if ts else None
        for part in rep.priced.parts:
            _add(sums, (day, project, part.line_item), part.usd, part.quantity, part.unit)
    for line in extra:
        _add(sums, (line.day, line.project or project, line.line_item), line.usd,
             line.quantity, line.unit)
    out = [CostLine(day, proj, item, usd, qty, unit)
           for (day, proj, item), (usd, qty, unit) in sums.items()]
    out.sort(key=lambda c: (c.day is None, c.day or "", c.project or "", c.line_item))
    return out


def _add(sums: dict[tuple[str | None, str | None, str], list[Any]],
         key: tuple[str | None, str | None, str], usd: float, qty: float, unit: str) -> None:
    got = sums.get(key)
    if got is None:
        sums[key] = [usd, qty, unit]
    else:
        got[0] += usd
        got[1] += qty


def by_day(lines: Iterable[CostLine]) -> dict[str | None, float]:
    """The lines' total per day (what a per-day budget reads)."""
    out: dict[str | None, float] = {}
    for line in lines:
        out[line.day] = out.get(line.day, 0.0) + line.usd
    return out
