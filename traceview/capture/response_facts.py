"""Reduce a response record (a body, stream events, an HTTP status, a transport error) to
the few facts analysis needs: the response side of capture/facts.py. The body's own facts
are body_facts.py's; here, what the record around it says.

Called once per record while the capture is scanned; the body is dropped afterwards.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from traceview.capture.billing_headers import billed_to
from traceview.capture.body_facts import body_facts, error_code, error_text, extra_of
from traceview.capture.chat_stream import CHUNK, chat_body
from traceview.capture.items import UNHELD_ITEMS, holds_unheld, response_body
from traceview.capture.model import ResponseFacts
from traceview.capture.stream_facts import StreamReading, stream_facts
from traceview.safety.redact import redact_text
from traceview.wire import NON_TERMINAL, TERMINAL_EVENTS


def _from_events(events: list[Any]) -> tuple[dict[str, Any] | None, bool, str | None]:
    """(response body, cut_off, error) rebuilt from a list of stream event payloads."""
    terminal = None
    snapshot = None
    done_items: list[Any] = []
    error = None
    chat = False
    for ev in events:
        if not isinstance(ev, dict):
            continue
        t = ev.get("type")
        if t in TERMINAL_EVENTS and isinstance(ev.get("response"), dict):
            terminal = ev["response"]
        elif isinstance(ev.get("response"), dict):
            snapshot = ev["response"]
        elif t == "response.output_item.done" and isinstance(ev.get("item"), dict):
            done_items.append(ev["item"])
        elif t == "error":
            error = error_text(ev)
        elif ev.get("object") == CHUNK:
            chat = True
    if terminal is not None:
        return terminal, False, error
    if chat:
        body = chat_body(events)
        if body is not None:
            return body, bool(body.pop("_cut")), error
    if snapshot is not None or done_items:
        rebuilt = dict(snapshot or {})
        rebuilt["output"] = done_items
        rebuilt["usage"] = None
        return rebuilt, True, error
    return None, True, error


def _started_at(body: Any, ts: Any, elapsed: int | None) -> int | None:
    """When the turn started, in seconds: the provider's own creation time, else the
    recorder's clock (a record's `ts` is written when the response arrived)."""
    if type(body) is dict:
        created = body.get("created_at")
        if created is None:
            created = body.get("created")
        if isinstance(created, (int, float)) and not isinstance(created, bool) and created > 0:
            return int(created)
    if type(ts) is str and ts:
        try:
            stamp = datetime.fromisoformat(ts.replace("Z", "+00:00"))
        except ValueError:
            return None
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=UTC)
        ts = stamp.timestamp()
    if type(ts) in (int, float) and ts > 0:
        return int(ts - (elapsed or 0) / 1000)
    return None


def response_facts(record: dict[str, Any],
                   stream: StreamReading | None = None) -> ResponseFacts:
    """Facts from a `res` record: body, stream events, HTTP status, transport error.
    `stream`: the evidence of a stream written one event per line, whose record holds
    only the events kept for rebuilding (capture/line_stream.py)."""
    g = record.get
    elapsed = g("elapsed_ms")
    elapsed = elapsed if type(elapsed) is int else None
    http = g("status_code")
    if type(http) is not int:
        http = g("status")
        http = http if type(http) is int else None
    body = g("body")
    events = g("events")
    cut = False
    ev_error = None
    if type(events) is list:
        if type(body) is not dict:
            body, cut, ev_error = _from_events(events)
        else:
            _, cut, ev_error = _from_events(events[-3:]) if events else (None, True, None)
            cut = cut and not any(
                isinstance(e, dict) and e.get("type") in TERMINAL_EVENTS for e in events
            )
    if type(body) is dict:
        f = body_facts(body, elapsed, http)
        if "error" in body and f.object is None and type(body["error"]) is dict:
            f.status = "failed"
    else:
        f = ResponseFacts(elapsed_ms=elapsed, http_status=http)
    if type(events) is list:
        if stream is None:
            f.stream_events = len(events)
            extra_of(f)["stream"] = stream_facts(events, g("event_ms"), body)
        else:
            f.stream_events = stream.count
            extra_of(f)["stream"] = stream.facts(body)
    started = _started_at(body, g("ts"), elapsed)
    if started is not None:
        f.started_at = started
    if cut:
        f.stream_cut = True
        if f.status in NON_TERMINAL or f.status == "unknown":
            f.status = "unknown"
    if ev_error and not f.error:
        f.error = ev_error
        f.status = "failed"
        code = ev_error.split(":", 1)[0] if ":" in ev_error else None
        f.error_code = code[:100] if code and " " not in code else f.error_code
    transport = g("error")
    if type(transport) is dict and type(body) is not dict:
        f.error = redact_text(
            f"{transport.get('type') or 'error'}: {transport.get('message') or ''}".strip())
        f.error_code = error_code(transport)
        f.status = "failed"
    if http is not None and http >= 400:
        f.status = "failed"
        if not f.error:
            f.error = f"HTTP {http}"
        if type(body) is dict and type(body.get("error")) is dict and not f.error_code:
            f.error_code = error_code(body["error"])
    headers = g("headers")
    if type(headers) is dict:
        _headers_into(f, headers)
    _unheld_into(f, record, body)
    return f


def _unheld_into(f: ResponseFacts, record: dict[str, Any], body: Any) -> None:
    """Mark a response whose output, as replay fidelity rebuilds it (`response_body`),
    holds a compaction or bare reasoning item (capture/items.py). The common record, a body
    with its output, was read above: its item kinds answer without a walk."""
    if (record.get("body") is body and isinstance(body, dict) and "choices" not in body
            and body.get("object") in (None, "response") and type(body.get("output")) is list):
        types = f.output_types
        if "reasoning" not in types and "compaction" not in types:
            return
        out = body["output"]
    else:
        rebuilt = response_body(record)
        out = rebuilt.get("output") if rebuilt is not None else None
        if type(out) is not list:
            return
    if holds_unheld(out):
        extra_of(f)[UNHELD_ITEMS] = True


# What the provider said about its rate limits and when to retry (recorder, proxy, HAR).
LIMIT_HEADERS = ("retry-after", "retry-after-ms", "x-ratelimit-remaining-requests",
                 "x-ratelimit-remaining-tokens", "x-ratelimit-reset-requests",
                 "x-ratelimit-reset-tokens")


def _headers_into(f: ResponseFacts, headers: dict[str, Any]) -> None:
    """x-request-id, openai-processing-ms and the rate-limit headers, where the recorder
    kept them."""
    low = {str(k).lower(): v for k, v in headers.items()}
    limits = {k: redact_text(str(low[k]))[:40] for k in LIMIT_HEADERS
              if isinstance(low.get(k), str | int | float)}
    if limits:
        extra_of(f)["limits"] = limits
    billed = billed_to(low)
    if billed:
        extra_of(f).update(billed)
    rid = low.get("x-request-id")
    ms = low.get("openai-processing-ms")
    if isinstance(rid, str) and rid:
        extra_of(f)["request_id"] = redact_text(rid)[:100]
    if isinstance(ms, str | int | float) and not isinstance(ms, bool):
        try:
            extra_of(f)["processing_ms"] = int(float(ms))
        except (ValueError, OverflowError):
            pass
