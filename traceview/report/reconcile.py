"""Reconciliation: what a capture attributes against what the provider billed.

Both sides come in as lines of (day, project, line item, USD). The provider's line items
("gpt-4.1-2025-04-14, input", "web search tool calls", …) and the capture's are brought to
one key by :func:`line_key`, so each row compares like with like; the remainder is
billed − attributed (positive: the bill is higher than the capture explains). A row is
reconciled when its remainder is within the stated tolerance, or explained by a measured
reason (the provider's usage counts requests the capture does not hold).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from traceview.report.reconcile_projects import ALL_PROJECTS, ProjectBuckets

ALL_LINES = "(all line items)"  # the bill was read without group_by=line_item
HOSTED_LINE = "hosted tools"
_DATE_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}$")
_TOOL_WORDS = ("web search", "file search", "code interpreter", "container",
               "image generation", "computer use tool")
_DIRECTIONS = ("input", "cached input", "output", "tokens", "cached_input", "embeddings")
_TIERS = ("flex", "batch", "priority", "scale")

# Why a remainder is expected even when the capture is right, by the remainder's sign.
REASONS_POSITIVE = (
    "other workloads on the account or project (traffic this capture did not record)",
    "traffic not captured (requests sent around the recorder, or before/after the capture)",
    "rounding of the provider's daily amounts",
)
REASONS_NEGATIVE = (
    "discounts or credits the bill applies (Batch, flex, negotiated rates)",
    "the capture priced at a rate the bill did not use (pricing table date or tier)",
    "rounding of the provider's daily amounts",
)


class CostLine(Protocol):
    """One line the capture attributes: the seam with the cost engineer's attribution."""

    @property
    def day(self) -> str | None: ...
    @property
    def project(self) -> str | None: ...
    @property
    def line_item(self) -> str: ...
    @property
    def usd(self) -> float | None: ...


@dataclass(frozen=True)
class BilledLine:
    """One result of a Costs API bucket: ``amount.value`` for a day, project, line item."""

    day: str
    project_id: str | None
    line_item: str | None
    usd: float
    currency: str = "usd"


@dataclass(frozen=True)
class UsageLine:
    """One result of a Usage API bucket: requests (or sessions, images) for a day."""

    endpoint: str  # "completions", "embeddings", "vector_stores", …
    day: str
    project_id: str | None
    model: str | None
    requests: int | None
    quantities: dict[str, int | float] = field(default_factory=dict)


@dataclass
class BillRead:
    """What was read of the provider's figures, and whether all of it was."""

    billed: list[BilledLine]
    usage: list[UsageLine]
    days_read: set[str]  # days whose cost bucket was seen
    complete: bool
    sources: list[str]  # files, or endpoints with page counts
    stopped: str | None = None  # why a partial read stopped


@dataclass(frozen=True)
class Tolerance:
    usd: float = 0.01
    pct: float = 1.0

    def allows(self, remainder: float, billed: float | None) -> bool:
        """Within max(usd, pct % of the billed amount): rounding and tiny drift pass."""
        limit = max(self.usd, abs(billed or 0.0) * self.pct / 100)
        return abs(remainder) <= limit + 1e-9

    def __str__(self) -> str:
        return f"${self.usd:g} or {self.pct:g} % of the billed amount, whichever is larger"


@dataclass
class Row:
    day: str
    project_id: str
    line: str
    attributed: float | None
    billed: float | None
    remainder: float | None
    status: str  # "reconciled" | "explained" | "beyond" | "unknown"
    reasons: list[str]
    billed_scope: str = "this project"  # what the billed amount covers (ProjectBuckets)

    def to_dict(self) -> dict[str, Any]:
        return {"day": self.day, "project_id": self.project_id, "line_item": self.line,
                "attributed_usd": _r(self.attributed), "billed_usd": _r(self.billed),
                "remainder_usd": _r(self.remainder), "status": self.status,
                "reasons": self.reasons, "billed_scope": self.billed_scope}


def _r(v: float | None) -> float | None:
    return None if v is None else round(v, 6)


def model_base(model: str) -> str:
    """A model name without its date snapshot: the bill names snapshots, captures either."""
    return _DATE_SUFFIX.sub("", model.strip())


