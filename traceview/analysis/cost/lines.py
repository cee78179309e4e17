"""A capture's cost as the provider's bill is laid out: per day, project and line item.

This is the seam `traceview reconcile` reads (the provider's Costs API pages are grouped the
same way), so its signature stays stable:

    cost_lines(reports, extra=(), project=None) -> list[CostLine]

`reports`: analysed turns (TurnReport, or anything with `ts` and `priced.parts`);
`extra`: lines that are not turns (vector-store storage accrued, embeddings,
moderations); `project`: the provider project the traffic ran under, when the caller
knows it, for turns whose capture did not record one (the `openai-project` header), else
None. The whole capture's lines, turns and
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
from datetime import UTC, datetime
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


class LineSums:
    """Priced parts summed by (day, project, line item): what `cost_lines` returns, fed
    either from analysed turns or by the analyzer as it prices each turn (`CaptureBill`).
    Held by (day, project), then line item: a turn's parts share their day and project,
    which are then found once a turn, not once a part."""

    def __init__(self) -> None:
        self.by: dict[tuple[str | None, str | None], dict[str, list[Any]]] = {}
        # Each (day, project, line item) in the order first summed (`sums`' order).
        self.order: list[tuple[str | None, str | None, str]] = []

    @property
    def sums(self) -> dict[tuple[str | None, str | None, str], list[Any]]:
        """[usd, quantity, unit] by (day, project, line item), in the order first summed."""
        by = self.by
        return {k: by[(k[0], k[1])][k[2]] for k in self.order}

    def add(self, day: str | None, project: str | None, item: str, usd: float, qty: float,
            unit: str) -> None:
        self.add_parts(day, project, ((item, usd, qty, 0.0, unit),))

    def add_parts(self, day: str | None, project: str | None, parts: Iterable[Any]) -> None:
        """Priced parts (pricing.Part: line item, usd, quantity, rate, unit) into the sums
        of their day and project."""
        sums = self.by.get((day, project))
        if sums is None:
            sums = self.by[(day, project)] = {}
        for item, usd, qty, _rate, unit in parts:
            got = sums.get(item)
            if got is None:
                sums[item] = [usd, qty, unit]
                self.order.append((day, project, item))
            else:
                got[0] += usd
                got[1] += qty

    def lines(self, extra: Iterable[CostLine] = (), project: str | None = None
              ) -> list[CostLine]:
        """The sums and `extra` as lines, by day (unknown last), project, line item."""
        sums = LineSums()
        for (day, proj, item), (usd, qty, unit) in self.sums.items():
            sums.add(day, proj, item, usd, qty, unit)
        for line in extra:
            sums.add(line.day, line.project or project, line.line_item, line.usd,
                     line.quantity, line.unit)
        out = [CostLine(day, proj or project, item, usd, qty, unit)
               for (day, proj, item), (usd, qty, unit) in sums.sums.items()]
        out.sort(key=lambda c: (c.day is None, c.day or "", c.project or "", c.line_item))
        return out


_DAYS: dict[int, str] = {}


def day_of(seconds: float | None) -> str | None:
    """The UTC date of a start in seconds since the epoch (None: unknown or out of range)."""
    if seconds is None or not -62_135_596_800 <= seconds < 253_402_300_800:  # NaN too
        return None
    n = int(seconds // 86400)
    got = _DAYS.get(n)
    if got is None:
        got = datetime.fromtimestamp(n * 86400, tz=UTC).strftime("%Y-%m-%d")
        if len(_DAYS) < 4096:
            _DAYS[n] = got
    return got


class CaptureBill:
    """What the analyzer notes of each turn as it prices it: the priced parts by day,
    project (cost/projects.py) and line item, and whether any turn carried attribution
    (most captures: none, and the report's attribution pass is then skipped)."""

    def __init__(self, projects: Any = None) -> None:
        from traceview.analysis.cost.projects import TurnProjects

        self.sums = LineSums()
        self.attributed = False
        self.projects = TurnProjects(projects)

    def add(self, started_at: float | None, req_extra: dict[str, Any] | None,
            parts: Iterable[Any], res_extra: dict[str, Any] | None = None,
            source: str = "") -> None:
        project = self.projects.of(req_extra, res_extra, source)
        self.sums.add_parts(day_of(started_at), project, parts)
        if not self.attributed:
            self.attributed = (req_extra is not None and not ATTRIBUTED.isdisjoint(req_extra)
                               ) or (res_extra is not None
                                     and not ATTRIBUTED.isdisjoint(res_extra))

    @property
    def containers(self) -> bool:
        """Whether a turn paid a code-interpreter container fee: a line priced by the
        container (read from the sums once, not noted per turn)."""
        return any(unit == "container" for _usd, _qty, unit in self.sums.sums.values())


ATTRIBUTED = frozenset(("metadata", "user", "safety_identifier", "project", "organization"))


def cost_lines(reports: Iterable[Any], extra: Iterable[CostLine] = (),
               project: str | None = None) -> list[CostLine]:
    """Every priced part of every turn, plus `extra`, summed by (day, project, line item)
    and sorted by day (unknown last), then line item. Turns whose cost is unknown add
    nothing here: their count is in the report's totals (cost_unknown_turns)."""
    sums = LineSums()
    for rep in reports:
        ms = rep.started_ms
        sums.add_parts(day_of(None if ms is None else ms / 1000),
                       rep.turn_attribution.project or project, rep.priced.parts)
    return sums.lines(extra, project)


def by_day(lines: Iterable[CostLine]) -> dict[str | None, float]:
    """The lines' total per day (what a per-day budget reads)."""
    out: dict[str | None, float] = {}
    for line in lines:
        out[line.day] = out.get(line.day, 0.0) + line.usd
    return out
