"""Embeddings and moderations: exchanges that are not model turns but are billed (and, for
a moderation, say something about the turn it guarded).

Each one's usage is read from its recorded answer: an embedding's `usage.prompt_tokens`
priced at the embedding model's rate, a moderation's `results[].flagged` (moderations are
free). A flagged moderation is marked on the turn it guarded: the nearest turn in time
(by line when the capture has no times) of the same conversation, else of the same user,
else any.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from traceview.analysis.cost.lines import CostLine
from traceview.capture.billing_headers import billed_to
from traceview.capture.model import Exchange, RecordRef

ENDPOINTS = {"/v1/embeddings": "embeddings", "/v1/moderations": "moderations"}


def _body(read: Callable[[RecordRef | None], dict[str, Any] | None],
          ref: RecordRef | None) -> tuple[dict[str, Any], float | None, str | None]:
    """The record's body (empty when unreadable), its recorder `ts` (seconds) and the
    project its kept headers name (None: none kept)."""
    rec = read(ref) if ref is not None else None
    if not isinstance(rec, dict):
        return {}, None, None
    body = rec.get("body")
    ts = rec.get("ts")
    headers = rec.get("headers")
    project = billed_to({str(k).lower(): v for k, v in headers.items()}).get("project") \
        if isinstance(headers, dict) else None
    return (body if isinstance(body, dict) else {}), \
        (float(ts) if isinstance(ts, int | float) and ts == ts else None), project


def priced(exchanges: Sequence[Exchange], read: Callable[[RecordRef | None], Any],
           rates: dict[str, Any]) -> list[dict[str, Any]]:
    """One entry per embeddings or moderations exchange: kind, line, model, tokens, usd
    (null when the model has no rate or usage was not recorded), flagged (moderations)."""
    out = []
    emb = _dict(rates.get("embeddings"))
    for ex in exchanges:
        kind = ENDPOINTS.get(ex.path.rstrip("/"))
        if kind is None:
            continue
        req, ts, asked = _body(read, ex.request)
        res, res_ts, billed = _body(read, ex.response)
        model = res.get("model") or req.get("model")
        model = model if isinstance(model, str) else None
        usage = _dict(res.get("usage"))
        tokens = usage.get("prompt_tokens", usage.get("input_tokens"))
        tokens = tokens if type(tokens) is int else None
        entry: dict[str, Any] = {"kind": kind, "index": ex.index, "line": ex.line,
                                 "status_code": ex.status_code, "model": model,
                                 "tokens": tokens, "usd": None, "rate": None, "reason": None,
                                 "ts": ts if ts is not None else res_ts,
                                 "user": req.get("user") if isinstance(req.get("user"), str)
                                 else None, "project": billed or asked}
        if kind == "embeddings":
            _price_embedding(entry, emb, model, tokens)
        else:
            got = res.get("results")
            results: list[Any] = got if isinstance(got, list) else []
            flags = [r for r in results if isinstance(r, dict) and r.get("flagged") is True]
            entry["flagged"] = bool(flags)
            entry["categories"] = sorted({k for r in flags for k, v in
                                          _dict(r.get("categories")).items() if v is True})
            mod = _dict(rates.get("moderations"))
            entry["rate"] = float(mod.get("per_call", 0.0))
            entry["usd"] = entry["rate"] if res else None
            entry["reason"] = None if res else "no response recorded"
        out.append(entry)
    return out


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _price_embedding(entry: dict[str, Any], table: dict[str, Any], model: str | None,
                     tokens: int | None) -> None:
    rate = table.get(model or "")
    if tokens is None:
        entry["reason"] = "no usage recorded"
    elif not isinstance(rate, int | float):
        entry["reason"] = f"embedding model {model!r} is not in the pricing table"
    else:
        entry["rate"] = float(rate)
        entry["usd"] = round(tokens * float(rate) / 1e6, 9)


def exchange_lines(entries: Sequence[dict[str, Any]],
                   day_of: Callable[[dict[str, Any]], str | None],
                   project_of: Callable[[dict[str, Any]], str | None] | None = None
                   ) -> list[CostLine]:
    """The priced exchanges as cost lines (`day_of`: the UTC day of an entry;
    `project_of`: its project, else the one its headers named)."""
    out = []
    for e in entries:
        if e["usd"] is None:
            continue
        project = project_of(e) if project_of is not None else e.get("project")
        if e["kind"] == "embeddings":
            out.append(CostLine(day_of(e), project, f"{e['model']}, embeddings", e["usd"],
                                e["tokens"] or 0, "1M tokens"))
        else:
            out.append(CostLine(day_of(e), project, "moderations", e["usd"], 1, "call"))
    return out


def guarded_turn(entry: dict[str, Any], turns: Sequence[Any]) -> Any:
    """The turn a flagged moderation guarded: the nearest in time (else by line) among
    turns of the same user when the moderation names one, else among all turns."""
    pool = [t for t in turns if entry.get("user")
            and t.turn_attribution.user == entry["user"]] or list(turns)
    if not pool:
        return None
    ts = entry.get("ts")
    if ts is not None and any(t.started_ms is not None for t in pool):
        timed = [t for t in pool if t.started_ms is not None]
        return min(timed, key=lambda t: (abs(t.started_ms / 1000 - ts), t.index))
    # By line: the first turn after the moderation (it guards what is sent next), else
    # the last one before it.
    after = [t for t in pool if t.line > entry["line"]]
    return min(after, key=lambda t: t.line) if after else max(pool, key=lambda t: t.line)
