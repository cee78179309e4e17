"""Reduce a request body to the few facts analysis needs, and the small helpers both
sides share (the response's facts: response_facts.py and body_facts.py; what the user
said: user_side.py).

Called once per record while the capture is scanned; the body is dropped afterwards.
"""

from __future__ import annotations

from collections.abc import KeysView
from sys import intern
from typing import Any, NamedTuple
from zlib import crc32

import orjson

from traceview.capture.estimate import BYTES_PER_TOKEN, TOKENS_PER_ITEM, estimate_tokens
from traceview.capture.items import (
    UNHELD_ITEMS,
    bare_reasoning,
    message_text,
)
from traceview.capture.lineage import LINEAGE, request_lineage
from traceview.capture.media import media_parts
from traceview.capture.model import RequestFacts
from traceview.capture.user_side import new_items, signature, user_excerpt, user_side
from traceview.safety import MASK
from traceview.safety.redact import is_secret_name
from traceview.wire import (
    ANSWER_KEYS,
)


def _dumps(obj: Any) -> bytes:
    try:
        return orjson.dumps(obj)
    except TypeError:
        return b""


def _media(new: list[Any], model: str | None) -> list[dict[str, Any]]:
    """The non-text parts of the new input (media.media_parts)."""
    return media_parts(new, model) if new else []


def dumps_len(obj: Any) -> int:
    try:
        return len(orjson.dumps(obj))
    except TypeError:
        return 0


def conversation_of(value: Any) -> str | None:
    if isinstance(value, str) and value:
        return intern(value)
    if isinstance(value, dict) and isinstance(value.get("id"), str):
        return intern(value["id"])
    return None


_TUPLES: dict[tuple[str, ...], tuple[str, ...]] = {}


def shared(t: tuple[str, ...]) -> tuple[str, ...]:
    """One copy of each distinct small tuple (item kinds, tools): turns repeat them."""
    if len(_TUPLES) > 10_000:
        return t
    return _TUPLES.setdefault(t, t)


def short_name(value: Any) -> str | None:
    """A short string repeated on many turns (model, status): one shared copy, not one each."""
    return intern(value) if isinstance(value, str) and len(value) < 100 else None


def _tools(tools: Any) -> tuple[str, ...]:
    """The distinct tool types offered, in order (one shared tuple per distinct list)."""
    if type(tools) is not list:
        return ()
    types = (t.get("type") if type(t) is dict else None for t in tools)
    return shared(tuple(dict.fromkeys(intern(t) for t in types if type(t) is str)))


class Offered(NamedTuple):
    """What a request's `tools` say: the types offered, the function tools' names (None:
    not listable, or no function tool) and a code-interpreter container's memory size."""

    types: tuple[str, ...]
    functions: tuple[str, ...] | None
    container_memory: str | None


_NO_TOOLS = Offered((), None, None)
_OFFERED: dict[bytes, Offered] = {}
_OFFERED_MAX = 1024


def _offered(tools: Any) -> Offered:
    """The `tools` read once per distinct list, keyed by its JSON bytes: a client sends
    the same tool list on every turn, so the facts of each distinct one are made once a
    process and shared."""
    key = _dumps(tools)
    found = _OFFERED.get(key)
    if found is None:
        types = _tools(tools)
        listed = type(tools) is list
        found = Offered(types,
                        _function_names(tools) if listed and "function" in types else None,
                        _container_memory(tools) if listed and "code_interpreter" in types
                        else None)
        if key and len(_OFFERED) < _OFFERED_MAX:
            _OFFERED[key] = found
    return found


