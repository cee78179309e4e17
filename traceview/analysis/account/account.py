"""account(): one request's billed input, itemised.

A pure function of the request body (and, optionally, the response that answered it and
what earlier turns produced): no I/O beyond loading the tokeniser's vocabulary once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from operator import itemgetter
from types import MappingProxyType
from typing import Any, NamedTuple

from traceview.analysis.account.context import Context, ItemTokens
from traceview.analysis.account.framing import CHAT, RESPONSES, framing_for
from traceview.analysis.account.items import input_components, message_components
from traceview.analysis.account.model import (
    ESTIMATED,
    KNOWN,
    UNKNOWN,
    Basis,
    Component,
    InputAccount,
    unknown,
)
from traceview.analysis.account.tokens import counter_for
from traceview.analysis.account.tools import response_format_components, tool_components
from traceview.wire import HOSTED_CALL_TYPES

_HOSTED_PASS = ("ran during the turn: its results and the model's further pass over them are"
                " billed as input, and neither is in the request")


class RequestFacts(NamedTuple):
    """The few facts of a request the response's lines are judged by."""

    model: str
    encoding: str
    family: str
    chat: bool  # the body holds chat messages
    mode: str | None  # the request's reasoning mode
    tools: str  # the tools it sends: "" none, "strict" strict function tools only, "other"
    media: bool  # an input line is an image, a file, audio or an unfamiliar part


class RequestPart(NamedTuple):
    """What the request alone decides: its lines (framing first) and its facts. Made where
    the request is read (a worker, for a large capture); `completed` adds the response's
    lines."""

    components: tuple[Component, ...]
    facts: RequestFacts


def account(request_body: Mapping[str, Any], model: str | None = None,
            endpoint: str = "POST /v1/responses", *,
            response_body: Mapping[str, Any] | None = None,
            item_tokens: ItemTokens | None = None) -> InputAccount:
    """Itemise what the provider billed as input for one request.

    `model` defaults to the request's; `response_body` adds the hosted calls that ran inside
    the turn; `item_tokens` gives resent reasoning/compaction items their producing turn's
    tokens (item id -> (tokens, turn)). The bodies are read as JSON decodes them: objects
    are dicts.
    """
    body = dict(request_body) if isinstance(request_body, Mapping) else {}
    response = dict(response_body) if isinstance(response_body, Mapping) else None
    name = model or _str(body.get("model")) or _str((response or {}).get("model"))
    return completed(request_part(body, name, endpoint, item_tokens), response)


def request_part(body: Mapping[str, Any], name: str, endpoint: str,
                 item_tokens: ItemTokens | None = None) -> RequestPart:
    """The request's own lines, in model `name`'s encoding and framing."""
    return RequestPart(*request_lines(body, name, endpoint, item_tokens))


def request_lines(body: Mapping[str, Any], name: str, endpoint: str,
                  item_tokens: ItemTokens | None = None
                  ) -> tuple[tuple[Component, ...], RequestFacts]:
    """`request_part` as a plain pair (a worker makes one for each request it reads)."""
    chat = "chat/completions" in endpoint or "messages" in body
    reasoning = body.get("reasoning")
    keep = isinstance(reasoning, dict) and reasoning.get("context") == "all_turns"
    ctx = _context(name, CHAT if chat else RESPONSES, keep, item_tokens)
    parts = _chat(ctx, body) if chat else _responses(ctx, body)
    framing = ctx.framing
    components = (_framing_line(framing.request, ctx.basis), *parts)
    mode = reasoning.get("mode") if isinstance(reasoning, dict) else None
    media = not _MEDIA.isdisjoint(map(_KIND, parts))
    return components, _facts(
        name, ctx.counter.encoding, framing.family, "messages" in body,
        mode if isinstance(mode, str) else None, _tool_kind(body.get("tools")), media)


# Requests repeat their facts: each distinct one is made once and shared.
_facts = lru_cache(maxsize=256)(RequestFacts)


_NO_ITEMS: ItemTokens = MappingProxyType({})
# Contexts made, by (model, API, whether reasoning is kept); emptied past this many.
_CONTEXTS: dict[tuple[str, str, bool], Context] = {}
_CONTEXTS_SIZE = 256


