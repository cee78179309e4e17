"""Reduce a request or response body to the few facts analysis needs.

Called once per record while the capture is scanned; the body is dropped afterwards.
"""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import repeat
from operator import itemgetter

try:  # hashlib's blake2b itself, without hashlib's import of OpenSSL (3.5 MB of RSS)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter without the builtin module
    from hashlib import blake2b
from sys import intern
from typing import Any
from zlib import crc32

import orjson

from traceview.capture.estimate import BYTES_PER_TOKEN, TOKENS_PER_ITEM, estimate_tokens
from traceview.capture.items import (
    UNHELD_ITEMS,
    bare_reasoning,
    describe_item,
    holds_unheld,
    hosted_calls,
    is_message,
    message_text,
    model_produced,
    response_body,
    text_bytes,
)
from traceview.capture.media import IMAGE_PARTS, OTHER_MEDIA, media_parts
from traceview.capture.model import RequestFacts, ResponseFacts
from traceview.capture.plain_text import holds_no_secret
from traceview.safety.redact import redact_text
from traceview.wire import (
    ACTION_TYPES,
    ANSWER_KEYS,
    KNOWN_OUTPUT_TYPES,
    NON_TERMINAL,
    TERMINAL_EVENTS,
)
from traceview.wire import HOSTED_CALL_TYPES as HOSTED_TYPES

USER_TEXT_MAX = 160


def _dumps(obj: Any) -> bytes:
    try:
        return orjson.dumps(obj)
    except TypeError:
        return b""


# Substrings whose absence from an item list's JSON proves it carries no non-text input:
# one C-level search spares the walk on the turns (nearly all) that have none.
_MEDIA_HINTS = (b'"input_image"', b'"input_file"', b'"computer_screenshot"', b'"image_url"',
                b'"input_audio"', b'"file"')


def _may_carry_media(raw: bytes) -> bool:
    return any(h in raw for h in _MEDIA_HINTS)


_MEDIA_TYPES = IMAGE_PARTS + OTHER_MEDIA


def _media(new: list[Any], model: str | None, raw_items: bytes) -> list[dict[str, Any]]:
    """The non-text parts of the new input (media.media_parts), skipped when cheap checks
    prove there are none."""
    if not new or _flat(new) or not _may_carry_media(raw_items):
        return []
    return media_parts(new, model)


def _flat(items: list[Any]) -> bool:
    """True when `media_parts(items)` is surely empty, read off the items in less time than
    the hints take to search: no item is a media part or holds a list or dict under
    `content` or `output` (the only places media_parts looks inside), as one typed message
    a request of a hosted conversation sends."""
    for item in items:
        if type(item) is dict:
            g = item.get
            t = g("type")
            if (type(t) is str and t in _MEDIA_SET) or isinstance(g("content"), _CONTAINERS) \
                    or isinstance(g("output"), _CONTAINERS):
                return False
        elif isinstance(item, _CONTAINERS):
            return False
    return True


_MEDIA_SET = frozenset(_MEDIA_TYPES)
_CONTAINERS = (list, dict)


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
    return _excerpt(text[: limit * 2].split(), limit)


def _excerpt(words: list[str], limit: int = USER_TEXT_MAX) -> str:
    """The words joined by single spaces, secrets masked (redact_text), cut at `limit`.

    Text that surely holds no secret (capture/plain_text.py) is not passed through the
    redactor: most user messages."""
    text = " ".join(words)
    if holds_no_secret(text):
        return text[:limit]
    return redact_text(text)[:limit]


def _user_excerpt(text: str) -> tuple[str, int]:
    """(excerpt, words) of a user text no longer than USER_TEXT_MAX * 2, as
    `_excerpt(text.split())` and `len(text.split())` give them (the general path, below).

    A text of ASCII letters and digits in words one space apart, none at either end, that
    holds no secret shape (plain_text.holds_no_secret, which also sees a registered key) is
    its own folded excerpt: its split words joined again are the text itself, and its
    words are its spaces plus one. Most user messages are such text: the split, the join
    and the second pre-check are passed over (tests/core/test_facts_fast_paths.py)."""
    if text and text[0] != " " and text[-1] != " " and "  " not in text \
            and holds_no_secret(text):
        return text[:USER_TEXT_MAX], text.count(" ") + 1
    words = text.split()
    return _excerpt(words), len(words)


