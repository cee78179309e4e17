"""The report's `cost` section, made once every turn and exchange is in: attribution
groups, vector-store storage accrued, embeddings and moderations, the capture's cost lines
by day and line item, and (when asked) the month's projection and what went over budget.
Markers it finds (moderation_flagged, over_budget) are set on their turns here.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from traceview.analysis.cost import attribution, containers, exchanges, storage, volume
from traceview.analysis.cost.lines import CaptureBill, CostLine, cost_lines


def _day(entry: dict[str, Any]) -> str | None:
    ts = entry.get("ts")
    if ts is None:
        return None
    try:
        return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d")
    except (OverflowError, ValueError, OSError):
        return None


def _mark(analysis: Any, turn: Any, marker: str, behind: dict[str, Any]) -> None:
    """Set `marker` on the turn (counted once) and keep what lies behind it for the
    turn's explanation (`cost_marks`)."""
    marks = getattr(getattr(turn, "columns", None), "cost_marks", None)
    if marks is not None:
        marks.setdefault(turn.index, {})[marker] = behind
    if marker in turn.markers:
        return
    turn.markers = [*turn.markers, marker]
    counts = analysis.totals.get("markers") if analysis.totals else None
    if isinstance(counts, dict):
        counts[marker] = counts.get(marker, 0) + 1


def attach_cost(analysis: Any, per_month: int | None = None,
                budget: volume.Budget | None = None, bill: CaptureBill | None = None) -> None:
    """Compute the cost section and attach it to the analysis (`analysis.cost`). `bill`:
    what the analyzer noted as it priced the turns (else the turns are read again)."""
    cap, turns, pricing = analysis.capture, analysis.turns, analysis.pricing_table
    meta = attribution.conversation_metadata(cap.exchanges, cap.read)
    if meta:
        for columns in {id(t.columns): t.columns for t in turns}.values():
            columns.conversation_metadata = meta
    rates = pricing.exchanges if pricing is not None else {}
    priced = exchanges.priced(cap.exchanges, cap.read, rates)
    flagged = []
    for e in priced:
        if e.get("flagged"):
            t = exchanges.guarded_turn(e, turns)
            e["guarded_turn"] = t.index if t is not None else None
            if t is not None:
                _mark(analysis, t, "moderation_flagged", e)
            flagged.append(e)
    price = pricing.storage.get("vector_store") if pricing is not None else None
    stores = storage.accrued(analysis.objects, turns,
                             price if isinstance(price, dict) else None)
    given = bill.projects.given if bill is not None else None
    extra = storage.storage_lines(stores, _storage_project(cap.sources, given)) \
        + exchanges.exchange_lines(priced, _day, _exchange_project(cap, given))
    boxes = containers.containers(
        cap.exchanges, cap.read, turns, pricing.hosted.get("code_interpreter_call")
        if pricing is not None else None) \
        if bill is None or bill.containers or _has_containers(cap.exchanges) else []
    section: dict[str, Any] = {
        "attribution": attribution.report(turns) if bill is None or bill.attributed or meta
        else {"keys": [], "groups": {}},
        "storage": stores,
        "exchanges": priced,
        "moderation_flagged": [{"line": e["line"], "categories": e["categories"],
                                "guarded_turn": e["guarded_turn"]} for e in flagged],
        "lines": [c.to_dict() for c in (bill.sums.lines(extra) if bill is not None
                                          else cost_lines(turns, extra))],
        "projection": None, "budget": None,
        "containers": boxes,
    }
    if per_month is not None:
        section["projection"] = volume.project(turns, len(analysis.conversations), per_month)
    if budget is not None:
        entries, over = volume.over_budget(turns, budget)
        for t, entry in zip(over, _by_first(entries, over), strict=True):
            _mark(analysis, t, "over_budget", {**entry, "budget_usd": budget.usd,
                                               "per": budget.per})
        section["budget"] = {"usd": budget.usd, "per": budget.per, "over": entries}
    analysis.cost = section
    analysis.projects = bill.projects if bill is not None else None


def _has_containers(exchanges: Any) -> bool:
    return any(ex.path.startswith("/v1/containers") for ex in exchanges)


def _storage_project(sources: list[str], given: Any) -> str | None:
    """The project the user gave for a capture's storage (a store is not a turn: it has no
    headers of its own): the one capture's, else the one every capture shares."""
    if given is None:
        return None
    project: str | None = given.of(sources[0]) if len(sources) == 1 else given.default
    return project


def _exchange_project(cap: Any, given: Any) -> Any:
    """An exchange's project: what its headers named, else what the user gave for its
    capture file."""
    if given is None:
        return None
    source = {ex.index: ex.source for ex in cap.exchanges}
    names = cap.sources

    def of(entry: dict[str, Any]) -> str | None:
        n = source.get(entry["index"])
        return entry.get("project") or (given.of(names[n]) if n is not None else None)
    return of


def _by_first(entries: list[dict[str, Any]], over: list[Any]) -> list[dict[str, Any]]:
    """The budget entry of each turn in `over` (the entries are sorted by cost)."""
    first = {e["first_turn_over"]: e for e in entries}
    return [first[t.index] for t in over]


def cost_marks(turn: Any) -> dict[str, Any]:
    """What the cost section found behind the turn's moderation_flagged and over_budget
    markers, by marker ({} when none, or for a turn read without the section)."""
    marks = getattr(getattr(turn, "columns", None), "cost_marks", None)
    return marks.get(turn.index, {}) if marks else {}


def analysis_cost_lines(analysis: Any, project: str | None = None) -> list[CostLine]:
    """Everything the capture attributes, as cost lines: the turns' priced parts, storage
    accrued and priced exchanges with a time (the section's `lines`, as `CostLine`s;
    `project` set on each when the caller knows it). [] before the section is made."""
    section = getattr(analysis, "cost", None) or {}
    return [CostLine(d["day"], d["project"] or project, d["line_item"], d["usd"],
                     d["quantity"], d["unit"]) for d in section.get("lines") or ()]
