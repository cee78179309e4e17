"""Reduce a request or response body to the few facts analysis needs.

Called once per record while the capture is scanned; the body is dropped afterwards.
"""

from __future__ import annotations

from sys import intern
from typing import Any

import orjson

from traceview.capture.estimate import estimate_tokens
from traceview.capture.items import (
    describe_item,
    hosted_calls,
    is_message,
    message_text,
    model_produced,
)
from traceview.capture.model import RequestFacts, ResponseFacts
from traceview.capture.redact import redact_text

USER_TEXT_MAX = 160
TERMINAL_EVENTS = ("response.completed", "response.failed", "response.incomplete")
NON_TERMINAL = ("queued", "in_progress")


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _dumps_len(obj: Any) -> int:
    try:
        return len(orjson.dumps(obj))
    except TypeError:
        return 0


def _conversation_id(value: Any) -> str | None:
    if isinstance(value, str) and value:
        return intern(value)
    if isinstance(value, dict) and isinstance(value.get("id"), str):
        return intern(value["id"])
    return None


_TUPLES: dict[tuple[str, ...], tuple[str, ...]] = {}


def _shared(t: tuple[str, ...]) -> tuple[str, ...]:
    """One copy of each distinct small tuple (item kinds, tools): turns repeat them."""
    if len(_TUPLES) > 10_000:
        return t
    return _TUPLES.setdefault(t, t)


def _name(value: Any) -> str | None:
    """A short string repeated on many turns (model, status): one shared copy, not one each."""
    return intern(value) if isinstance(value, str) and len(value) < 100 else None


def _clip(text: str, limit: int) -> str:
    """Whitespace folded, secrets masked, cut at `limit` (marked where shown, see model)."""
    return redact_text(" ".join(text[: limit * 2].split()))[:limit]


def _user_side(items: list[Any]) -> tuple[str | None, int | None, int | None]:
    """(short text of the last input item, words of that text, signature of the first user text)."""
    first_sig = None
    for item in items:
        if is_message(item) and item.get("role") == "user":
            first_sig = hash(message_text(item) or "")
            break
    if not items:
        return None, None, first_sig
    last = items[-1]
    for item in reversed(items):
        if not (isinstance(item, dict) and item.get("type") in ("compaction_trigger",)):
            last = item
            break
    if is_message(last) and last.get("role") == "user":
        text = message_text(last) or ""
        return _clip(text, USER_TEXT_MAX), len(text.split()), first_sig
    return describe_item(last), None, first_sig


def _new_items(items: list[Any], chained: bool) -> list[Any]:
    """Input the provider has not seen before: all of it on a chained turn, else what
    follows the last item the model produced (a stateless client resends the rest)."""
    if chained:
        return items
    for i in range(len(items) - 1, -1, -1):
        if model_produced(items[i]):
            return items[i + 1 :]
    return items


def _tools(tools: Any) -> tuple[str, ...]:
    if not isinstance(tools, list):
        return ()
    seen: dict[str, None] = {}
    for tool in tools:
        if isinstance(tool, dict) and isinstance(tool.get("type"), str):
            seen.setdefault(intern(tool["type"]), None)
    return _shared(tuple(seen))