def line_key(line_item: str | None) -> str:
    """The comparison key of a line item, from either side: a model's tokens (input,
    cached input and output together), hosted tool fees, or the item as written."""
    if line_item is None:
        return ALL_LINES
    text = " ".join(line_item.split()).lower()
    if any(word in text for word in _TOOL_WORDS):
        return HOSTED_LINE
    head, sep, tail = text.rpartition(",")
    tier = ""
    if sep and tail.strip() in _TIERS:  # "<model>, input, flex": a tier's own row
        tier = f" ({tail.strip()})"
        head, sep, tail = head.rpartition(",")
    if sep and tail.strip() in _DIRECTIONS:
        return f"{model_base(head)} tokens{tier}"
    return text


def _sum(values: Iterable[float | None]) -> float | None:
    total = 0.0
    for v in values:
        if v is None:
            return None
        total += v
    return total


@dataclass(frozen=True)
class _Line:
    """A capture line with the project the caller gave for lines that name none."""

    day: str | None
    project: str | None
    line_item: str
    usd: float | None


def _capture_sums(lines: Sequence[_Line], buckets: ProjectBuckets, totals_only: set[str]
                  ) -> tuple[dict[tuple[str, str, str], float | None], int]:
    """Capture USD by (day, row project, key); lines of unknown cost make the sum unknown."""
    out: dict[tuple[str, str, str], list[float | None]] = defaultdict(list)
    unpriced = 0
    for ln in lines:
        if ln.day is None:
            continue
        key = ALL_LINES if ln.day in totals_only else line_key(ln.line_item)
        out[(ln.day, buckets.capture_key(ln.day, ln.project), key)].append(ln.usd)
        unpriced += ln.usd is None
    return {k: _sum(v) for k, v in out.items()}, unpriced


def _billed_sums(bill: BillRead, buckets: ProjectBuckets
                 ) -> dict[tuple[str, str, str], float]:
    out: dict[tuple[str, str, str], float] = defaultdict(float)
    for b in bill.billed:
        proj = buckets.billed_key(b.day, b.project_id)
        if proj is not None:
            out[(b.day, proj, line_key(b.line_item))] += b.usd
    return out


def _requests(usage: Sequence[UsageLine], buckets: ProjectBuckets
              ) -> dict[tuple[str, str, str], int]:
    """Model requests the provider counted, by (day, row project, model base)."""
    out: dict[tuple[str, str, str], int] = defaultdict(int)
    for u in usage:
        if u.endpoint != "completions" or u.model is None or u.requests is None:
            continue
        proj = buckets.usage_key(u.day, u.project_id)
        if proj is not None:
            out[(u.day, proj, model_base(u.model))] += u.requests
    return out


def _captured(requests: dict[tuple[str, str | None, str], int], buckets: ProjectBuckets
              ) -> dict[tuple[str, str, str], int]:
    """The capture's model requests by (day, row project, model base)."""
    out: dict[tuple[str, str, str], int] = defaultdict(int)
    for (day, project, model), n in requests.items():
        out[(day, buckets.capture_key(day, project), model)] += n
    return out


@dataclass
class Reconciliation:
    rows: list[Row]
    tolerance: Tolerance
    complete: bool
    sources: list[str]
    project: str | None
    notes: list[str] = field(default_factory=list)
    stopped: str | None = None
    buckets: ProjectBuckets | None = None
    turn_projects: dict[str, Any] | None = None  # how the turns' projects were found

    @property
    def beyond(self) -> list[Row]:
        return [r for r in self.rows if r.status == "beyond"]

    def totals(self) -> dict[str, float | None]:
        att = _sum(r.attributed for r in self.rows)
        billed = _sum(r.billed for r in self.rows)
        rem = None if att is None or billed is None else billed - att
        return {"attributed_usd": _r(att), "billed_usd": _r(billed), "remainder_usd": _r(rem)}

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": "traceview.reconcile/1", "complete": self.complete,
            "stopped": self.stopped, "sources": self.sources,
            "project": self.project or ALL_PROJECTS,
            "projects": {**(self.buckets.to_dict() if self.buckets is not None else {}),
                         "turns": self.turn_projects},
            "tolerance": {"usd": self.tolerance.usd, "pct": self.tolerance.pct,
                          "rule": str(self.tolerance)},
            "rows": [r.to_dict() for r in self.rows], "totals": self.totals(),
            "beyond_tolerance": len(self.beyond),
            "expected_reasons": {"billed_more": list(REASONS_POSITIVE),
                                 "billed_less": list(REASONS_NEGATIVE)},
            "notes": self.notes,
        }


