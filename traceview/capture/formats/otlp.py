"""OpenTelemetry GenAI spans in OTLP JSON (OpenLLMetry, OpenInference, the semantic conventions).

A span that describes a model call (``gen_ai.operation.name`` chat / text_completion /
generate_content / responses, or any span with ``gen_ai.usage.*``) becomes one turn: model,
response id, conversation id, usage, finish reason, status and duration from the span;
messages when the instrumentation captured content (``gen_ai.input.messages`` /
``gen_ai.output.messages``, or the older ``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*``).

What a span cannot carry is said, not zeroed: the request's wire bytes (there is no body,
only attributes), hosted tool evidence when no `execute_tool` span records the hosted call
(otlp_hosted.py reads those back), and any usage number the instrumentation did not record.
Other spans (tools, agents, HTTP) are counted and ignored.
"""

from __future__ import annotations

from typing import Any

import orjson

from traceview.capture.formats.common import MALFORMED, Emitter, as_dict
from traceview.capture.formats.otlp_hosted import CANNOT_CARRY, hosted_item, is_hosted_tool

MODEL_OPERATIONS = ("chat", "text_completion", "generate_content", "responses", "completion")
ALWAYS_MISSING = ["request bytes (a span holds attributes, not the request body)",
                  "hosted tool evidence (hosted calls are not recorded as spans)"]

INT64 = 1 << 63

# Attribute names for the same number across the conventions' versions and the two big
# instrumentations (OpenLLMetry's gen_ai.*, OpenInference's llm.*).
ALIASES = {
    "model": ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name"),
    "response_id": ("gen_ai.response.id",),
    "conversation": ("gen_ai.conversation.id", "session.id"),
    "input_tokens": ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens",
                     "llm.token_count.prompt"),
    "output_tokens": ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
                      "llm.token_count.completion"),
    "cached_tokens": ("gen_ai.usage.cache_read.input_tokens",
                      "gen_ai.usage.cache_read_input_tokens",
                      "llm.token_count.prompt_details.cache_read"),
    "reasoning_tokens": ("gen_ai.usage.reasoning.output_tokens", "gen_ai.usage.reasoning_tokens",
                         "llm.token_count.completion_details.reasoning"),
}


def _value(v: Any) -> Any:
    """An OTLP AnyValue as a plain value (intValue arrives as a string in OTLP JSON)."""
    if not isinstance(v, dict):
        return None
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        try:
            n = int(v["intValue"])
        except (TypeError, ValueError):
            return None
        return n if -INT64 <= n < INT64 else None  # OTLP's intValue is an int64
    if "doubleValue" in v:
        return v["doubleValue"]
    if "boolValue" in v:
        return v["boolValue"]
    if "arrayValue" in v:
        return [_value(x) for x in _list(as_dict(v["arrayValue"]).get("values"))]
    if "kvlistValue" in v:
        return _attrs(as_dict(v["kvlistValue"]).get("values"))
    return None


def _attrs(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, list):
        return {}
    return {a["key"]: _value(a.get("value")) for a in raw
            if isinstance(a, dict) and isinstance(a.get("key"), str)}


def _pick(attrs: dict[str, Any], name: str) -> Any:
    for key in ALIASES[name]:
        if attrs.get(key) is not None:
            return attrs[key]
    return None


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _nanos(v: Any) -> int:
    """A ``*TimeUnixNano`` (a string of digits in OTLP JSON, a number from some exporters);
    0 (unknown) for anything else, so one malformed span loses its timing, not the file."""
    if isinstance(v, bool):
        return 0
    if isinstance(v, int):
        return v if v > 0 else 0
    if isinstance(v, float):
        return int(v) if v > 0 and v == v and v != float("inf") else 0
    if isinstance(v, str) and v.isascii() and v.isdigit():
        return int(v)
    return 0


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def spans_of(doc: Any) -> list[dict[str, Any]]:
    spans: list[dict[str, Any]] = []
    for rs in _list(doc.get("resourceSpans") if isinstance(doc, dict) else None):
        if not isinstance(rs, dict):
            continue
        for ss in _list(rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans")):
            if isinstance(ss, dict):
                spans.extend(s for s in _list(ss.get("spans")) if isinstance(s, dict))
    return spans


def _messages(attrs: dict[str, Any], new: str, old: str,
              openinference: str) -> list[dict[str, Any]] | None:
    """Messages from the current convention (one JSON attribute), else the indexed ones:
    OpenLLMetry's ``gen_ai.prompt.N.role``, OpenInference's
    ``llm.input_messages.N.message.role``."""
    raw = attrs.get(new)
    if isinstance(raw, str):
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, list):
            return [_flatten(m) for m in parsed if isinstance(m, dict)]
    out: list[dict[str, Any]] = []
    for prefix in (f"{old}.{{n}}.", f"{openinference}.{{n}}.message."):
        n = 0
        while (f"{prefix.format(n=n)}role" in attrs or f"{prefix.format(n=n)}content" in attrs):
            out.append({"role": attrs.get(f"{prefix.format(n=n)}role") or "user",
                        "content": attrs.get(f"{prefix.format(n=n)}content") or ""})
            n += 1
        if out:
            return out
    return None


def _flatten(message: dict[str, Any]) -> dict[str, Any]:
    """The conventions' ``{"role", "parts": [{"type": "text", "content"}]}`` as a plain message."""
    if "parts" in message and "content" not in message:
        texts = [c for p in message.get("parts") or []
                 if isinstance(p, dict) and isinstance(c := p.get("content"), str)]
        return {"role": message.get("role") or "user", "content": "\n".join(texts)}
    return {"role": message.get("role") or "user", "content": message.get("content") or ""}


