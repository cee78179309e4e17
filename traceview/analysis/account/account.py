"""account(): one request's billed input, itemised.

A pure function of the request body (and, optionally, the response that answered it and
what earlier turns produced): no I/O beyond loading the tokeniser's vocabulary once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from traceview.analysis.account.context import Context, ItemTokens
from traceview.analysis.account.framing import CHAT, RESPONSES, framing_for
from traceview.analysis.account.items import input_components, message_components
from traceview.analysis.account.model import ESTIMATED, Component, InputAccount, unknown
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
    tools: bool  # the request sends tools
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
    tokens (item id -> (tokens, turn)).
    """
    body = request_body if isinstance(request_body, Mapping) else {}
    name = model or _str(body.get("model")) or _str((response_body or {}).get("model"))
    return completed(request_part(body, name, endpoint, item_tokens), response_body)


def request_part(body: Mapping[str, Any], name: str, endpoint: str,
                 item_tokens: ItemTokens | None = None) -> RequestPart:
    """The request's own lines, in model `name`'s encoding and framing."""
    chat = "chat/completions" in endpoint or "messages" in body
    framing = framing_for(name, CHAT if chat else RESPONSES)
    reasoning = body.get("reasoning")
    keep = isinstance(reasoning, Mapping) and reasoning.get("context") == "all_turns"
    ctx = Context(name, counter_for(name), framing,
                  item_tokens if item_tokens is not None else {}, keep)
    parts = list(_chat(ctx, body) if chat else _responses(ctx, body))
    components = (Component("request", "framing", ctx.framing.request, ctx.basis,
                            "reply priming and request framing, fitted"), *parts)
    mode = reasoning.get("mode") if isinstance(reasoning, Mapping) else None
    media = any(c.component in _MEDIA for c in parts)
    return RequestPart(components, RequestFacts(
        name, ctx.counter.encoding, ctx.framing.family, "messages" in body,
        mode if isinstance(mode, str) else None, bool(body.get("tools")), media))


def completed(part: RequestPart, response_body: Mapping[str, Any] | None) -> InputAccount:
    """The request's lines and the response's: hosted passes and provider-side input."""
    facts = part.facts
    return InputAccount((*part.components, *response_components(facts, response_body)),
                        facts.model, facts.encoding, facts.family)


def response_components(facts: RequestFacts,
                        response_body: Mapping[str, Any] | None) -> list[Component]:
    """The lines the response (and what the constants do not cover) adds to a request's."""
    return [*_hosted_passes(response_body), *_outside_calibration(facts, response_body)]


def _responses(ctx: Context, body: Mapping[str, Any]) -> Iterator[Component]:
    yield from _carried(body)
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        yield ctx.counted("instructions", "instructions", instructions, ctx.framing.message)
    elif isinstance(instructions, list):
        yield from input_components(ctx, instructions)
    tools = body.get("tools")
    if isinstance(tools, list):
        yield from tool_components(ctx, tools)
    text = body.get("text")
    if isinstance(text, Mapping):
        yield from response_format_components(ctx, text.get("format"))
    yield from _prompt(ctx, body.get("prompt"))
    items = body.get("input")
    if isinstance(items, str):
        yield from message_components(ctx, {"role": "user", "content": items})
    elif isinstance(items, list):
        yield from input_components(ctx, items)


def _carried(body: Mapping[str, Any]) -> Iterator[Component]:
    """Hosted state: the earlier conversation is billed but not in the request."""
    for key in ("previous_response_id", "conversation"):
        handle = body.get(key)
        if isinstance(handle, Mapping):
            handle = handle.get("id")
        if isinstance(handle, str) and handle:
            yield unknown("carried", handle, f"the conversation carried by {key} is on the"
                          " provider's side: sized by difference from the previous turn")


def _prompt(ctx: Context, prompt: object) -> Iterator[Component]:
    """A reusable prompt: its stored text is unknown; its variables are counted."""
    if not isinstance(prompt, Mapping):
        return
    pid = _str(prompt.get("id")) or "prompt"
    version = _str(prompt.get("version"))
    yield unknown("prompt", f"{pid}@{version}" if version else pid,
                  "reusable prompt stored by the provider: its text is not in the request")
    variables = prompt.get("variables")
    if not isinstance(variables, Mapping):
        return
    for key, value in variables.items():
        if isinstance(value, str):
            yield ctx.counted("prompt_variable", str(key), value, 0)
        else:
            yield from message_components(ctx, {"role": f"variable {key}", "content": [value]})