def _explain(row: Row, requests: dict[tuple[str, str, str], int],
             captured: dict[tuple[str, str, str], int], tol: Tolerance) -> None:
    """A positive remainder on a model's tokens that the provider's request count accounts
    for: the requests the capture lacks, at the capture's own mean cost a request."""
    if row.remainder is None or row.attributed is None or not row.line.endswith(" tokens"):
        return
    model = row.line.removesuffix(" tokens")
    billed_n = requests.get((row.day, row.project_id, model))
    held = captured.get((row.day, row.project_id, model), 0)
    if billed_n is None or billed_n <= held or held == 0:
        return
    missing = billed_n - held
    expected = missing * row.attributed / held
    row.reasons.append(
        f"traffic not captured: the provider counted {billed_n:,} {model} requests on "
        f"{row.day}, the capture holds {held:,}; {missing:,} more at the capture's mean "
        f"${row.attributed / held:.6f} a request come to ${expected:.6f}")
    if row.status == "beyond" and tol.allows(row.remainder - expected, row.billed):
        row.status = "explained"


def _status(remainder: float | None, billed: float | None, tol: Tolerance) -> tuple[str, list[str]]:
    if remainder is None:
        return "unknown", []
    if tol.allows(remainder, billed):
        return "reconciled", []
    return "beyond", list(REASONS_POSITIVE if remainder > 0 else REASONS_NEGATIVE)


def reconcile(lines: Sequence[CostLine], bill: BillRead, *, project: str | None = None,
              tolerance: Tolerance | None = None,
              captured_requests: dict[tuple[str, str | None, str], int] | None = None
              ) -> Reconciliation:
    """Rows per (day, project, line) over the capture's days: attributed, billed, remainder.

    Each line's project is the one it names; ``project`` is taken for lines that name
    none; lines still without one are compared as project ``(unknown)`` with the bill of
    every project the capture does not name (reconcile_projects.py). ``captured_requests``:
    the capture's model requests by (day, project or None, model base), to test the "not
    captured" reason.
    """
    tol = tolerance or Tolerance()
    given = [_Line(ln.day, ln.project or project, ln.line_item, ln.usd) for ln in lines]
    days = {ln.day for ln in given if ln.day is not None}
    # A day billed without line items (no group_by=line_item) is compared as one total.
    itemised = {b.day for b in bill.billed if b.line_item is not None}
    totals_only = {b.day for b in bill.billed} - itemised
    buckets = ProjectBuckets.of(given, (b for b in bill.billed if b.day in days))
    att, unpriced = _capture_sums(given, buckets, totals_only)
    billed = _billed_sums(bill, buckets)
    requests = _requests(bill.usage, buckets)
    captured = _captured(captured_requests or {}, buckets)
    rows: list[Row] = []
    for key in sorted(set(att) | {k for k in billed if k[0] in days}):
        day, proj, line = key
        a = att.get(key, 0.0)
        b = billed.get(key, 0.0) if day in bill.days_read else None
        rem = None if a is None or b is None else b - a
        status, reasons = _status(rem, b, tol)
        row = Row(day, proj, line, a, b, rem, status, reasons, buckets.scope(proj))
        _explain(row, requests, captured, tol)
        rows.append(row)
    rec = Reconciliation(rows, tol, bill.complete, bill.sources, project, stopped=bill.stopped,
                         buckets=buckets)
    _notes(rec, bill, days, unpriced, buckets)
    return rec


def _notes(rec: Reconciliation, bill: BillRead, days: set[str], unpriced: int,
           buckets: ProjectBuckets) -> None:
    """What the rows leave out: unpriced turns, days and projects outside the comparison."""
    if unpriced:
        rec.notes.append(f"{unpriced:,} capture line(s) could not be priced: their rows' "
                         "attributed amount is unknown (see `traceview report` cost reasons)")
    outside = sorted({b.day for b in bill.billed} - days)
    if outside:
        usd = sum(b.usd for b in bill.billed if b.day in outside)
        rec.notes.append(f"{len(outside)} billed day(s) outside the capture's days were left "
                         f"out (${usd:.6f}, {outside[0]} … {outside[-1]})")
    other = sum(b.usd for b in bill.billed
                if b.day in days and buckets.billed_key(b.day, b.project_id) is None)
    if other:
        rec.notes.append(f"other projects on the capture's days billed ${other:.6f} "
                         "(not compared: other workloads on the account)")
    rec.notes += buckets.notes()
    missing = sorted(days - bill.days_read)
    if missing:
        rec.notes.append(f"{len(missing)} capture day(s) have no billed figures read "
                         f"({missing[0]} … {missing[-1]}): their remainder is unknown")
    if {b.currency for b in bill.billed} - {"usd"}:
        rec.notes.append("some amounts are not in USD: they were compared as written")
