"""Code-interpreter container time: what each container in the capture was billed for.

A container is billed while it runs, not per call: since 2026-06-02 per minute with a
5-minute minimum (pricing.json names the source); before, one 20-minute session price a
container. A capture shows when a container started (its POST /v1/containers answer, else
the first turn whose code-interpreter call ran in it), when it was last used (the last
such turn's end, or a later `last_active_at` a retrieve answered) and when it ended (a
DELETE, else idle expiry: `expires_after.minutes` after the last use, 20 by default). Its
billed time is a range: at least first → last use, at most first → deletion or expiry.
Without a time for its start, the range is unknown (null), never 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from traceview.analysis.cost.storage import turn_clock
from traceview.analysis.turn_sides import FIRST_SECOND, PAST_LAST_SECOND
from traceview.capture.model import Exchange, RecordRef

DEFAULT_EXPIRY_MINUTES = 20  # the provider's idle expiry when expires_after is not set
DEFAULT_MEMORY = "1g"


@dataclass
class Box:
    """What the capture shows of one container."""

    id: str
    created_at: float | None = None
    created_line: int | None = None
    expiry_minutes: int | None = None
    memory: str | None = None
    last_active_at: float | None = None  # the latest a retrieve answered
    deleted_at: float | None = None
    deleted_line: int | None = None
    uses: list[tuple[int, float | None, float | None]] = field(default_factory=list)
    turn_memory: str | None = None  # the request's container memory_limit


def _num(v: Any) -> float | None:
    """A time in seconds, or None: also for one no calendar holds (a damaged or hostile
    capture's 1e300), which would end the report in a traceback where a date is printed."""
    ok = isinstance(v, int | float) and not isinstance(v, bool)
    return float(v) if ok and FIRST_SECOND <= v < PAST_LAST_SECOND else None


def _record(read: Callable[[RecordRef | None], Any], ref: RecordRef | None
            ) -> tuple[dict[str, Any], float | None]:
    rec = read(ref) if ref is not None else None
    if not isinstance(rec, dict):
        return {}, None
    body = rec.get("body")
    return (body if isinstance(body, dict) else {}), _num(rec.get("ts"))


def _settings(box: Box, body: dict[str, Any]) -> None:
    """expires_after and memory_limit from a create request or a container object."""
    after = body.get("expires_after")
    minutes = after.get("minutes") if isinstance(after, dict) else None
    if type(minutes) is int and minutes > 0:
        box.expiry_minutes = minutes
    if isinstance(body.get("memory_limit"), str):
        box.memory = body["memory_limit"][:8]


def _exchange(boxes: dict[str, Box], ex: Exchange, read: Callable[[RecordRef | None], Any],
              when: Callable[[int], float | None]) -> None:
    parts = ex.path.rstrip("/").split("/")  # ["", "v1", "containers", id?]
    if parts[:3] != ["", "v1", "containers"] or len(parts) > 4:
        return
    req, req_ts = _record(read, ex.request)
    res, res_ts = _record(read, ex.response)
    cid = parts[3] if len(parts) == 4 else res.get("id")
    if not isinstance(cid, str) or not cid or (ex.status_code or 200) >= 400:
        return
    box = boxes.setdefault(cid, Box(cid))
    if ex.method == "DELETE":
        box.deleted_at = req_ts or res_ts or when(ex.line)
        box.deleted_line = ex.line
        return
    if ex.method == "POST" and len(parts) == 3:
        box.created_at = _num(res.get("created_at")) or req_ts
        box.created_line = ex.line
        _settings(box, req)
    _settings(box, res)
    active = _num(res.get("last_active_at"))
    if active is not None and (box.last_active_at is None or active > box.last_active_at):
        box.last_active_at = active


def _turns(boxes: dict[str, Box], turns: Sequence[Any]) -> None:
    """Each turn whose code-interpreter calls ran in a container: a use of it."""
    for t in turns:
        if not any(c.type == "code_interpreter_call" for c in t.calls):
            continue
        lin = t.lineage or {}
        ids = {r["container_id"] for r in lin.get("retrieval", ()) if r.get("container_id")}
        ms = t.started_ms
        start = None if ms is None else ms / 1000
        end = None if start is None else start + (t.elapsed_ms or 0) / 1000
        memory = (t.req.extra or {}).get("container_memory") if t.req is not None else None
        for cid in sorted(ids):
            box = boxes.setdefault(cid, Box(cid))
            box.uses.append((t.index, start, end))
            box.turn_memory = box.turn_memory or memory


def containers(exchanges: Sequence[Exchange], read: Callable[[RecordRef | None], Any],
               turns: Sequence[Any], fee: dict[str, Any] | None) -> list[dict[str, Any]]:
    """One entry per container the capture shows: its life, billed minutes and fee as a
    range with the basis of each end (cost section `containers`)."""
    boxes: dict[str, Box] = {}
    lines, starts, _end = turn_clock(turns)

    def when(line: int) -> float | None:  # an exchange with no time: the turn before it
        from bisect import bisect_left

        k = bisect_left(lines, line)
        return starts[k - 1] if k else None

    for ex in exchanges:
        _exchange(boxes, ex, read, when)
    _turns(boxes, turns)
    rule = (fee or {}).get("per_minute")
    return [entry(b, rule if isinstance(rule, dict) else None, fee or {})
            for b in boxes.values()]


def _life(b: Box) -> dict[str, Any]:
    """Start, last use and end (the upper bound) with how each was found."""
    timed = [(i, s, e) for i, s, e in b.uses if s is not None]
    start, start_basis = b.created_at, f"created (line {b.created_line})"
    if start is None and timed:
        first = min(timed, key=lambda u: u[1] or 0.0)
        start, start_basis = first[1], f"first used, turn {first[0]}"
    if start is None:
        return {"started_at": None, "start_basis": "no time for its creation or first use"}
    last, last_basis = start, "never used after it was created"
    if timed:
        use = max(timed, key=lambda u: u[2] or 0.0)
        last, last_basis = use[2] or start, f"last used, turn {use[0]}"
    if b.last_active_at is not None and b.last_active_at > last:
        last, last_basis = b.last_active_at, "last_active_at a retrieve answered"
    if last < start:  # a use timed before the creation: two clocks (recorder, provider)
        last, last_basis = start, f"{last_basis} — timed before its start (another clock)"
    minutes = b.expiry_minutes or DEFAULT_EXPIRY_MINUTES
    expiry = last + minutes * 60
    said = "expires_after" if b.expiry_minutes else "the default; no expires_after recorded"
    end, end_basis = expiry, f"idle expiry, {minutes} min after the last use ({said})"
    if b.deleted_at is not None and b.deleted_at < expiry:
        end, end_basis = max(b.deleted_at, last), f"deleted (line {b.deleted_line})"
    return {"started_at": start, "start_basis": start_basis, "last_used_at": last,
            "last_use_basis": last_basis, "ended_at_high": end, "end_basis": end_basis}


def entry(b: Box, rule: dict[str, Any] | None, fee: dict[str, Any]) -> dict[str, Any]:
    """The report's entry for one container."""
    memory = b.memory or b.turn_memory
    out: dict[str, Any] = {"id": b.id, "memory": memory or DEFAULT_MEMORY,
                           "memory_basis": "recorded" if memory else "the default (1g)",
                           "turns": sorted({u[0] for u in b.uses}), **_life(b)}
    if out["started_at"] is None:
        return {**out, "minutes_low": None, "minutes_high": None, "usd_low": None,
                "usd_high": None, "billing": None, "basis": out["start_basis"]}
    low = (out["last_used_at"] - out["started_at"]) / 60
    high = (out["ended_at_high"] - out["started_at"]) / 60
    out.update(minutes_low=round(low, 3), minutes_high=round(high, 3))
    out.update(_priced(low, high, out["started_at"], out["memory"], rule, fee))
    return out


def _priced(low: float, high: float, start: float, memory: str,
            rule: dict[str, Any] | None, fee: dict[str, Any]) -> dict[str, Any]:
    """The fee range: per minute (rounded up, with the minimum) from the date the rule
    starts; before it, one session price a container."""
    blocks = fee.get("by_memory")
    block = (blocks if isinstance(blocks, dict) else {}).get(memory, fee.get("per_container"))
    if rule is None or not isinstance(block, int | float):
        return {"usd_low": None, "usd_high": None, "billing": None,
                "basis": f"no container price for {memory} in the pricing table"}
    size = int(rule.get("block_minutes", 20))
    since = str(rule.get("since", ""))
    day = datetime.fromtimestamp(start, tz=UTC).strftime("%Y-%m-%d")
    if day >= since:
        floor = int(rule.get("minimum_minutes", 0))
        rate = float(block) / size

        def usd(m: float) -> float:
            return round(max(floor, math.ceil(m - 1e-9)) * rate, 6)
        return {"usd_low": usd(low), "usd_high": usd(high), "billing": "per_minute",
                "rate_usd_per_minute": round(rate, 6),
                "basis": f"billed per minute since {since} (${rate:g}/min for {memory}, "
                         f"minutes rounded up, {floor}-minute minimum); low: first to last "
                         "use, high: to its end"}
    return {"usd_low": float(block), "usd_high": float(block), "billing": "session",
            "rate_usd_per_session": float(block),
            "basis": f"before {since}: billed per container session, ${block:g} for "
                     f"{memory} whatever its length (the {size}-minute block)"}
