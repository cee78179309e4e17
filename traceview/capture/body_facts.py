"""A response body's facts, either API's (Responses, Chat Completions): ids, usage, status,
the output's item kinds and hosted calls, the actions handed to the application, refusals,
compaction, lineage. The record around it (stream events, HTTP status, headers, transport
errors) is read by response_facts.py, which calls `body_facts`.
"""

from __future__ import annotations

from sys import intern
from typing import Any

from traceview.capture.facts import (
    compaction_keys,
    conversation_of,
    dumps_len,
    shared,
    short_name,
)
from traceview.capture.items import hosted_calls
from traceview.capture.lineage import LINEAGE, VECTOR_STORES, chat_lineage, response_lineage
from traceview.capture.model import ResponseFacts
from traceview.safety.redact import redact_text
from traceview.wire import ACTION_TYPES, KNOWN_OUTPUT_TYPES
from traceview.wire import HOSTED_CALL_TYPES as HOSTED_TYPES

_RESPONSE_KEYS = ("object", "id", "model", "usage", "status", "conversation", "output",
                  "prompt_cache_diagnostics", "incomplete_details", "error", "tool_usage",
                  "input_transformations")


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _usage(usage: Any) -> tuple[int | None, int | None, int | None, int | None]:
    """(input, cached, output, reasoning) tokens of a usage object, under the Responses
    names or the Chat Completions ones."""
    if type(usage) is not dict:
        return None, None, None, None
    ug = usage.get
    if "input_tokens" in usage or "output_tokens" in usage:
        inp, out = ug("input_tokens"), ug("output_tokens")
        det, odet = ug("input_tokens_details"), ug("output_tokens_details")
    else:  # Chat Completions names for the same four numbers
        inp, out = ug("prompt_tokens"), ug("completion_tokens")
        det, odet = ug("prompt_tokens_details"), ug("completion_tokens_details")
    cached = det.get("cached_tokens") if type(det) is dict else None
    reasoning = odet.get("reasoning_tokens") if type(odet) is dict else None
    return _int(inp), _int(cached), _int(out), _int(reasoning)


def body_facts(body: dict[str, Any], elapsed: int | None, http: int | None) -> ResponseFacts:
    """Facts from a response body, in one pass and one construction (see request_facts)."""
    g = body.get
    obj, rid, model, usage, status, conv, output, diag, inc, err, tu, it = map(
        g, _RESPONSE_KEYS)
    obj = intern(obj) if type(obj) is str and len(obj) < 100 else None
    if type(rid) is not str:
        rid = None
    model = intern(model) if type(model) is str and len(model) < 100 else None
    inp, cached, out, reasoning = _usage(usage)
    if inp == 0 and not out and (output or g("choices")):
        # All-zero usage on a response that produced output (a streamed incomplete
        # response, some tool-call responses): the usage was not reported, not zero.
        inp = out = cached = reasoning = None
    if obj == "chat.completion" or "choices" in body:
        f = ResponseFacts(rid, obj, "unknown", http, model, None, inp, cached, out, reasoning,
                          elapsed)
        _chat_into(f, body)
        return f
    if type(status) is str:
        status = intern(status)
    else:
        status = "completed" if obj == "response.compaction" else "unknown"
    if type(conv) is str:
        conv = intern(conv) if conv else None
    elif type(conv) is dict:
        conv = conv.get("id")
        conv = intern(conv) if type(conv) is str else None
    else:
        conv = conversation_of(conv)
    if type(output) is list and output:
        ob = dumps_len(output)
        types, hosted = _kinds(output)
        calls = hosted_calls(output) if hosted else ()
    else:
        types, calls, ob = (), (), 0
    cache_miss = diag.get("reason") if type(diag) is dict else None
    incomplete = inc.get("reason") if type(inc) is dict else None
    if type(tu) is dict:
        ws = tu.get("web_search")
        ws = ws.get("num_requests") if type(ws) is dict else None
        fs = tu.get("file_search")
        fs = fs.get("num_requests", fs.get("num_calls")) if type(fs) is dict else None
    else:
        ws = fs = None
    f = ResponseFacts(
        rid, obj, status, http, model, conv, inp, cached, out, reasoning, elapsed, ob, types,
        calls, "compaction" in types or obj == "response.compaction",
        cache_miss if type(cache_miss) is str else None,
        incomplete if type(incomplete) is str else None,
        error_text(err) if type(err) is dict else None, None, False,
        ws if type(ws) is int else None, len(it) if type(it) is list else 0)
    _response_common(f, g, usage)
    if type(err) is dict:
        f.error_code = error_code(err)
    if type(fs) is int:
        f.file_search_requests = fs
    if types and isinstance(output, list):
        _output_extras(f, output, types)
        lineage = response_lineage(output, g("tools"))
        if lineage is not None:
            stores = lineage.pop(VECTOR_STORES, None)
            if stores:
                extra_of(f)[VECTOR_STORES] = stores
            if lineage:
                extra_of(f)[LINEAGE] = lineage
    return f


def _refusal(output: list[Any]) -> bool:
    """Whether an item's content holds a refusal part (as _output_extras reads it)."""
    for item in output:
        if type(item) is dict:
            content = item.get("content")
            if type(content) is list:
                for part in content:
                    if type(part) is dict and part.get("type") == "refusal":
                        return True
    return False


def _kinds(output: list[Any]) -> tuple[tuple[str, ...], bool]:
    """The output items' kinds (a typeless item with a role is a message), and whether one
    is a hosted call."""
    kinds = []
    for i in output:
        if type(i) is dict:
            t = i.get("type")
            kinds.append(intern(t) if type(t) is str and t else
                         intern(str(t or ("message" if "role" in i else "?"))))
    types = shared(tuple(kinds))
    return types, not HOSTED_TYPES.isdisjoint(types)


