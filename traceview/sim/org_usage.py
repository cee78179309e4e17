"""The organization Costs and Usage APIs, simulated: a ledger tests fill, served in pages.

``GET /v1/organization/costs`` and ``/v1/organization/usage/{endpoint}`` answer with one
bucket per UTC day of ``[start_time, end_time)``, ``limit`` buckets a page and an opaque
``next_page`` cursor, grouped by the ``group_by`` fields asked (others null), as the
provider documents them (docs/reconcile.md). Only admin keys (``sk-admin-…``) are served.
``interrupt`` makes a later page fail, so a reader's partial read can be rehearsed.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from traceview.report.reconcile import BillRead
from traceview.sim.api import Reply
from traceview.sim.state import SimError

PREFIX = "/v1/organization/"
DAY = 86_400
USAGE_ENDPOINTS = ("completions", "embeddings", "moderations", "images", "vector_stores",
                   "code_interpreter_sessions", "audio_speeches", "audio_transcriptions")
_GROUPS = {"costs": ("project_id", "line_item"), "completions": ("project_id", "model"),
           "embeddings": ("project_id", "model"), "moderations": ("project_id", "model"),
           "images": ("project_id", "model")}
_MAX_LIMIT = {"costs": 180}
_COUNT_NAME = {"code_interpreter_sessions": "num_sessions", "images": "images"}


def day_ts(day: str) -> int:
    """Unix seconds of a UTC day's start (``2026-12-01`` → 1796083200)."""
    return int(datetime.combine(date.fromisoformat(day), datetime.min.time(), UTC).timestamp())


@dataclass
class OrgLedger:
    """What the simulated organization was billed and used, by day and project."""

    costs: list[tuple[str, str | None, str | None, float]] = field(default_factory=list)
    usage: dict[str, list[tuple[str, str | None, dict[str, Any]]]] = field(
        default_factory=lambda: defaultdict(list))
    interrupts: dict[str, tuple[int, int]] = field(default_factory=dict)
    page_buckets: int = 180  # the most buckets a page holds, whatever ``limit`` asks
    lock: threading.Lock = field(default_factory=threading.Lock)
    # The project each API key belongs to (a project key is bound to one) and the
    # organization's id, sent back on every answer as the provider does
    # (`openai-project`, `openai-organization`); a request's own headers win. Unset: none.
    projects: dict[str, str] = field(default_factory=dict)
    organization: str | None = None

    def billed_to(self, headers: Any) -> dict[str, str]:
        """The `openai-project` / `openai-organization` headers of an answer to a request
        with these headers: the project it asked for, else its key's, else none."""
        auth = headers.get("authorization") or ""
        key = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
        out = {}
        project = headers.get("openai-project") or self.projects.get(key)
        if project:
            out["openai-project"] = project
        organization = headers.get("openai-organization") or self.organization
        if organization:
            out["openai-organization"] = organization
        return out

    def add_cost(self, day: str, project_id: str | None, line_item: str | None,
                 usd: float) -> None:
        with self.lock:
            self.costs.append((day, project_id, line_item, usd))

    def add_usage(self, endpoint: str, day: str, project_id: str | None,
                  **fields: Any) -> None:
        """A usage result's fields (``model``, ``num_model_requests``, ``input_tokens``…)."""
        if endpoint not in USAGE_ENDPOINTS:
            raise ValueError(f"unknown usage endpoint {endpoint!r}")
        with self.lock:
            self.usage[endpoint].append((day, project_id, fields))

    def load(self, bill: BillRead) -> None:
        """Serve a bill read before (saved pages: ``traceview sim --costs FILE``)."""
        for b in bill.billed:
            self.add_cost(b.day, b.project_id, b.line_item, b.usd)
        for u in bill.usage:
            fields: dict[str, Any] = dict(u.quantities)
            if u.model is not None:
                fields["model"] = u.model
            if u.requests is not None:
                fields[_COUNT_NAME.get(u.endpoint, "num_model_requests")] = u.requests
            if u.endpoint in USAGE_ENDPOINTS:
                self.add_usage(u.endpoint, u.day, u.project_id, **fields)

    def interrupt(self, endpoint: str, *, page: int, status: int = 503) -> None:
        """Page ``page`` (≥ 2) of ``endpoint`` ("costs", "completions", …) answers
        ``status`` every time it is asked: the read is cut after ``page - 1`` pages."""
        self.interrupts[endpoint] = (page, status)

    # -- serving ----------------------------------------------------------------------
    def dispatch(self, method: str, path: str, query: dict[str, list[str]], key: str) -> Reply:
        endpoint = path[len(PREFIX):].removeprefix("usage/")
        if method != "GET" or not (endpoint == "costs" or endpoint in USAGE_ENDPOINTS) \
                or (endpoint != "costs" and not path.startswith(PREFIX + "usage/")):
            raise SimError(404, f"Invalid URL ({method} {path})")
        if not key.startswith("sk-admin-"):
            raise SimError(401, f"Incorrect API key provided: {key}. The organization usage "
                           "and costs endpoints need an admin key.", code="invalid_api_key")
        start, end, limit, (page_no, first) = _window(query, endpoint)
        stop = self.interrupts.get(endpoint)
        if stop is not None and page_no >= stop[0]:
            raise SimError(stop[1], "The server had an error while processing your request.",
                           type="server_error")
        groups = set(query.get("group_by[]", []) + query.get("group_by", []))
        step = min(limit, self.page_buckets) * DAY
        days = range(first, min(end, first + step), DAY)
        with self.lock:
            data = [self._bucket(endpoint, ts, groups) for ts in days]
        more = first + step < end
        return Reply(200, {"object": "page", "data": data, "has_more": more,
                           "next_page": f"page_{page_no + 1}_{first + step}" if more else None})

    def _bucket(self, endpoint: str, ts: int, groups: set[str]) -> dict[str, Any]:
        day = datetime.fromtimestamp(ts, UTC).date().isoformat()
        keep = [g for g in _GROUPS.get(endpoint, ("project_id",)) if g in groups]
        results: dict[tuple[Any, ...], dict[str, Any]] = {}
        if endpoint == "costs":
            for c_day, project, line, usd in self.costs:
                if c_day != day:
                    continue
                row = {"project_id": project, "line_item": line}
                k = tuple(row[g] for g in keep)
                r = results.setdefault(k, {"object": "organization.costs.result",
                                           "amount": {"value": 0.0, "currency": "usd"},
                                           "line_item": None, "project_id": None,
                                           **{g: row[g] for g in keep}})
                r["amount"]["value"] = round(r["amount"]["value"] + usd, 10)
        else:
            for u_day, project, fields in self.usage[endpoint]:
                if u_day != day:
                    continue
                row = {"project_id": project, **fields}
                k = tuple(row.get(g) for g in keep)
                r = results.setdefault(k, {"object": f"organization.usage.{endpoint}.result",
                                           "project_id": None,
                                           **{g: row.get(g) for g in keep}})
                for name, v in fields.items():
                    if isinstance(v, int | float) and not isinstance(v, bool):
                        r[name] = r.get(name, 0) + v
        return {"object": "bucket", "start_time": ts, "end_time": ts + DAY,
                "results": list(results.values())}