def signature(text: str) -> int:
    """A stable 64-bit signature of a text, equal in every process. Not hash(): str hashes
    are salted per process, and facts are made in worker processes (capture/parallel.py)
    whose signatures the main process compares."""
    return int.from_bytes(blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest())


def _user_side(items: list[Any], want_sig: bool = True,
               ) -> tuple[str | None, int | None, int | None]:
    """(short text of the last input item, words of that text, signature of the first user
    text — only when `want_sig`: a chained turn is never grouped by it)."""
    first_sig = first = first_text = None
    if want_sig:
        for item in items:
            if is_message(item) and item.get("role") == "user":
                first, first_text = item, message_text(item) or ""
                first_sig = signature(first_text)
                break
    if not items:
        return None, None, first_sig
    last = items[-1]
    lt = last.get("type") if type(last) is dict else None
    if lt == "compaction_trigger":
        for item in reversed(items):  # the last item that is not a trigger, if any
            if not (isinstance(item, dict) and item.get("type") == "compaction_trigger"):
                last = item
                break
        lt = last.get("type") if type(last) is dict else None
    # is_message(last), read here: a dict typed "message", or untyped with a role.
    if type(last) is dict and last.get("role") == "user" and (
            lt == "message" or (lt is None and "type" not in last)):
        if last is first:
            text = first_text
        else:
            text = last.get("content")
            if type(text) is not str:  # a list of parts (or none): message_text reads it
                text = message_text(last) or ""
        if len(text) <= USER_TEXT_MAX * 2:  # _clip splits all of it: split it once
            excerpt, n_words = _user_excerpt(text)
            return excerpt, n_words, first_sig
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


_TOOL_SETS: dict[tuple[Any, ...], tuple[str, ...]] = {}
_TYPE = repeat("type")  # map(dict.get, items, _TYPE): each item's "type"