# `input` given as a string is one user message; its bytes as that item, without dumping it.
_STR_ITEM_BYTES = len(orjson.dumps([{"role": "user", "content": ""}])) - 2


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def request_facts(api: str, body: dict[str, Any], recorded_bytes: Any) -> RequestFacts:
    """One pass over a request body: a string input is one user message, a list is read
    item by item."""
    g = body.get
    model = g("model")
    model = intern(model) if type(model) is str and len(model) < 100 else None
    rb = recorded_bytes if type(recorded_bytes) is int else dumps_len(body)
    tools = g("tools")
    offered = _offered(tools) if tools else _NO_TOOLS
    stream = g("stream") is True
    if api == "chat":
        return _chat_request(model, rb, offered, stream, body)
    conv = g("conversation")
    conv = (intern(conv) if conv else None) if type(conv) is str else conversation_of(conv)
    prev = g("previous_response_id")
    prev = prev if type(prev) is str and prev else None
    inc = g("include")
    include = tuple([x for x in inc if type(x) is str]) if type(inc) is list else ()
    trunc = g("truncation")
    chained = conv is not None or prev is not None
    raw_input = g("input")
    compaction_input = compaction_trigger = False
    extra: dict[str, Any] = {}
    if type(raw_input) is str:
        # The common case: one user message, read without building the item.
        count = 1
        ib = dumps_len(raw_input)
        ib = ib + _STR_ITEM_BYTES if ib else 0
        user_text: str | None
        user_text, n_words = user_excerpt(raw_input)
        words: int | None = n_words
        sig = None if chained else signature(raw_input)
        new_tokens = -(-_utf8_len(raw_input) // BYTES_PER_TOKEN) + TOKENS_PER_ITEM
    else:
        items: list[Any] = raw_input if type(raw_input) is list else []
        count = len(items)
        raw_items = _dumps(items) if items else b""
        ib = len(raw_items)
        # Only stateless turns are grouped by their first message.
        user_text, words, sig = user_side(items, not chained)
        new = new_items(items)
        new_tokens, compaction_input, compaction_trigger, keys, answered, media, bare = \
            _items(items, new, model)
        if compaction_input or bare:  # what replay fidelity must read (capture/items.py)
            extra[UNHELD_ITEMS] = True
        if keys:
            extra["compaction_keys"] = tuple(keys)
        if answered:
            extra["answered"] = tuple(answered)
        # Items resent by reference (the serialised input says whether to look).
        refs = [i["id"] for i in items if type(i) is dict and i.get("type") == "item_reference"
                and type(i.get("id")) is str] if b'"item_reference"' in raw_items else []
        if refs:
            extra["item_refs"] = tuple(refs)
        if chained and len(new) < len(items):
            # History sent again on a chained turn: its bytes are not owned-state growth;
            # their JSON less its brackets, plus the comma before the new items.
            extra["resent_bytes"] = len(_dumps(items[: len(items) - len(new)])) - 1
        if media:
            extra["media"] = media
            new_tokens += sum(m["tokens"] for m in media if m["tokens"] is not None)
    prompt = _prompt_message(g("prompt"))
    if prompt is not None:  # a reusable prompt's variables are this turn's new input
        new_tokens += estimate_tokens([prompt])
        media = _media([prompt], model)
        if media:
            extra.setdefault("media", []).extend(media)
            new_tokens += sum(m["tokens"] for m in media if m["tokens"] is not None)
        if user_text is None:
            user_text, words = user_excerpt(message_text(prompt) or "")
            sig = None if chained else signature(user_text or "")
    lineage = request_lineage(body, raw_input if answered_any(extra) else None)
    if lineage is not None:
        extra[LINEAGE] = lineage
    f = RequestFacts(
        api, model, conv, prev, include, offered.types, rb, ib, count, new_tokens, user_text,
        words, sig, compaction_input, compaction_trigger, bool(g("context_management")),
        trunc if type(trunc) is str else None, stream, g("background") is True)
    _request_common(f, g, body.keys(), offered, extra)
    return f


def _prompt_message(prompt: Any) -> dict[str, Any] | None:
    """A reusable prompt's variables as the user message they fill in: `name: text` for a
    text variable, the part itself for an image or a file; None without variables."""
    variables = prompt.get("variables") if type(prompt) is dict else None
    if type(variables) is not dict or not variables:
        return None
    parts: list[Any] = []
    for name, value in variables.items():
        if type(value) is str:
            parts.append({"type": "input_text", "text": f"{name}: {value}"})
        elif type(value) is dict and type(value.get("text")) is str:
            parts.append({"type": "input_text", "text": f"{name}: {value['text']}"})
        elif type(value) is dict:
            parts.append(value)
    return {"type": "message", "role": "user", "content": parts}


_Items = tuple[int, bool, bool, list[str], list[str], list[dict[str, Any]], bool]


def answered_any(extra: dict[str, Any]) -> bool:
    """Whether the input answers a call (only then can it acknowledge safety checks)."""
    return "answered" in extra


def _items(items: list[Any], new: list[Any], model: str | None) -> _Items:
    """What a request's input items say (`new`: those the provider has not seen): (estimated
    tokens of the new input, a compaction item sent, a compaction trigger sent, compaction
    keys, call ids answered, non-text parts of the new input, a `bare_reasoning` item
    sent)."""
    compaction_input = compaction_trigger = bare = False
    keys: list[str] = []
    answered: list[str] = []
    for item in items:
        if type(item) is dict:
            t = item.get("type")
            if t == "compaction":
                compaction_input = True
                keys.extend(compaction_keys(item))
            elif t == "compaction_trigger":
                compaction_trigger = True
            elif type(t) is str and t in ANSWER_KEYS:
                cid = item.get(ANSWER_KEYS[t])
                if type(cid) is str:
                    answered.append(cid)
            elif t == "reasoning" and bare_reasoning(item):
                bare = True
    return (estimate_tokens(new), compaction_input, compaction_trigger, keys, answered,
            _media(new, model), bare)


def compaction_keys(item: dict[str, Any]) -> list[str]:
    """What identifies a compaction item when it is resent: its id and its opaque content
    (a request may resend it without the id)."""
    out = []
    if type(item.get("id")) is str:
        out.append("id:" + item["id"])
    enc = item.get("encrypted_content")
    if type(enc) is str and enc:
        out.append(f"enc:{crc32(enc.encode('utf-8', 'surrogatepass')):08x}:{len(enc)}")
    return out


def _function_names(tools: Any) -> tuple[str, ...] | None:
    """Names of the function tools offered; None when a tool's names cannot be listed (a
    namespace or a damaged entry), so no call is ever flagged as unoffered by mistake."""
    names: list[str] = []
    for t in tools:
        if type(t) is not dict:
            return None
        kind = t.get("type")
        if kind == "function":
            name = t.get("name")
            if type(name) is not str and type(t.get("function")) is dict:
                name = t["function"].get("name")  # chat: {"type":"function","function":{...}}
            if type(name) is not str:
                return None
            names.append(name)
        elif kind in ("namespace", "tool_search", "programmatic_tool_calling"):
            return None
    return shared(tuple(names))


def _request_common(f: RequestFacts, g: Any, keys: KeysView[str], offered: Offered,
                    extra: dict[str, Any]) -> None:
    """Facts both APIs' requests share: store, instructions, function names offered
    (`keys`: the body's, which most bodies' billing facts are told absent by)."""
    store = g("store")
    if type(store) is bool:
        f.store_set = True
        f.store_value = store
    instr = g("instructions")
    if instr:
        f.instructions = True
    if offered.functions is not None:
        extra["functions"] = offered.functions
    if offered.container_memory is not None or not keys.isdisjoint(_BILLING_KEYS):
        _billing_facts(g, offered, extra)
    if extra:
        f.extra = extra


# What a request says about who it was for and how it is billed (issue 33): the tier it
# asked for, its metadata and end-user ids, a code-interpreter container's memory size.
_ATTRIBUTION_KEYS = ("user", "safety_identifier")
_BILLING_KEYS = frozenset(("service_tier", "metadata", *_ATTRIBUTION_KEYS))


def metadata_tags(meta: dict[Any, Any]) -> dict[str, str]:
    """A request's or a conversation's metadata as attribution reads it: 16 tags at most,
    clipped. A tag becomes a report's group name and value, no longer a field of its own,
    so a tag named like a secret (`api_key`) has its value masked here, as the output
    boundary masks such a field; every other value is judged there as before."""
    tags = {str(k)[:64]: str(v)[:512] for k, v in list(meta.items())[:16]}
    return {k: MASK if is_secret_name(k) else v for k, v in tags.items()}


def _billing_facts(g: Any, offered: Offered, extra: dict[str, Any]) -> None:
    """Kept in the request's `extra` only when set: most requests set none of them."""
    tier = g("service_tier")
    if type(tier) is str and tier and len(tier) < 40:
        extra["service_tier"] = intern(tier)
    meta = g("metadata")
    if type(meta) is dict and meta:
        extra["metadata"] = metadata_tags(meta)
    for key in _ATTRIBUTION_KEYS:
        v = g(key)
        if type(v) is str and v:
            extra[key] = v[:256]
    if offered.container_memory is not None:
        extra["container_memory"] = offered.container_memory


def _container_memory(tools: list[Any]) -> str | None:
    """The memory size the last code-interpreter tool asks its container for, if any."""
    memory = None
    for t in tools:
        box = t.get("container") if type(t) is dict and t.get("type") == \
            "code_interpreter" else None
        if type(box) is dict and type(box.get("memory_limit")) is str:
            memory = box["memory_limit"]
    return memory


def _chat_request(model: str | None, rb: int, offered: Offered, stream: bool,
                  body: dict[str, Any]) -> RequestFacts:
    g = body.get
    messages = g("messages")
    items = messages if isinstance(messages, list) else []
    raw_items = _dumps(items)
    user_text, words, sig = user_side(items)
    new = new_items(items)
    new_tokens = estimate_tokens(new)
    extra: dict[str, Any] = {}
    answered = [m["tool_call_id"] for m in new if type(m) is dict and m.get("role") == "tool"
                and type(m.get("tool_call_id")) is str]
    if answered:
        extra["answered"] = tuple(answered)
    media = _media(new, model)
    if media:
        extra["media"] = media
        new_tokens += sum(m["tokens"] for m in media if m["tokens"] is not None)
    lineage = request_lineage(body, None)
    if lineage is not None:
        extra[LINEAGE] = lineage
    f = RequestFacts(
        "chat", model, None, None, (), offered.types, rb, len(raw_items), len(items),
        new_tokens, user_text, words, sig, stream=stream)
    _request_common(f, g, body.keys(), offered, extra)
    return f
