"""Turn rows as OpenTelemetry GenAI spans, in the OTLP/HTTP JSON encoding.

One trace per conversation, one `chat` span per turn, and one `execute_tool` child span
per hosted call: what Langfuse, Phoenix or any OTLP collector already shows. Usage,
cached tokens, conversation and response ids use the `gen_ai.*` semantic conventions;
traceview's own findings (markers, unexplained tokens, evidence, compaction) ride along
as `traceview.*` attributes. Ids are derived from the capture, so an export is repeatable.
"""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO, Any

import orjson

from traceview import __version__
from traceview.export.sinks import ExportError, Sink

POST_SPANS = 512  # spans per request to a collector


def _hex(text: str, n: int) -> str:
    return hashlib.blake2b(text.encode(), digest_size=n // 2).hexdigest()


def _value(v: Any) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}  # int64 is a string in OTLP JSON
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, list | tuple):
        return {"arrayValue": {"values": [_value(x) for x in v]}}
    return {"stringValue": str(v)}


def _attrs(pairs: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in pairs.items()
            if v is not None and v != []]


_SPAN_STATUS = {"completed": 1, "failed": 2, "incomplete": 2, "cancelled": 2}  # OK / ERROR


def compaction(markers: list[str]) -> str | None:
    if "compaction" in markers:
        return "explicit"
    return "likely" if "compaction_likely" in markers else None


def turn_spans(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The spans of one turn row: the model call, then its hosted calls as children."""
    conv = row.get("conversation_key") or f"turn-{row['capture_index']}"
    trace_id = _hex(f"{row['source']}\0{conv}", 32)
    span_id = _hex(f"{row['source']}\0{row['capture_index']}", 16)
    start = (row["ts"] or 0) * 1_000_000  # ms -> ns; 0 when the capture has no time
    end = start + (row["elapsed_ms"] or 0) * 1_000_000
    model = row.get("model")
    calls = row.get("hosted_calls") or []
    markers = row.get("markers") or []
    status = {"code": _SPAN_STATUS.get(row.get("status") or "", 0)}
    if status["code"] == 2 and row.get("error"):
        status["message"] = row["error"]
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.system": "openai",
        "gen_ai.request.model": model,
        "gen_ai.response.model": model,
        "gen_ai.response.id": row.get("response_id"),
        "gen_ai.conversation.id": row.get("conversation") or row.get("conversation_key"),
        "gen_ai.usage.input_tokens": row.get("input_tokens"),
        "gen_ai.usage.output_tokens": row.get("output_tokens"),
        "gen_ai.usage.cache_read.input_tokens": row.get("cached_tokens"),
        "gen_ai.usage.reasoning.output_tokens": row.get("reasoning_tokens"),
        "gen_ai.response.finish_reasons": row.get("finish_reasons")
        or ([row["incomplete_reason"]] if row.get("incomplete_reason") else [row["status"]]),
        "error.type": row.get("error_code") if status["code"] == 2 else None,
        "http.response.status_code": row.get("http_status"),
        "traceview.source": row.get("source"),
        "traceview.line": row.get("line"),
        "traceview.turn.index": row.get("capture_index"),
        "traceview.conversation.kind": row.get("conversation_kind"),
        "traceview.conversation.index": row.get("conversation_index"),
        "traceview.api": row.get("api"),
        "traceview.request_bytes": row.get("request_bytes"),
        "traceview.owned_state_bytes": row.get("owned_state_bytes"),
        "traceview.expected_input": row.get("expected_input"),
        "traceview.unexplained_tokens": row.get("unexplained_tokens"),
        "traceview.carried_context": row.get("carried_context"),
        "traceview.markers": markers,
        "traceview.deposit": "deposit" in markers,
        "traceview.compaction": compaction(markers),
        "traceview.evidence_missing": "evidence_missing" in markers,
        "traceview.tools_offered": row.get("tools_offered") or [],
        "traceview.cost_usd": row.get("cost_usd"),
        "traceview.time_known": row["ts"] is not None,
    }
    name = f"chat {model}" if model else "chat"
    spans = [{"traceId": trace_id, "spanId": span_id, "name": name, "kind": 3,  # CLIENT
              "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
              "attributes": _attrs(attrs), "status": status}]
    for n, call in enumerate(calls):
        tool = str(call.get("type") or "hosted").removesuffix("_call")
        spans.append({
            "traceId": trace_id, "spanId": _hex(f"{row['source']}\0{row['capture_index']}\0{n}",
                                                16),
            "parentSpanId": span_id, "name": f"execute_tool {tool}", "kind": 1,  # INTERNAL
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
            "attributes": _attrs({
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                "gen_ai.tool.type": "extension", "gen_ai.tool.call.id": call.get("id"),
                "traceview.hosted.status": call.get("status"),
                "traceview.evidence": call.get("evidence"),
                "traceview.evidence.include": call.get("include"),
                "traceview.hosted.queries": call.get("queries") or [],
            }),
            "status": {"code": 0}})
    return spans


def document(spans: list[dict[str, Any]]) -> dict[str, Any]:
    """An ExportTraceServiceRequest holding `spans`."""
    return {"resourceSpans": [{
        "resource": {"attributes": _attrs({"service.name": "traceview-export"})},
        "scopeSpans": [{"scope": {"name": "traceview", "version": __version__},
                        "spans": spans}]}]}


class OtlpSink(Sink):
    """Writes one OTLP JSON document (streamed span by span) and/or posts batches to a
    collector's `/v1/traces` endpoint."""

    batch_rows = 256

    def __init__(self, path: Path | str | None, endpoint: str | None = None,
                 timeout: float = 10.0) -> None:
        super().__init__()
        self.endpoint = endpoint
        self.timeout = timeout
        self.spans = 0
        self.posted = 0
        self._pending: list[dict[str, Any]] = []
        self._out: IO[bytes] | None = None
        self._first = True
        if path is not None:
            try:
                self._out = open(path, "wb")  # noqa: SIM115 (closed in _close)
            except OSError as exc:
                raise ExportError(f"{path}: cannot write ({exc.strerror})") from None
            head = orjson.dumps(document([])).decode()
            self._head, self._tail = head.split('"spans":[]', 1)
            self._out.write((self._head + '"spans":[').encode())

    def _write(self, table: str, part: str, rows: list[dict[str, Any]]) -> None:
        if table != "turns":
            return
        for row in rows:
            for span in turn_spans(row):
                self.spans += 1
                if self._out is not None:
                    self._out.write((b"" if self._first else b",") + orjson.dumps(span))
                    self._first = False
                if self.endpoint:
                    self._pending.append(span)
                    if len(self._pending) >= POST_SPANS:
                        self._post()

    def _post(self) -> None:
        if not self._pending:
            return
        body = orjson.dumps(document(self._pending))
        req = urllib.request.Request(self.endpoint or "", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:  # noqa: S310
                resp.read()
        except urllib.error.HTTPError as exc:
            raise ExportError(f"{self.endpoint}: collector answered HTTP {exc.code}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ExportError(f"{self.endpoint}: cannot post spans ({reason})") from None
        self.posted += len(self._pending)
        self._pending = []

    def _close(self) -> None:
        try:
            if self.endpoint:
                self._post()
        finally:
            if self._out is not None:
                self._out.write(("]" + self._tail + "\n").encode())
                self._out.close()