def request_facts(api: str, body: dict[str, Any], recorded_bytes: Any) -> RequestFacts:
    f = RequestFacts(api=api)
    f.model = _name(body.get("model"))
    raw = _int(recorded_bytes)
    f.request_bytes = raw if raw is not None else _dumps_len(body)
    f.tools_offered = _tools(body.get("tools"))
    f.stream = body.get("stream") is True
    if api == "chat":
        messages = body.get("messages")
        items = messages if isinstance(messages, list) else []
        f.input_bytes = _dumps_len(items)
        f.input_count = len(items)
        f.user_text, f.user_words, f.first_user_sig = _user_side(items)
        f.new_input_tokens = estimate_tokens(_new_items(items, False))
        return f
    f.conversation_id = _conversation_id(body.get("conversation"))
    prev = body.get("previous_response_id")
    f.previous_response_id = prev if isinstance(prev, str) and prev else None
    inc = body.get("include")
    f.include = tuple(x for x in inc if isinstance(x, str)) if isinstance(inc, list) else ()
    f.context_management = bool(body.get("context_management"))
    f.truncation = body.get("truncation") if isinstance(body.get("truncation"), str) else None
    f.background = body.get("background") is True
    raw_input = body.get("input")
    if isinstance(raw_input, str):
        items: list[Any] = [{"role": "user", "content": raw_input}]
    elif isinstance(raw_input, list):
        items = raw_input
    else:
        items = []
    f.input_count = len(items)
    f.input_bytes = _dumps_len(items) if items else 0
    f.user_text, f.user_words, f.first_user_sig = _user_side(items)
    chained = bool(f.conversation_id or f.previous_response_id)
    if chained:
        f.first_user_sig = None  # only stateless turns are grouped by their first message
    f.new_input_tokens = estimate_tokens(_new_items(items, chained))
    for item in items:
        if isinstance(item, dict):
            t = item.get("type")
            if t == "compaction":
                f.compaction_input = True
            elif t == "compaction_trigger":
                f.compaction_trigger = True
    return f


# Responses names, then the Chat Completions names for the same four numbers.
_USAGE_NAMES = (
    ("input_tokens", "output_tokens", "input_tokens_details", "output_tokens_details"),
    ("prompt_tokens", "completion_tokens", "prompt_tokens_details", "completion_tokens_details"),
)


def _usage_into(f: ResponseFacts, usage: Any) -> None:
    if not isinstance(usage, dict):
        return
    chat = "input_tokens" not in usage and "output_tokens" not in usage
    inp, out, inp_det, out_det = _USAGE_NAMES[chat]
    f.input_tokens = _int(usage.get(inp))
    f.output_tokens = _int(usage.get(out))
    det = usage.get(inp_det)
    f.cached_tokens = _int(det.get("cached_tokens")) if isinstance(det, dict) else None
    odet = usage.get(out_det)
    f.reasoning_tokens = _int(odet.get("reasoning_tokens")) if isinstance(odet, dict) else None


def _response_body_into(f: ResponseFacts, body: dict[str, Any]) -> None:
    f.object = _name(body.get("object"))
    f.response_id = body.get("id") if isinstance(body.get("id"), str) else None
    f.model = _name(body.get("model"))
    _usage_into(f, body.get("usage"))
    if f.object == "chat.completion" or "choices" in body:
        _chat_into(f, body)
        return
    status = body.get("status")
    if isinstance(status, str):
        f.status = intern(status)
    elif f.object == "response.compaction":
        f.status = "completed"
    f.conversation_id = _conversation_id(body.get("conversation"))
    output = body.get("output")
    output = output if isinstance(output, list) else []
    f.output_bytes = _dumps_len(output) if output else 0
    f.output_types = _shared(tuple(
        intern(str(i.get("type") or ("message" if "role" in i else "?")))
        for i in output if isinstance(i, dict)
    ))
    if output:
        f.hosted_calls = [c.to_dict() for c in hosted_calls(output)]
    f.compaction_output = "compaction" in f.output_types or f.object == "response.compaction"
    diag = body.get("prompt_cache_diagnostics")
    if isinstance(diag, dict) and isinstance(diag.get("reason"), str):
        f.cache_miss_reason = diag["reason"]
    inc = body.get("incomplete_details")
    if isinstance(inc, dict) and isinstance(inc.get("reason"), str):
        f.incomplete_reason = inc["reason"]
    err = body.get("error")
    if isinstance(err, dict):
        f.error = _error_text(err)
    tu = body.get("tool_usage")
    if isinstance(tu, dict) and isinstance(tu.get("web_search"), dict):
        f.web_search_requests = _int(tu["web_search"].get("num_requests"))
    it = body.get("input_transformations")
    f.input_transformations = len(it) if isinstance(it, list) else 0