def _int(query: dict[str, list[str]], name: str, default: int | None) -> int | None:
    values = query.get(name)
    if not values:
        return default
    raw = values[-1]
    try:
        return int(raw)
    except ValueError:
        raise SimError(400, f"Invalid '{name}': expected an integer, but got '{raw}' instead.",
                       param=name, code="invalid_type") from None


def _window(query: dict[str, list[str]], endpoint: str
            ) -> tuple[int, int, int, tuple[int, int]]:
    """``(start, end, limit, (page number, its first bucket))``, checked as the provider
    checks them."""
    start = _int(query, "start_time", None)
    if start is None:
        raise SimError(400, "Missing required parameter: 'start_time'.", param="start_time",
                       code="missing_required_parameter")
    start -= start % DAY
    limit = _int(query, "limit", 7) or 7
    top = _MAX_LIMIT.get(endpoint, 31)
    if not 1 <= limit <= top:
        raise SimError(400, f"Invalid 'limit': expected a value between 1 and {top}.",
                       param="limit", code="invalid_value")
    end = _int(query, "end_time", start + limit * DAY) or start + limit * DAY
    cursor = (query.get("page") or [""])[-1]
    if not cursor:
        return start, end, limit, (1, start)
    parts = cursor.split("_")
    if len(parts) != 3 or parts[0] != "page" or not (parts[1] + parts[2]).isdigit() \
            or not start <= int(parts[2]) < end:
        raise SimError(400, f"Invalid 'page': '{cursor}' is not a cursor from this query.",
                       param="page")
    return start, end, limit, (int(parts[1]), int(parts[2]))
