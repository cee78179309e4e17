"""The capture's side of a reconciliation: what each day's traffic cost, as lines.

The seam is :class:`traceview.report.reconcile.CostLine` (day, project, line item, usd).
The lines are the cost section's (``analysis.cost["lines"]``, analysis/cost/lines.py):
every priced part of every turn, storage accrued, embeddings and moderations — priced once,
there, and only grouped here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from traceview.report.reconcile import model_base


@dataclass(frozen=True)
class TurnCostLine:
    day: str | None
    project: str | None
    line_item: str
    usd: float | None


@dataclass
class CaptureSide:
    lines: list[TurnCostLine]
    undated: int  # turns (or lines) without a time: no day to put them on
    requests: dict[tuple[str, str | None, str], int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    projects: dict[str, Any] | None = None  # how the turns' projects were found


def _day(turn: Any) -> str | None:
    ts = turn.ts
    return ts[:10] if isinstance(ts, str) else None


def _project_of(given: Any) -> Callable[[Any], str | None]:
    """A turn's project as its cost lines name it: recorded, else the user's map's."""
    def of(turn: Any) -> str | None:
        owner = getattr(turn, "turn_attribution", None)  # a report's turn has one
        recorded = owner.project if owner is not None else None
        return recorded or (given.of(turn.source) if given is not None else None)
    return of


def captured_requests(turns: Iterable[Any], project_of: Callable[[Any], str | None]
                      = lambda t: None) -> dict[tuple[str, str | None, str], int]:
    """Model requests the capture holds, by (day, project, model base): one a turn with a
    response."""
    out: dict[tuple[str, str | None, str], int] = defaultdict(int)
    for t in turns:
        day = _day(t)
        if day is not None and t.model and t.input_tokens is not None:
            out[(day, project_of(t), model_base(t.model))] += 1
    return dict(out)


def capture_side(analysis: Any) -> CaptureSide:
    """The capture's lines, request counts and what they leave out."""
    turns = analysis.turns
    section = getattr(analysis, "cost", None)
    projects = getattr(analysis, "projects", None)
    project_of = _project_of(projects.given if projects is not None else None)
    notes: list[str] = projects.notes() if projects is not None else []
    if isinstance(section, dict) and isinstance(section.get("lines"), list):
        lines = [TurnCostLine(d.get("day"), d.get("project"), d["line_item"], d["usd"])
                 for d in section["lines"]]
        # The section's lines leave unpriced turns out; an unknown line keeps their rows
        # unknown (never a silent 0), as the per-turn lines do.
        lines += [TurnCostLine(_day(t), project_of(t),
                               f"{model_base(t.model or 'unknown model')}, tokens", None)
                  for t in turns if t.cost_usd is None and t.input_tokens is not None]
    else:  # an analysis made without its cost section: nothing to attribute
        lines = []
        notes.append("the analysis has no cost section: nothing is attributed")
    undated = sum(1 for ln in lines if ln.day is None)
    if undated:
        notes.append(f"{undated:,} capture line(s) have no time and were left out")
    return CaptureSide(lines, undated, captured_requests(turns, project_of), notes,
                       projects.to_dict() if projects is not None else None)