def _response_common(f: ResponseFacts, g: Any, usage: Any) -> None:
    """Facts both APIs' responses share: store, service tier, fingerprint, tool counters
    kept in `usage.server_tool_use` (the shape some gateways report)."""
    store = g("store")
    if type(store) is bool:
        f.store_set = True
        f.store_value = store
    tier = g("service_tier")
    if tier is not None:  # None leaves the default
        f.service_tier = short_name(tier) if type(tier) is not str or tier.isalnum() \
            else _masked(tier)
    fp = g("system_fingerprint")
    if type(fp) is str and fp:
        f.fingerprint = _masked(fp)
    stu = usage.get("server_tool_use") if type(usage) is dict else None
    if type(stu) is dict:
        ws, fs = stu.get("web_search_requests"), stu.get("file_search_requests")
        if type(ws) is int and f.web_search_requests is None:
            f.web_search_requests = ws
        if type(fs) is int and f.file_search_requests is None:
            f.file_search_requests = fs


def _masked(value: str) -> str | None:
    """A short provider string that is not plainly a name: masked and clipped."""
    return short_name(redact_text(value)[:99])


def error_code(err: dict[str, Any]) -> str | None:
    code = err.get("code") or err.get("type")
    return redact_text(str(code))[:100] if isinstance(code, str | int) and code != "" else None


def extra_of(f: ResponseFacts) -> dict[str, Any]:
    if f.extra is None:
        f.extra = {}
    return f.extra


def _output_extras(f: ResponseFacts, output: list[Any], types: tuple[str, ...]) -> None:
    """Unknown item types, items that hand the next step to the application, refusals and
    compaction keys: each read only when the output holds that kind of item."""
    if not KNOWN_OUTPUT_TYPES.issuperset(types):
        extra_of(f)["unknown_items"] = tuple([(i, redact_text(t)[:100])
                                            for i, t in enumerate(types)
                                            if t not in KNOWN_OUTPUT_TYPES])
    if not ACTION_TYPES.isdisjoint(types):
        actions = []
        for item in output:
            if type(item) is not dict or type(item.get("type")) is not str or (
                    item["type"] not in ACTION_TYPES):
                continue
            t = item["type"]
            cid = item.get("id" if t == "mcp_approval_request" else "call_id")
            name = item.get("name")
            if t == "computer_call":
                act = item.get("action")
                name = act.get("type") if type(act) is dict else "actions"
            iid = item.get("id")
            actions.append((t, cid if type(cid) is str else None,
                            redact_text(name)[:80] if type(name) is str else None,
                            iid if type(iid) is str else None))
        extra_of(f)["actions"] = tuple(actions)
    if "message" in types and _refusal(output):
        f.refusal = True
    if "compaction" in types:
        keys = [k for item in output if type(item) is dict and item.get("type") == "compaction"
                for k in compaction_keys(item)]
        extra_of(f)["compaction_keys"] = tuple(keys)


_CHAT_STATUS = {
    "stop": "completed", "tool_calls": "completed", "function_call": "completed",
    "length": "incomplete", "content_filter": "incomplete",
}


def _chat_into(f: ResponseFacts, body: dict[str, Any]) -> None:
    """Every choice counts (n > 1): any choice cut by length (or filtered) makes the turn
    incomplete, whichever choice comes last."""
    choices = body.get("choices")
    finishes: list[str] = []
    types: list[str] = []
    actions: list[tuple[str, str | None, str | None, str | None]] = []
    if isinstance(choices, list):
        for ch in choices:
            if not isinstance(ch, dict):
                continue
            fr = ch.get("finish_reason")
            if isinstance(fr, str) and fr:
                finishes.append(intern(fr) if len(fr) < 40 else fr[:40])
            msg = ch.get("message")
            if not isinstance(msg, dict):
                msg = {}
            if isinstance(msg.get("content"), str):
                types.append("message")
            if isinstance(msg.get("refusal"), str) and msg["refusal"]:
                f.refusal = True
            calls = msg.get("tool_calls")
            if isinstance(calls, list) and calls:
                types.append("tool_calls")
                for c in calls:
                    if isinstance(c, dict):
                        fn = c.get("function")
                        if not isinstance(fn, dict):
                            fn = {}
                        name = fn.get("name")
                        actions.append(("function_call",
                                        c.get("id") if isinstance(c.get("id"), str) else None,
                                        redact_text(name)[:80] if isinstance(name, str) else None,
                                        None))
        f.output_bytes = dumps_len([c.get("message") for c in choices if isinstance(c, dict)])
    f.output_types = shared(tuple(types))
    statuses = [_CHAT_STATUS.get(fr, "unknown") for fr in finishes]
    bad = [fr for fr in finishes if fr in ("length", "content_filter")]
    if bad:
        f.status = "incomplete"
        f.incomplete_reason = "max_output_tokens" if "length" in bad else bad[0]
        if len(finishes) > 1:
            f.incomplete_reason += f" ({len(bad)} of {len(finishes)} choices)"
    elif statuses:
        f.status = "completed" if all(s == "completed" for s in statuses) else "unknown"
    else:
        f.status = "unknown"
    if len(finishes) > 1:
        extra_of(f)["finish_reasons"] = tuple(finishes)
    if actions:
        extra_of(f)["actions"] = tuple(actions)
    lineage = chat_lineage(choices) if isinstance(choices, list) else None
    if lineage is not None:
        extra_of(f)[LINEAGE] = lineage
    _response_common(f, body.get, body.get("usage"))


def error_text(err: dict[str, Any]) -> str:
    code = err.get("code") or err.get("type")
    msg = err.get("message")
    return redact_text(f"{code}: {msg}" if code and msg else str(msg or code or "error"))