def _tools(tools: Any) -> tuple[str, ...]:
    """The distinct tool types offered, in order; one shared tuple per distinct list (a
    service offers the same few tool lists on every request)."""
    if type(tools) is not list:
        return ()
    try:
        key = tuple(map(dict.get, tools, _TYPE))  # in C; a TypeError on a tool not a dict
    except TypeError:
        key = tuple([t.get("type") if type(t) is dict else None for t in tools])
    try:
        return _TOOL_SETS[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable "type" (a damaged capture): not a tool type
        key = tuple([t if type(t) is str else None for t in key])
    seen = dict.fromkeys(intern(t) for t in key if type(t) is str)
    types = _shared(tuple(seen))
    if len(_TOOL_SETS) < 1024:
        _TOOL_SETS[key] = types
    return types


# `input` given as a string is one user message; its bytes as that item, without dumping it.
_STR_ITEM_BYTES = len(orjson.dumps([{"role": "user", "content": ""}])) - 2


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _one_user_message(item: Any) -> str | None:
    """The text of `item` when it is `{"role": "user", "content": <str>}` and nothing else
    (what a hosted conversation's request sends as its whole input): such an input reads as
    that string does in every fact — one item, the same dumped length (`_STR_ITEM_BYTES`),
    text bytes (the role is not text), user text, signature and no media — so
    request_facts takes the string's path, not the walk over items (a test compares)."""
    if type(item) is dict and len(item) == 2:
        content = item.get("content")
        if type(content) is str and item.get("role") == "user":
            return content
    return None


def request_facts(api: str, body: dict[str, Any], recorded_bytes: Any) -> RequestFacts:
    """One pass over a request body. Written flat, with the common shapes first: it runs
    once per turn of captures that can hold a hundred thousand turns (bench/load.py)."""
    g = body.get
    model = g("model")
    model = intern(model) if type(model) is str and len(model) < 100 else None
    rb = recorded_bytes if type(recorded_bytes) is int else _dumps_len(body)
    tools = g("tools")
    tools_offered = _tools(tools) if tools else ()
    stream = g("stream") is True
    if api == "chat":
        return _chat_request(model, rb, tools_offered, stream, g, tools)
    conv = g("conversation")
    conv = (intern(conv) if conv else None) if type(conv) is str else _conversation_id(conv)
    prev = g("previous_response_id")
    prev = prev if type(prev) is str and prev else None
    inc = g("include")
    include = tuple([x for x in inc if type(x) is str]) if type(inc) is list else ()
    trunc = g("truncation")
    chained = conv is not None or prev is not None
    raw_input = g("input")
    compaction_input = compaction_trigger = False
    extra: dict[str, Any] = {}
    if type(raw_input) is list and len(raw_input) == 1:
        one = _one_user_message(raw_input[0])
        if one is not None:
            raw_input = one  # read as the string it holds: the same facts, fewer steps
    if type(raw_input) is str:
        # The common case: one user message, read without building the item.
        count = 1
        ib = _dumps_len(raw_input)
        ib = ib + _STR_ITEM_BYTES if ib else 0
        words: int | None
        if len(raw_input) <= USER_TEXT_MAX * 2:  # _clip splits all of it: split it once
            user_text, words = _user_excerpt(raw_input)
        else:
            user_text = _clip(raw_input, USER_TEXT_MAX)
            words = len(raw_input.split())
        sig = None if chained else signature(raw_input)
        new_tokens = -(-_utf8_len(raw_input) // BYTES_PER_TOKEN) + TOKENS_PER_ITEM
    else:
        items: list[Any] = raw_input if type(raw_input) is list else []
        count = len(items)
        raw_items = _dumps(items) if items else b""
        ib = len(raw_items)
        # Only stateless turns are grouped by their first message.
        user_text, words, sig = _user_side(items, not chained)
        new_tokens, compaction_input, compaction_trigger, keys, answered, media, bare = (
            _chained_items if chained else _items)(items, model, raw_items)
        if compaction_input or bare:  # what replay fidelity must read (capture/items.py)
            extra[UNHELD_ITEMS] = True
        if keys:
            extra["compaction_keys"] = tuple(keys)
        if answered:
            extra["answered"] = tuple(answered)
        if media:
            extra["media"] = media
            new_tokens += sum(m["tokens"] for m in media if m["tokens"] is not None)
    f = RequestFacts(
        api, model, conv, prev, include, tools_offered, rb, ib, count, new_tokens, user_text,
        words, sig, compaction_input, compaction_trigger, bool(g("context_management")),
        trunc if type(trunc) is str else None, stream, g("background") is True)
    _request_common(f, g, tools, tools_offered, extra)
    return f


_Items = tuple[int, bool, bool, list[str], list[str], list[dict[str, Any]], bool]


def _items(items: list[Any], model: str | None, raw_items: bytes) -> _Items:
    """What a request's input items say: (estimated tokens of the new input, a compaction
    item sent, a compaction trigger sent, compaction keys, call ids answered, non-text
    parts of the new input, a `bare_reasoning` item sent)."""
    new = _new_items(items, False)
    new_tokens = estimate_tokens(new)
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
    return (new_tokens, compaction_input, compaction_trigger, keys, answered,
            _media(new, model, raw_items), bare)


def _chained_items(items: list[Any], model: str | None, raw_items: bytes) -> _Items:
    """_items for a chained turn, whose new input is all of its items: the token estimate,
    the kinds and the media pre-check (_flat) read in the one loop over them."""
    tokens = 0
    compaction_input = compaction_trigger = bare = False
    flat = True
    keys: list[str] = []
    answered: list[str] = []
    for item in items:
        tokens += -(-text_bytes(item) // BYTES_PER_TOKEN) + TOKENS_PER_ITEM
        if type(item) is dict:
            g = item.get
            t = g("type")
            if type(t) is str:
                if t in _MEDIA_SET:
                    flat = False
                if t == "compaction":
                    compaction_input = True
                    keys.extend(compaction_keys(item))
                elif t == "compaction_trigger":
                    compaction_trigger = True
                elif t in ANSWER_KEYS:
                    cid = g(ANSWER_KEYS[t])
                    if type(cid) is str:
                        answered.append(cid)
                elif t == "reasoning" and bare_reasoning(item):
                    bare = True
            if flat and (isinstance(g("content"), _CONTAINERS)
                         or isinstance(g("output"), _CONTAINERS)):
                flat = False
        elif isinstance(item, _CONTAINERS):
            flat = False
    media = [] if flat or not items or not _may_carry_media(raw_items) else media_parts(
        items, model)
    return tokens, compaction_input, compaction_trigger, keys, answered, media, bare


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
    return _shared(tuple(names))


def _request_common(f: RequestFacts, g: Any, tools: Any, offered: tuple[str, ...],
                    extra: dict[str, Any]) -> None:
    """Facts both APIs' requests share: store, instructions, function names offered."""
    store = g("store")
    if type(store) is bool:
        f.store_set = True
        f.store_value = store
    instr = g("instructions")
    if instr:
        f.instructions = True
    if "function" in offered and type(tools) is list:
        names = _function_names(tools)
        if names is not None:
            extra["functions"] = names
    if extra:
        f.extra = extra


def _chat_request(model: str | None, rb: int, tools: tuple[str, ...], stream: bool,
                  g: Any, raw_tools: Any) -> RequestFacts:
    messages = g("messages")
    items = messages if isinstance(messages, list) else []
    raw_items = _dumps(items)
    user_text, words, sig = _user_side(items)
    new = _new_items(items, False)
    new_tokens = estimate_tokens(new)
    extra: dict[str, Any] = {}
    answered = [m["tool_call_id"] for m in new if type(m) is dict and m.get("role") == "tool"
                and type(m.get("tool_call_id")) is str]
    if answered:
        extra["answered"] = tuple(answered)
    media = _media(new, model, raw_items)
    if media:
        extra["media"] = media
        new_tokens += sum(m["tokens"] for m in media if m["tokens"] is not None)
    f = RequestFacts(
        "chat", model, None, None, (), tools, rb, len(raw_items), len(items),
        new_tokens, user_text, words, sig, stream=stream)
    _request_common(f, g, raw_tools, tools, extra)
    return f


# The fields _from_body reads, fetched in one call (operator.itemgetter, in C) when the body
# holds them all, as the API's response objects do (null where unset); a KeyError sends any
# other body to one dict.get each. The values are the same either way (a test compares).
_RESPONSE_KEYS = ("object", "id", "model", "usage", "status", "conversation", "output",
                  "prompt_cache_diagnostics", "incomplete_details", "error", "tool_usage",
                  "input_transformations")
_RESPONSE_FIELDS = itemgetter(*_RESPONSE_KEYS)


def _from_body(body: dict[str, Any], elapsed: int | None, http: int | None) -> ResponseFacts:
    """Facts from a response body, in one pass and one construction (see request_facts)."""
    g = body.get
    try:  # a Responses body as the API writes it, every field present (nulls included)
        (obj, rid, model, usage, status, conv, output, diag, inc, err, tu, it
         ) = _RESPONSE_FIELDS(body)
    except KeyError:  # any other: each field read with its default, None
        obj, rid, model, usage, status, conv, output, diag, inc, err, tu, it = map(
            g, _RESPONSE_KEYS)
    obj = intern(obj) if type(obj) is str and len(obj) < 100 else None
    if type(rid) is not str:
        rid = None
    model = intern(model) if type(model) is str and len(model) < 100 else None
    if type(usage) is dict:
        ug = usage.get
        if "input_tokens" in usage or "output_tokens" in usage:
            inp, out = ug("input_tokens"), ug("output_tokens")
            det, odet = ug("input_tokens_details"), ug("output_tokens_details")
        else:  # Chat Completions names for the same four numbers
            inp, out = ug("prompt_tokens"), ug("completion_tokens")
            det, odet = ug("prompt_tokens_details"), ug("completion_tokens_details")
        if type(inp) is not int:
            inp = None
        if type(out) is not int:
            out = None
        cached = det.get("cached_tokens") if type(det) is dict else None
        if type(cached) is not int:
            cached = None
        reasoning = odet.get("reasoning_tokens") if type(odet) is dict else None
        if type(reasoning) is not int:
            reasoning = None
    else:
        inp = out = cached = reasoning = None
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
        conv = _conversation_id(conv)
    if type(output) is list and output:
        ob = _dumps_len(output)
        types, hosted, plain = _kinds(output)
        calls = hosted_calls(output) if hosted else ()
    else:
        types, calls, ob, plain = (), (), 0, True
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
        _error_text(err) if type(err) is dict else None, None, False,
        ws if type(ws) is int else None, len(it) if type(it) is list else 0)
    _response_common(f, g, usage)
    if type(err) is dict:
        f.error_code = _error_code(err)
    if type(fs) is int:
        f.file_search_requests = fs
    if not plain:
        _output_extras(f, output, types)
    elif "message" in types and _refusal(output):
        # The walk over the items' content lists, not a search of the output's JSON for a
        # part typed "refusal": a third of the search's time on a message's few parts.
        f.refusal = True  # all _output_extras would find in plain kinds
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


# An output list's item kinds, by the tuple of its items' `type` values: (kinds, whether
# one is a hosted call, _plain(kinds)). Most responses' kinds are one of a few tuples, so
# the interning, sharing and set tests run once per distinct tuple, not per response.
_KINDS: dict[tuple[Any, ...], tuple[tuple[str, ...], bool, bool]] = {}


def _kinds(output: list[Any]) -> tuple[tuple[str, ...], bool, bool]:
    try:
        # Each item's "type", in C; a TypeError when an item is not a dict (then the
        # general path skips it) or a type is unhashable (a damaged capture).
        key = tuple(map(dict.get, output, _TYPE))
        return _KINDS[key]
    except (KeyError, TypeError):
        pass
    entry = _kinds_of(output)
    # Kept only when every type is a non-empty string: then the kinds are those strings,
    # whatever else the items hold (an empty or missing type reads the item's role).
    key = tuple([i.get("type") if type(i) is dict else None for i in output])
    if len(_KINDS) < 4096 and all([type(t) is str and t for t in key]):
        _KINDS[key] = entry
    return entry


def _kinds_of(output: list[Any]) -> tuple[tuple[str, ...], bool, bool]:
    """What _kinds caches, read from the items themselves (the general path)."""
    kinds = []
    for i in output:
        if type(i) is dict:
            t = i.get("type")
            kinds.append(intern(t) if type(t) is str and t else
                         intern(str(t or ("message" if "role" in i else "?"))))
    types = _shared(tuple(kinds))
    return types, not HOSTED_TYPES.isdisjoint(types), (not types or _plain(types))


# Item-kind tuples (shared, see _shared) that hold nothing _output_extras reads: known
# types only, no action, no compaction. Most turns' kinds are one of a few such tuples.
_PLAIN_TYPES: dict[tuple[str, ...], bool] = {}


def _plain(types: tuple[str, ...]) -> bool:
    plain = _PLAIN_TYPES.get(types)
    if plain is None:
        plain = (KNOWN_OUTPUT_TYPES.issuperset(types) and ACTION_TYPES.isdisjoint(types)
                 and "compaction" not in types)
        if len(_PLAIN_TYPES) < 4096:
            _PLAIN_TYPES[types] = plain
    return plain


def _response_common(f: ResponseFacts, g: Any, usage: Any) -> None:
    """Facts both APIs' responses share: store, service tier, fingerprint, tool counters
    kept in `usage.server_tool_use` (the shape some gateways report)."""
    store = g("store")
    if type(store) is bool:
        f.store_set = True
        f.store_value = store
    tier = g("service_tier")
    if tier is not None:  # None leaves the default
        f.service_tier = _name(tier) if type(tier) is not str or tier.isalnum() \
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
    return _name(redact_text(value)[:99])


def _error_code(err: dict[str, Any]) -> str | None:
    code = err.get("code") or err.get("type")
    return redact_text(str(code))[:100] if isinstance(code, str | int) and code != "" else None


def _extra(f: ResponseFacts) -> dict[str, Any]:
    if f.extra is None:
        f.extra = {}
    return f.extra


def _output_extras(f: ResponseFacts, output: list[Any], types: tuple[str, ...]) -> None:
    """Unknown item types, items that hand the next step to the application, refusals and
    compaction keys: each read only when the output holds that kind of item."""
    unknown = [(i, redact_text(t)[:100]) for i, t in enumerate(types)
               if t not in KNOWN_OUTPUT_TYPES]
    if unknown:
        _extra(f)["unknown_items"] = tuple(unknown)
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
        _extra(f)["actions"] = tuple(actions)
    if "message" in types and _refusal(output):
        f.refusal = True
    if "compaction" in types:
        keys = [k for item in output if type(item) is dict and item.get("type") == "compaction"
                for k in compaction_keys(item)]
        _extra(f)["compaction_keys"] = tuple(keys)


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
            msg = ch.get("message") if isinstance(ch.get("message"), dict) else {}
            if isinstance(msg.get("content"), str):
                types.append("message")
            if isinstance(msg.get("refusal"), str) and msg["refusal"]:
                f.refusal = True
            calls = msg.get("tool_calls")
            if isinstance(calls, list) and calls:
                types.append("tool_calls")
                for c in calls:
                    if isinstance(c, dict):
                        fn = c.get("function") if isinstance(c.get("function"), dict) else {}
                        name = fn.get("name")
                        actions.append(("function_call",
                                        c.get("id") if isinstance(c.get("id"), str) else None,
                                        redact_text(name)[:80] if isinstance(name, str) else None,
                                        None))
        f.output_bytes = _dumps_len([c.get("message") for c in choices if isinstance(c, dict)])
    f.output_types = _shared(tuple(types))
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
        _extra(f)["finish_reasons"] = tuple(finishes)
    if actions:
        _extra(f)["actions"] = tuple(actions)
    _response_common(f, body.get, body.get("usage"))


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


def _started_at(body: Any, ts: Any, elapsed: int | None) -> int | None:
    """When the turn started, in seconds: the provider's own creation time, else the
    recorder's clock (a record's `ts` is written when the response arrived)."""
    if type(body) is dict:
        created = body.get("created_at")
        if created is None:
            created = body.get("created")
        if type(created) in (int, float) and created > 0:
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


def response_facts(record: dict[str, Any]) -> ResponseFacts:
    """Facts from a `res` record: body, stream events, HTTP status, transport error."""
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
        f = _from_body(body, elapsed, http)
        if "error" in body and f.object is None and type(body["error"]) is dict:
            f.status = "failed"
    else:
        f = ResponseFacts(elapsed_ms=elapsed, http_status=http)
    if type(events) is list:
        f.stream_events = len(events)
    created = body.get("created_at") if type(body) is dict else None
    if (type(created) is float or type(created) is int) and created > 0:
        started: int | None = int(created)  # _started_at's first answer, without the call
    else:
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
        f.error_code = _error_code(transport)
        f.status = "failed"
    if http is not None and http >= 400:
        f.status = "failed"
        if not f.error:
            f.error = f"HTTP {http}"
        if type(body) is dict and type(body.get("error")) is dict and not f.error_code:
            f.error_code = _error_code(body["error"])
    headers = g("headers")
    if type(headers) is dict:
        _headers_into(f, headers)
    _unheld_into(f, record, body)
    return f


def _unheld_into(f: ResponseFacts, record: dict[str, Any], body: Any) -> None:
    """Mark a response whose output, as replay fidelity rebuilds it (`response_body`),
    holds a compaction or bare reasoning item (capture/items.py). The common record, a body
    with its output, was read above: its item kinds answer without a walk."""
    if (type(body) is dict and record.get("body") is body and "choices" not in body
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
        _extra(f)[UNHELD_ITEMS] = True


def _headers_into(f: ResponseFacts, headers: dict[str, Any]) -> None:
    """x-request-id and openai-processing-ms, where the recorder kept them."""
    low = {str(k).lower(): v for k, v in headers.items()}
    rid = low.get("x-request-id")
    ms = low.get("openai-processing-ms")
    if isinstance(rid, str) and rid:
        _extra(f)["request_id"] = redact_text(rid)[:100]
    if isinstance(ms, str | int | float) and not isinstance(ms, bool):
        try:
            _extra(f)["processing_ms"] = int(float(ms))
        except (ValueError, OverflowError):
            pass
