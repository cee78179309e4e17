"""Vector-store storage accrued over each store's life in the capture.

The provider bills storage per GB-day while a store exists, not per call. A store's life
in the capture runs from its `created_at` to its DELETE (the time of the last turn before
that line; capture records do not time exchanges) or, when it is never deleted, to the
capture's end (its last turn's start plus elapsed time). Its size is the `usage_bytes` the
capture recorded (a create or retrieve answer); without one, the fee is a labelled range.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from traceview.analysis.cost.lines import CostLine

GB = 1_000_000_000  # the provider bills storage in decimal GB
LINE_ITEM = "vector store storage"


def turn_clock(turns: Sequence[Any]) -> tuple[Sequence[int], Sequence[float], float | None]:
    """Turn lines and start times (seconds) in line order (ties by start), and the
    capture's end. Held in two arrays, sorted only when the turns are not in line order
    already (a list of pairs, one per turn, was the report's peak on a large capture)."""
    lines, starts = array("q"), array("d")
    end = None
    for t in turns:
        ms = t.started_ms
        if ms is not None:
            lines.append(t.line)
            starts.append(ms / 1000)
            stop = ms / 1000 + (t.elapsed_ms or 0) / 1000
            end = stop if end is None or stop > end else end
    if any(a >= b for a, b in pairwise(lines)):
        order = sorted(range(len(lines)), key=starts.__getitem__)
        order.sort(key=lines.__getitem__)  # stable: by line, then start
        lines = array("q", map(lines.__getitem__, order))
        starts = array("d", map(starts.__getitem__, order))
    return lines, starts, end


def accrued(objects: Any, turns: Sequence[Any], price: dict[str, Any] | None
            ) -> list[dict[str, Any]]:
    """One entry per vector store the capture shows: its life (start, end, days, how the
    end was found), its size, and the fee accrued (`usd`), or a range (`usd_low`,
    `usd_high`: null when it cannot be bounded) with the reason."""
    if objects is None or not price:
        return []
    stores = objects.held("vector_store")
    if not stores:
        return []
    rate = float(price.get("per_gb_day", 0.0))
    free = float(price.get("free_gb", 0.0))
    lines, starts, end = turn_clock(turns)
    out = []
    for o in stores:
        stop, how = end, "the capture's end"
        if o.deleted_line is not None:
            k = bisect_left(lines, o.deleted_line)
            if k:
                stop, how = starts[k - 1], f"deleted (line {o.deleted_line})"
        days = None if o.created_at is None or stop is None \
            else max(0.0, stop - o.created_at) / 86400
        entry: dict[str, Any] = {"id": o.id, "created_at": o.created_at, "ended_at": stop,
                                 "ended": how, "days": None if days is None else round(days, 6),
                                 "usage_bytes": o.usage_bytes, "rate_usd_per_gb_day": rate,
                                 "free_gb": free}
        entry.update(_fee(o.usage_bytes, days, rate, free))
        out.append(entry)
    return out


def _fee(size: int | None, days: float | None, rate: float, free: float) -> dict[str, Any]:
    """The fee for one store: gross (size × days × rate) as the high end; the low end
    nets the free GB (it is the organisation's, shared by every store)."""
    if days is None:
        return {"usd": None, "usd_low": None, "usd_high": None,
                "basis": "no creation time in the capture: the store's life is unknown"}
    if size is None:
        return {"usd": None, "usd_low": 0.0, "usd_high": None,
                "basis": "no usage_bytes recorded: between $0 (within the free "
                         f"{free:g} GB) and unbounded"}
    gb = size / GB
    high = gb * days * rate
    low = max(0.0, gb - free) * days * rate
    return {"usd": round(high, 6), "usd_low": round(low, 6), "usd_high": round(high, 6),
            "basis": f"{gb:.6f} GB × {days:.4f} days × ${rate:g}/GB-day (the high end; the "
                     f"low end nets the organisation's free {free:g} GB)"}


def storage_lines(entries: Sequence[dict[str, Any]], project: str | None = None
                  ) -> list[CostLine]:
    """The accrued fees (gross) as cost lines, split over the UTC days each store lived
    (the provider bills storage per day), under `project` when it is known. Stores whose
    fee is unknown add nothing."""
    from datetime import UTC, datetime

    out = []
    for e in entries:
        if e.get("usd") is None or not e.get("days"):
            continue
        gb = (e["usage_bytes"] or 0) / GB
        t, stop = float(e["created_at"]), float(e["ended_at"])
        while t < stop:
            next_day = (t // 86400 + 1) * 86400
            span = (min(stop, next_day) - t) / 86400
            day = datetime.fromtimestamp(t, tz=UTC).strftime("%Y-%m-%d")
            out.append(CostLine(day, project, LINE_ITEM, gb * span * e["rate_usd_per_gb_day"],
                                round(gb * span, 9), "GB-day"))
            t = next_day
    return out