def _context(name: str, api: str, keep: bool, item_tokens: ItemTokens | None) -> Context:
    """The context a request of model `name` on `api` is itemised in. It is the same for
    every such request given the same `item_tokens` object (a worker's chunk is itemised
    with one: rules/account_workers.py; none is an empty one), so it is made once for
    them, not once a request."""
    items = _NO_ITEMS if item_tokens is None else item_tokens
    key = (name, api, keep)
    ctx = _CONTEXTS.get(key)
    if ctx is None or ctx.item_tokens is not items:
        counter, framing = counter_for(name), framing_for(name, api)
        ctx = Context(name, api, counter, framing,
                      KNOWN if counter.exact and framing.calibrated else ESTIMATED, items, keep)
        if len(_CONTEXTS) >= _CONTEXTS_SIZE:
            _CONTEXTS.clear()
        _CONTEXTS[key] = ctx
    return ctx


def _tool_kind(tools: object) -> str:
    """Which tools a request sends, as the early preamble depends on them."""
    if not tools:
        return ""
    if not isinstance(tools, list):
        return "other"
    for t in tools:
        if not (isinstance(t, dict) and t.get("type") == "function" and t.get("strict") is True):
            return "other"
    return "strict"


@lru_cache(maxsize=64)
def _framing_line(tokens: int, basis: Basis) -> Component:
    return Component("request", "framing", tokens, basis,
                     reason="reply priming and request framing, fitted")


def completed(part: RequestPart, response_body: Mapping[str, Any] | None) -> InputAccount:
    """The request's lines and the response's: hosted passes and provider-side input."""
    facts = part.facts
    response = response_body if isinstance(response_body, dict) else {}
    output = response.get("output")
    types = [o["type"] for o in output if isinstance(o, dict)
             and isinstance(o.get("type"), str)] if isinstance(output, list) else []
    lines = response_components(facts, types, response.get("created_at"))
    return InputAccount((*part.components, *lines), facts.model, facts.encoding, facts.family)


def response_components(facts: RequestFacts, output_types: Iterable[str],
                        created: object) -> list[Component]:
    """The lines the response adds to a request's (the hosted calls among its output item
    types, its creation time), and what the constants do not cover. Each is a shared line:
    the same few recur on every turn that has them."""
    kinds = sorted({kind for kind in output_types if kind in HOSTED_CALL_TYPES})
    lines = [_hosted_pass(kind) for kind in kinds]
    lines += _outside_calibration(facts)
    if not facts.chat and preamble_era(created):
        lines.append(_preamble(facts.tools, facts.model, facts.media))
    return lines


def preamble_era(created: object) -> bool:
    """Whether a response created at `created` (seconds) carries the provider preamble:
    all `response_components` reads of its creation time."""
    return isinstance(created, (int, float)) and 0 < created < _PREAMBLE_UNTIL


def _responses(ctx: Context, body: Mapping[str, Any]) -> list[Component]:
    lines = _carried(body)
    items = body.get("input")
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        lines.append(ctx.counted("instructions", "instructions", instructions,
                                 ctx.framing.message))
    elif isinstance(instructions, list):
        lines += input_components(ctx, instructions)
    tools = body.get("tools")
    if isinstance(tools, list):
        lines += tool_components(ctx, tools, items)
    text = body.get("text")
    if isinstance(text, dict):
        lines += response_format_components(ctx, text.get("format"))
    prompt = body.get("prompt")
    if isinstance(prompt, dict):
        lines += _prompt(ctx, prompt)
    if isinstance(items, str):
        lines += message_components(ctx, {"role": "user", "content": items})
    elif isinstance(items, list):
        lines += input_components(ctx, items)
    return lines


_CARRIED = {key: f"the conversation carried by {key} is on the provider's side: sized by"
            " difference from the previous turn" for key in ("previous_response_id",
                                                             "conversation")}


def _carried(body: Mapping[str, Any]) -> list[Component]:
    """Hosted state: the earlier conversation is billed but not in the request."""
    lines = []
    for key, reason in _CARRIED.items():
        handle = body.get(key)
        if not handle:
            continue
        if isinstance(handle, dict):
            handle = handle.get("id")
        if isinstance(handle, str) and handle:
            lines.append(_carried_line("carried", handle, None, UNKNOWN, None, reason))
    return lines


# A conversation's turns repeat its handle: each carried line is made once and shared.
_carried_line = lru_cache(maxsize=256)(Component)


def _prompt(ctx: Context, prompt: Mapping[str, Any]) -> list[Component]:
    """A reusable prompt: its stored text is unknown; its variables are counted."""
    pid = _str(prompt.get("id")) or "prompt"
    version = _str(prompt.get("version"))
    lines = [unknown("prompt", f"{pid}@{version}" if version else pid,
                     "reusable prompt stored by the provider: its text is not in the request")]
    variables = prompt.get("variables")
    if not isinstance(variables, dict):
        return lines
    for key, value in variables.items():
        if isinstance(value, str):
            lines.append(ctx.counted("prompt_variable", str(key), value, 0))
        else:
            lines += message_components(ctx, {"role": f"variable {key}", "content": [value]})
    return lines