def _chat_into(f: ResponseFacts, body: dict[str, Any]) -> None:
    choices = body.get("choices")
    finish = None
    texts: list[str] = []
    types: list[str] = []
    if isinstance(choices, list):
        for ch in choices:
            if not isinstance(ch, dict):
                continue
            finish = ch.get("finish_reason") or finish
            msg = ch.get("message") if isinstance(ch.get("message"), dict) else {}
            if isinstance(msg.get("content"), str):
                texts.append(msg["content"])
                types.append("message")
            if isinstance(msg.get("tool_calls"), list) and msg["tool_calls"]:
                types.append("tool_calls")
        f.output_bytes = _dumps_len([c.get("message") for c in choices if isinstance(c, dict)])
    f.output_types = tuple(types)
    f.status = {
        "stop": "completed", "tool_calls": "completed", "function_call": "completed",
        "length": "incomplete", "content_filter": "incomplete",
    }.get(finish or "", "unknown")
    if finish in ("length", "content_filter"):
        f.incomplete_reason = "max_output_tokens" if finish == "length" else finish


def _error_text(err: dict[str, Any]) -> str:
    code = err.get("code") or err.get("type")
    msg = err.get("message")
    return redact_text(f"{code}: {msg}" if code and msg else str(msg or code or "error"))


def _from_events(events: list[Any]) -> tuple[dict[str, Any] | None, bool, str | None]:
    """(response body, cut_off, error) rebuilt from a list of stream event payloads."""
    terminal = None
    snapshot = None
    done_items: list[Any] = []
    error = None
    usage_chunk = None
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
            error = _error_text(ev)
        elif ev.get("object") == "chat.completion.chunk" and ev.get("usage"):
            usage_chunk = ev
    if terminal is not None:
        return terminal, False, error
    if usage_chunk is not None:
        return {"object": "chat.completion", "id": usage_chunk.get("id"),
                "model": usage_chunk.get("model"), "usage": usage_chunk["usage"],
                "choices": [{"finish_reason": "stop"}]}, False, error
    if snapshot is not None or done_items:
        rebuilt = dict(snapshot or {})
        rebuilt["output"] = done_items
        rebuilt["usage"] = None
        return rebuilt, True, error
    return None, True, error


def response_facts(record: dict[str, Any]) -> ResponseFacts:
    """Facts from a `res` record: body, stream events, HTTP status, transport error."""
    f = ResponseFacts()
    f.elapsed_ms = _int(record.get("elapsed_ms"))
    http = _int(record.get("status_code"))
    if http is None:
        http = _int(record.get("status"))
    f.http_status = http
    body = record.get("body")
    events = record.get("events")
    cut = False
    ev_error = None
    if isinstance(events, list):
        f.stream_events = len(events)
        if not isinstance(body, dict):
            body, cut, ev_error = _from_events(events)
        else:
            _, cut, ev_error = _from_events(events[-3:]) if events else (None, True, None)
            cut = cut and not any(
                isinstance(e, dict) and e.get("type") in TERMINAL_EVENTS for e in events
            )
    if isinstance(body, dict):
        _response_body_into(f, body)
        if "error" in body and f.object is None and isinstance(body["error"], dict):
            f.status = "failed"
    if cut:
        f.stream_cut = True
        if f.status in NON_TERMINAL or f.status == "unknown":
            f.status = "unknown"
    if ev_error and not f.error:
        f.error = ev_error
        f.status = "failed"
    transport = record.get("error")
    if isinstance(transport, dict) and not isinstance(body, dict):
        f.error = redact_text(
            f"{transport.get('type') or 'error'}: {transport.get('message') or ''}".strip())
        f.status = "failed"
    if http is not None and http >= 400:
        f.status = "failed"
        if not f.error:
            f.error = f"HTTP {http}"
    return f
