"""Reading items: message text, who produced an item, and hosted-call evidence.

Every dict from a capture is open-ended (docs/openai-wire.md): dispatch on `type`,
treat any field as possibly missing or null, never trust id prefixes.
"""

from __future__ import annotations

import re
from sys import intern
from typing import Any

from traceview.capture.calls import HostedCall
from traceview.capture.lineage import redact_repeated
from traceview.wire import HOSTED_CALL_TYPES as HOSTED_TYPES
from traceview.wire import (
    INCLUDE_FLAGS,
    MODEL_ITEM_TYPES,
    TERMINAL_EVENTS,
    TEXT_PART_TYPES,
)

# Keys whose strings are identifiers or opaque blobs, not text the model reads as words.
_NON_TEXT_KEYS = {
    "type", "id", "role", "status", "call_id", "encrypted_content", "image_url", "file_data",
    "file_id", "result", "approval_request_id", "container_id", "phase",
}


def message_text(item: Any) -> str | None:
    """The readable text of a message item (typed or typeless), or None."""
    if not isinstance(item, dict):
        return None
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                if isinstance(part.get("text"), str) and _str_in(part.get("type"), TEXT_PART_TYPES):
                    parts.append(part["text"])
                elif part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
                    parts.append(part["refusal"])
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts) if parts else None
    return None


def _str_in(value: Any, names: Any) -> bool:
    """``value in names`` for a set of names; a list or dict in a damaged capture is not one."""
    return isinstance(value, str) and value in names


def is_message(item: Any) -> bool:
    return isinstance(item, dict) and (
        item.get("type") == "message" or ("type" not in item and "role" in item)
    )


def model_produced(item: Any) -> bool:
    """True for items the model wrote (assistant messages, calls, reasoning)."""
    if not isinstance(item, dict):
        return False
    if is_message(item):
        return item.get("role") == "assistant"
    t = item.get("type")
    return isinstance(t, str) and t in MODEL_ITEM_TYPES


# The last events of a stream, one of which carries the whole response.
# The extra fact (a side's `extra` dict) of a record that holds an item `is_compaction`
# or `bare_reasoning`: replay fidelity reads a rebuilt input's items only where it is set.
UNHELD_ITEMS = "unheld_items"