def _chat(ctx: Context, body: Mapping[str, Any]) -> Iterator[Component]:
    tools = body.get("tools")
    if not isinstance(tools, list) and isinstance(body.get("functions"), list):
        tools = [{"type": "function", "function": f} for f in body["functions"]]
    if isinstance(tools, list):
        yield from tool_components(ctx, tools)
    yield from response_format_components(ctx, body.get("response_format"))
    messages = body.get("messages")
    if not isinstance(messages, list):
        return
    names: dict[str, str] = {}
    for index, msg in enumerate(messages):
        if not isinstance(msg, Mapping):
            yield unknown("message", f"#{index}", "not an object")
            continue
        yield from _chat_message(ctx, msg, names)


def _chat_message(ctx: Context, msg: Mapping[str, Any],
                  names: dict[str, str]) -> Iterator[Component]:
    if msg.get("role") in ("tool", "function"):
        call = _str(msg.get("tool_call_id"))
        name = names.get(call, "") or _str(msg.get("name")) or call
        yield ctx.counted("function_call_output", name, _text_of(msg.get("content")),
                          ctx.framing.call_output)
        return
    calls = [c for c in msg.get("tool_calls") or [] if isinstance(c, Mapping)]
    legacy = msg.get("function_call")
    if isinstance(legacy, Mapping):  # the pre-tools `functions` API
        calls.append({"id": "", "function": legacy})
    content = msg.get("content")
    if content or not calls:
        yield from message_components(ctx, msg)
    items = []
    for tool_call in calls:
        spec = tool_call.get("function")
        fn: Mapping[str, Any] = spec if isinstance(spec, Mapping) else {}
        names[_str(tool_call.get("id"))] = _str(fn.get("name"))
        items.append({"type": "function_call", "call_id": tool_call.get("id"),
                      "name": fn.get("name"), "arguments": fn.get("arguments")})
    yield from input_components(ctx, items)


def _hosted_passes(response: Mapping[str, Any] | None) -> Iterator[Component]:
    output = response.get("output") if isinstance(response, Mapping) else None
    if not isinstance(output, list):
        return
    kinds = sorted({str(o.get("type")) for o in output
                    if isinstance(o, Mapping) and isinstance(o.get("type"), str)
                    and o["type"] in HOSTED_CALL_TYPES})
    for kind in kinds:
        yield unknown("hosted_pass", kind, f"{kind} {_HOSTED_PASS}")


def _text_of(content: object) -> str:
    """A chat message's text: a string, or its text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] for p in content
                       if isinstance(p, Mapping) and isinstance(p.get("text"), str))
    return ""


# Responses created before this (2025-04-01 UTC) carry a provider preamble that later ones
# do not (+18 tokens on gpt-4o without tools, about +200 with tools): not fitted.
_PREAMBLE_UNTIL = 1743465600


def _outside_calibration(part: RequestFacts,
                         response: Mapping[str, Any] | None) -> Iterator[Component]:
    """Provider-side input that the request does not show and the constants do not cover."""
    model = part.model
    if "search" in model.lower():
        yield unknown("hosted_pass", "web_search", f"{model} searches the web on every"
                      f" request: {_HOSTED_PASS}")
    mode = part.mode
    if mode is not None and mode not in ("", "default", "standard"):
        yield unknown("reasoning_mode", mode, f"reasoning mode {mode!r} runs several model"
                      " passes whose input is billed and not in the request")
    created = response.get("created_at") if isinstance(response, Mapping) else None
    if not part.chat and isinstance(created, int | float) \
            and 0 < created < _PREAMBLE_UNTIL:
        yield _preamble(part.tools, model, part.media)


# Measured on three real gpt-4o Responses turns with text only and no tools created before
# April 2025 (docs/input-account.md names them): each billed exactly this much above the
# account.
_PREAMBLE_TOKENS = 18
_MEDIA = frozenset({"image", "file", "audio", "part"})


def _preamble(tools: bool, model: str, media: bool) -> Component:
    """The pre-April-2025 provider preamble: measured on gpt-4o with text only and no
    tools, else unknown (with tools or an image it was 208 to 230 tokens and varied)."""
    name = model.lower()
    if name.startswith("gpt-4o") and "mini" not in name and not tools \
            and not media:
        return Component("preamble", "provider preamble", _PREAMBLE_TOKENS, ESTIMATED,
                         "responses created before April 2025 carry a provider preamble:"
                         " measured on real gpt-4o captures without tools")
    return unknown("preamble", "provider preamble", "responses created before April 2025"
                   " carry a provider preamble, measured only on gpt-4o with text and no"
                   " tools (with tools or media it varied by tens of tokens)")


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""