def is_model_call(attrs: dict[str, Any]) -> bool:
    op = attrs.get("gen_ai.operation.name")
    if isinstance(op, str):
        return op in MODEL_OPERATIONS
    return _pick(attrs, "input_tokens") is not None or attrs.get("llm.model_name") is not None


def convert(docs: list[Any], em: Emitter) -> int:
    spans = [s for doc in docs for s in spans_of(doc)]
    spans.sort(key=lambda s: _nanos(s.get("startTimeUnixNano")))
    hosted: dict[Any, list[dict[str, Any]]] = {}
    damaged: dict[int, Any] = {}  # span (in start order) -> its id
    for n, span in enumerate(spans, start=1):
        try:
            attrs = _attrs(span.get("attributes"))
            if span.get("parentSpanId") and is_hosted_tool(attrs):
                hosted.setdefault(span["parentSpanId"], []).append(hosted_item(attrs))
        except MALFORMED:
            damaged[n] = span.get("spanId")
    calls = 0
    for n, span in enumerate(spans, start=1):
        if n in damaged:
            continue
        try:
            attrs = _attrs(span.get("attributes"))
            if not is_model_call(attrs):
                em.ignore(str(attrs.get("gen_ai.operation.name") or "not a model call"))
                continue
            _turn(span, attrs, n, em, hosted.get(span.get("spanId")) or [])
        except MALFORMED:  # one span's wrong type loses that span, not the whole file
            damaged[n] = span.get("spanId")
            continue
        calls += 1
    for n, sid in sorted(damaged.items()):
        em.ignore("damaged span")
        em.damage.append((1, f"span {n} (id {str(sid)[:60]!r}) has a value of the wrong "
                             "type; left out"))
    return calls


def _turn(span: dict[str, Any], attrs: dict[str, Any], n: int, em: Emitter,
          hosted: list[dict[str, Any]]) -> None:
    start = _nanos(span.get("startTimeUnixNano"))
    end = _nanos(span.get("endTimeUnixNano"))
    rid = _pick(attrs, "response_id")
    conv = _pick(attrs, "conversation")
    model = _pick(attrs, "model")
    usage = {k: _int(_pick(attrs, k)) for k in
             ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens")}
    missing = [ALWAYS_MISSING[0], CANNOT_CARRY] if hosted else list(ALWAYS_MISSING)
    missing += [f"{k.replace('_', ' ')} (not recorded by the instrumentation)"
                for k, v in usage.items() if v is None]
    inputs = _messages(attrs, "gen_ai.input.messages", "gen_ai.prompt", "llm.input_messages")
    outputs = _messages(attrs, "gen_ai.output.messages", "gen_ai.completion",
                        "llm.output_messages")
    if inputs is None:
        missing.append("message content (not captured by the instrumentation)")
    chat = (isinstance(rid, str) and rid.startswith("chatcmpl")) or (
        attrs.get("gen_ai.operation.name") == "chat" and not (
            isinstance(rid, str) and rid.startswith("resp_")))
    failed = isinstance(span.get("status"), dict) and span["status"].get("code") in (2, "2",
                                                                                    "STATUS_CODE_ERROR")
    origin = em.origin(n, missing, span_id=span.get("spanId"), trace_id=span.get("traceId"),
                       span=span.get("name"))
    link = f"otlp_{n:06d}"
    finish = attrs.get("gen_ai.response.finish_reasons")
    finish = finish[0] if isinstance(finish, list) and finish else None
    if chat:
        req_body: dict[str, Any] = {"model": attrs.get("gen_ai.request.model") or model,
                                    "messages": inputs or []}
        res_body: dict[str, Any] = {
            "object": "chat.completion", "id": rid, "model": model,
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": (outputs or [{"role": "assistant", "content": None}])[0]}],
            "usage": {"prompt_tokens": usage["input_tokens"],
                      "completion_tokens": usage["output_tokens"],
                      "prompt_tokens_details": {"cached_tokens": usage["cached_tokens"]},
                      "completion_tokens_details": {"reasoning_tokens":
                                                    usage["reasoning_tokens"]}}}
        endpoint = "POST /v1/chat/completions"
    else:
        req_body = {"model": attrs.get("gen_ai.request.model") or model}
        if conv:
            req_body["conversation"] = conv
        if inputs is not None:
            req_body["input"] = inputs
        res_body = {
            "object": "response", "id": rid, "model": model,
            "status": "failed" if failed else "completed",
            "output": hosted + [{"type": "message", "role": "assistant",
                                 "content": [{"type": "output_text",
                                              "text": m.get("content") or ""}]}
                                for m in outputs or []],
            "usage": {"input_tokens": usage["input_tokens"],
                      "output_tokens": usage["output_tokens"],
                      "input_tokens_details": {"cached_tokens": usage["cached_tokens"]},
                      "output_tokens_details": {"reasoning_tokens": usage["reasoning_tokens"]}}}
        if conv:
            res_body["conversation"] = {"id": conv}
        endpoint = "POST /v1/responses"
    if failed:
        if chat:  # a chat body has no status of its own: an error body is how it fails
            res_body["object"] = None
            del res_body["choices"]
        res_body["error"] = {"code": "span_error",
                             "message": str(span["status"].get("message") or "span failed")}
    em.write({"dir": "req", "id": link, "ts": start / 1e9 if start else None,
              "endpoint": endpoint, "body": req_body, "origin": origin})
    em.write({"dir": "res", "id": link, "ts": end / 1e9 if end else None,
              "status_code": None, "elapsed_ms": round((end - start) / 1e6) if end >= start > 0
              else None, "body": res_body, "origin": origin})
    em.turns += 1