def _chat(ctx: Context, body: Mapping[str, Any]) -> list[Component]:
    tools = body.get("tools")
    if not isinstance(tools, list) and isinstance(body.get("functions"), list):
        tools = [{"type": "function", "function": f} for f in body["functions"]]
    lines = tool_components(ctx, tools) if isinstance(tools, list) else []
    lines += response_format_components(ctx, body.get("response_format"))
    messages = body.get("messages")
    if not isinstance(messages, list):
        return lines
    names: dict[str, str] = {}
    for index, msg in enumerate(messages):
        if isinstance(msg, dict):
            lines += _chat_message(ctx, msg, names)
        else:
            lines.append(unknown("message", f"#{index}", "not an object"))
    return lines


def _chat_message(ctx: Context, msg: Mapping[str, Any],
                  names: dict[str, str]) -> list[Component]:
    if msg.get("role") in ("tool", "function"):
        call = _str(msg.get("tool_call_id"))
        name = names.get(call, "") or _str(msg.get("name")) or call
        return [ctx.counted("function_call_output", name, _text_of(msg.get("content")),
                            ctx.framing.call_output)]
    calls = [c for c in msg.get("tool_calls") or [] if isinstance(c, dict)]
    legacy = msg.get("function_call")
    if isinstance(legacy, dict):  # the pre-tools `functions` API
        calls.append({"id": "", "function": legacy})
    content = msg.get("content")
    lines = message_components(ctx, msg) if content or not calls else []
    items = []
    for tool_call in calls:
        spec = tool_call.get("function")
        fn: Mapping[str, Any] = spec if isinstance(spec, dict) else {}
        names[_str(tool_call.get("id"))] = _str(fn.get("name"))
        items.append({"type": "function_call", "call_id": tool_call.get("id"),
                      "name": fn.get("name"), "arguments": fn.get("arguments")})
    return lines + input_components(ctx, items)


@lru_cache(maxsize=64)
def _hosted_pass(kind: str) -> Component:
    return unknown("hosted_pass", kind, f"{kind} {_HOSTED_PASS}")


def _text_of(content: object) -> str:
    """A chat message's text: a string, or its text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] for p in content
                       if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


# Responses created before this (2025-04-01 UTC) carry a provider preamble that later ones
# do not (+18 tokens on gpt-4o without tools, about +200 with tools): not fitted.
_PREAMBLE_UNTIL = 1743465600


@lru_cache(maxsize=256)
def _outside_calibration(part: RequestFacts) -> tuple[Component, ...]:
    """Provider-side input that the request does not show and the constants do not cover
    (the model's own web search, a reasoning mode): the same for every request with these
    facts."""
    model = part.model
    lines = []
    if "search" in model.lower():
        lines.append(unknown("hosted_pass", "web_search", f"{model} searches the web on every"
                             f" request: {_HOSTED_PASS}"))
    mode = part.mode
    if mode is not None and mode not in ("", "default", "standard"):
        lines.append(unknown("reasoning_mode", mode, f"reasoning mode {mode!r} runs several"
                             " model passes whose input is billed and not in the request"))
    return tuple(lines)


# Measured on real gpt-4o Responses turns created before April 2025 (docs/input-account.md
# names them), by the tools the request sends: with text only and no tools three turns
# billed exactly 18 above the account; with strict function tools six turns of four
# captures billed 208-228 above it (median 216; first turns 216 and 217).
_PREAMBLE_TOKENS = {"": 18, "strict": 216}
_MEDIA = frozenset({"image", "file", "audio", "part"})
_KIND = itemgetter(0)  # a component's kind (Component.component), read in C


@lru_cache(maxsize=64)
def _preamble(tools: str, model: str, media: bool) -> Component:
    """The pre-April-2025 provider preamble: measured on gpt-4o with text only, without
    tools or with strict function tools; else unknown (with other tools, an image or on
    other models it was not measured consistently)."""
    name = model.lower()
    if name.startswith("gpt-4o") and "mini" not in name and tools in _PREAMBLE_TOKENS \
            and not media:
        seen = "with strict function tools" if tools else "without tools"
        return Component("preamble", "provider preamble", _PREAMBLE_TOKENS[tools], ESTIMATED,
                         reason="responses created before April 2025 carry a provider preamble:"
                         f" measured on real gpt-4o captures {seen}")
    return unknown("preamble", "provider preamble", "responses created before April 2025"
                   " carry a provider preamble, measured only on gpt-4o with text and no"
                   " tools or strict function tools (otherwise it varied by tens of tokens)")


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""