def response_body(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """The response body of a ``res`` record, rebuilt from a terminal stream event if needed
    (the body whose ``output`` items a conversation's stored items are made of)."""
    if not isinstance(record, dict):
        return None
    body = record.get("body")
    if isinstance(body, dict) and body.get("object") in (None, "response"):
        if isinstance(body.get("output"), list):
            return body
    events = record.get("events")
    if isinstance(events, list):
        for ev in reversed(events):
            if isinstance(ev, dict) and ev.get("type") in TERMINAL_EVENTS:
                resp = ev.get("response")
                return resp if isinstance(resp, dict) else None
    return body if isinstance(body, dict) else None


def is_compaction(item: dict[str, Any]) -> bool:
    """A compaction item: an encrypted summary that replaced earlier items."""
    return item.get("type") == "compaction"


def bare_reasoning(item: dict[str, Any]) -> bool:
    """A reasoning item held by id only (no ``encrypted_content``): the provider holds what
    the capture does not."""
    return item.get("type") == "reasoning" and not item.get("encrypted_content")


def holds_unheld(items: list[Any]) -> bool:
    """Whether a list of items holds one `is_compaction` or `bare_reasoning` (dicts only)."""
    for i in items:
        if type(i) is dict and (is_compaction(i) or bare_reasoning(i)):
            return True
    return False


def describe_item(item: Any) -> str:
    """A short label for an input item that is not a user message."""
    if not isinstance(item, dict):
        return f"⟨{type(item).__name__}⟩"
    t = item.get("type") or item.get("role") or "item"
    return f"⟨{t}⟩"


def text_bytes(obj: Any) -> int:
    """UTF-8 bytes of the words in an item tree: the part a tokenizer turns into tokens.
    (Loops, not generators, and ASCII text measured without encoding it: it runs on every
    request's new input.)"""
    if isinstance(obj, str):
        return len(obj) if obj.isascii() else len(obj.encode("utf-8", "surrogatepass"))
    n = 0
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in _NON_TEXT_KEYS:
                if type(v) is str:  # the common leaf, measured here without a call
                    n += len(v) if v.isascii() else len(v.encode("utf-8", "surrogatepass"))
                elif v is not None:
                    n += text_bytes(v)
    elif isinstance(obj, list):
        for v in obj:
            n += text_bytes(v)
    return n


def _queries(item: dict[str, Any]) -> tuple[str, ...]:
    raw = _raw_queries(item)
    if not raw:
        return ()
    return tuple([redact_repeated(q) for q in raw])


def _raw_queries(item: dict[str, Any]) -> list[str]:
    out: list[str] = []
    qs = item.get("queries")
    if isinstance(qs, list):
        for q in qs:
            if isinstance(q, str):
                out.append(q)
    action = item.get("action")
    if isinstance(action, dict):
        if isinstance(action.get("query"), str):
            out.append(action["query"])
        if isinstance(action.get("queries"), list):
            out.extend(q for q in action["queries"] if isinstance(q, str) and q not in out)
    return out


def _state(value: Any) -> str:
    if value is None:
        return "missing"
    if isinstance(value, (list, dict, str)) and len(value) == 0:
        return "empty"
    return "captured"


_COUNTS: dict[tuple[int, str], str] = {}


def _count(value: Any, noun: str) -> str:
    """"3 results captured": one shared copy of each (a hosted call on every turn keeps it)."""
    n = len(value) if isinstance(value, list) else 0
    text = _COUNTS.get((n, noun))
    if text is None:
        text = intern(f"{n} {noun}{'' if n == 1 else 's'} captured")
        if len(_COUNTS) < 4096:
            _COUNTS[n, noun] = text
    return text


def hosted_calls(output: list[Any]) -> tuple[HostedCall, ...]:
    """Every hosted call in a response's output, with the state of its evidence."""
    by_call_id: dict[str, dict[str, Any]] | None = None  # made for the calls that read it
    calls: list[HostedCall] = []
    for item in output:
        if not isinstance(item, dict):
            continue
        t = item.get("type")
        if type(t) is not str or t not in HOSTED_TYPES:
            continue
        if by_call_id is None and t in _OUTPUT_PAIRED:
            by_call_id = _outputs_by_call_id(output)
        call = _hosted_call(t, item, by_call_id or {})
        if call is not None:
            calls.append(call)
    return tuple(calls)


# Hosted calls whose evidence is an output item of their own, found by call id.
_OUTPUT_PAIRED = ("shell_call", "tool_search_call", "program")


def _outputs_by_call_id(output: list[Any]) -> dict[str, dict[str, Any]]:
    by_call_id: dict[str, dict[str, Any]] = {}
    for item in output:
        if isinstance(item, dict) and isinstance(item.get("call_id"), str):
            t = item.get("type")
            if t in ("shell_call_output", "tool_search_output", "program_output"):
                by_call_id[item["call_id"]] = item
    return by_call_id


# Hosted calls whose evidence is a list that an include flag fills: (field, noun).
# For web search the list sits on the call's `action`.
_LISTED_EVIDENCE = {
    "file_search_call": ("results", "result"),
    "web_search_call": ("sources", "source"),
    "code_interpreter_call": ("outputs", "output"),
}


# The sizes and qualities an image_generation_call is billed by, as the wire names them
# (anything else is not carried: the call is then priced at the flat rate).
IMAGE_SIZE = re.compile(r"\d{2,5}x\d{2,5}|auto")
IMAGE_QUALITIES = frozenset({"low", "medium", "high", "auto"})


def _image_shape(item: dict[str, Any]) -> tuple[str | None, str | None]:
    """The call's (size, quality), each None when the item does not state a known one."""
    size, quality = item.get("size"), item.get("quality")
    return (intern(size) if isinstance(size, str) and IMAGE_SIZE.fullmatch(size) else None,
            intern(quality) if isinstance(quality, str) and quality in IMAGE_QUALITIES
            else None)


def _hosted_call(
    t: str, item: dict[str, Any], by_call_id: dict[str, dict[str, Any]]
) -> HostedCall | None:
    cid = item.get("id") if isinstance(item.get("id"), str) else None
    status = intern(item["status"]) if isinstance(item.get("status"), str) else None
    t = intern(t)
    flag = INCLUDE_FLAGS.get(t)
    queries = _queries(item)
    if t in _LISTED_EVIDENCE:
        field_name, noun = _LISTED_EVIDENCE[t]
        if t == "web_search_call":
            action = item.get("action")
            if not isinstance(action, dict):
                return HostedCall(t, cid, status, "missing", flag, queries, "no action recorded")
            kind = action.get("type")
            if kind in ("open_page", "find_in_page"):
                url = action.get("url")
                what = "opened" if kind == "open_page" else f"searched {action.get('pattern')!r} in"
                return HostedCall(t, cid, status, "captured", None, queries, f"{what} {url}")
            item = action
        value = item.get(field_name)
        ev = _state(value)
        detail = _count(value, noun) if ev == "captured" else None
        return HostedCall(t, cid, status, ev, flag, queries, detail)
    if t == "image_generation_call":
        result = item.get("result")
        # What the image is billed by, carried on the call for pricing (analysis/pricing.py).
        size, quality = _image_shape(item)
        made = f"image {size} {quality}" if size and quality else "image"
        if isinstance(result, str) and result:
            detail = f"{made}, {len(result):,} base64 chars"
            return HostedCall(t, cid, status, "captured", None, queries, detail, size, quality)
        return HostedCall(t, cid, status, "missing", None, queries,
                          f"no image (status {status})", size, quality)
    if t == "mcp_call":
        if item.get("output") is not None:
            return HostedCall(t, cid, status, _state(item.get("output")), None, queries,
                              f"{item.get('server_label')}.{item.get('name')}")
        err = item.get("error")
        detail = f"error: {err.get('message') or err.get('type')}" if isinstance(err, dict) else (
            f"error: {err}" if err else "no output (failed or pending)")
        return HostedCall(t, cid, status, "missing", None, queries, detail)
    if t == "mcp_list_tools":
        tools = item.get("tools")
        return HostedCall(t, cid, status, _state(tools), None, queries, _count(tools, "tool"))
    if t in ("shell_call", "tool_search_call", "program"):
        if t == "shell_call":
            env = item.get("environment")
            if not (isinstance(env, dict) and str(env.get("type", "")).startswith("container")):
                return None  # a local shell call is run by the client, not hosted
        if t == "tool_search_call" and item.get("execution") != "server":
            return None
        call_id = item.get("call_id")
        out = by_call_id.get(call_id) if isinstance(call_id, str) else None
        ev = "captured" if out is not None else "missing"
        return HostedCall(t, cid, status, ev, None, queries, None)
    return None
