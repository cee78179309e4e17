"""Components of the input items of a Responses request (and the messages of a chat one).

Each item is counted as the model is shown it: a message is its text parts plus message
framing; a function call is its name and arguments plus call framing; its output the
output text plus output framing. Media parts become their own components. Items whose
content lives on the provider's side (references by id, resent reasoning, compaction
summaries) are unknown unless an earlier turn of the capture says how many tokens they were.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from traceview.analysis.account.context import Context
from traceview.analysis.account.hosted import call_query
from traceview.analysis.account.media import data_url_size, image_tokens
from traceview.analysis.account.model import ESTIMATED, KNOWN, Component, unknown
from traceview.analysis.account.sized import sized
from traceview.wire import TEXT_PART_TYPES

_TEXT_PARTS = TEXT_PART_TYPES | {"refusal"}
_IMAGE_PARTS = frozenset({"input_image", "image_url", "computer_screenshot"})
_FILE_PARTS = frozenset({"input_file", "file"})
_AUDIO_PARTS = frozenset({"input_audio"})
_CALLS = frozenset({"function_call", "custom_tool_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
# An answer to a computer call: a screenshot, billed as an image.
_SCREEN_OUTPUT = "computer_call_output"
_DROPPED = ("reasoning from before the last user message is dropped from the model's context"
            " (unless reasoning.context is \"all_turns\"): not billed")
_COMPACTED = "replaced by the compaction item later in the input: not billed"
_ON_PROVIDER = {
    "item_reference": "item given by id: its content is on the provider's side",
    "compaction": "compaction item: its summary is encrypted, its tokens are not in the request",
    "image_generation_call": "a generated image resent as input: billed as an image whose"
                             " token rule for generated images is not published",
    "reasoning": "resent reasoning: billed as the reasoning tokens of the turn that produced it,"
                 " which this capture does not hold",
    # Rendered as a request's tools these bill 74-110 tokens more, varying by model and
    # turn on the real captures (docs/input-account.md): no constant, so not sized.
    "additional_tools": "tools added mid-conversation: billed with a provider preamble of"
                        " its own beyond their rendering, not sized",
}


def input_components(ctx: Context, items: Sequence[object]) -> list[Component]:
    """Every input item of a Responses request, in order."""
    names, last_user, compacted = _scan(items)
    lines: list[Component] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            lines.append(unknown("item", f"#{index}", "not an object"))
            continue
        kind = item.get("type")
        if index < compacted:
            lines.append(Component(str(kind or "message"), _label(item), 0,
                                   ESTIMATED, reason=_COMPACTED))
        elif kind == "reasoning" and index < last_user and not ctx.keep_reasoning:
            lines.append(Component("reasoning", str(item.get("id") or ""), 0, ESTIMATED,
                                   reason=_DROPPED))
        else:
            lines += _item(ctx, item, kind, names)
    return lines


def _scan(items: Sequence[object]) -> tuple[dict[str, str], int, int]:
    """In one pass: call_id -> tool name (an output is rendered under its function's name),
    and the indexes of the last user message and of the last compaction item (-1: none)."""
    names: dict[str, str] = {}
    last_user = compacted = -1
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if isinstance(kind, str):
            if kind == "compaction":
                compacted = index
            elif kind in _CALLS:
                names[str(item.get("call_id"))] = str(item.get("name") or "")
        if item.get("role") == "user":
            last_user = index
    return names, last_user, compacted


def _type(item: Mapping[str, Any]) -> str | None:
    """An item's or part's type when it is a string (a capture may hold anything)."""
    kind = item.get("type")
    return kind if isinstance(kind, str) else None


def _label(item: Mapping[str, Any]) -> str:
    return str(item.get("role") or item.get("id") or item.get("name") or "")


def _item(ctx: Context, item: Mapping[str, Any], kind: object,
          names: Mapping[str, str]) -> list[Component]:
    """An item's lines by its type (`kind`: its "type" as sent)."""
    if kind is not None and not isinstance(kind, str):
        return [unknown("item", "?", "an item whose type is not a string")]
    if kind in (None, "message") and "role" in item:
        return message_components(ctx, item)
    if kind in _CALLS:
        name = str(item.get("name") or "")
        text = name + _text(item.get("arguments", item.get("input", "")))
        return [ctx.counted(str(kind), name, text, ctx.framing.call)]
    if kind in _OUTPUTS:
        # The tool's name is shown with its output; when the call is not in this request
        # (a hosted turn answering the previous response's call) the name is not known
        # here, and the call id, which the model is not shown, only labels the line.
        name = names.get(str(item.get("call_id")), "")
        return _output(ctx, str(kind), name, item.get("output"),
                       name or str(item.get("call_id") or ""))
    if kind == _SCREEN_OUTPUT:
        call = str(item.get("call_id") or "")
        shot = item.get("output")
        return [ctx.counted(kind, call, "", ctx.framing.call_output),
                *([_media(ctx, kind, 0, shot)] if isinstance(shot, dict) else [])]
    if isinstance(kind, str) and kind in _ON_PROVIDER:
        return [_by_id(ctx, kind, item)]
    if isinstance(kind, str):
        return [_other(ctx, kind, item)]
    return [unknown("item", "?", "an item without a type or a role")]


def message_components(ctx: Context, msg: Mapping[str, Any]) -> list[Component]:
    """A message: its text (with framing) first, then each media part on its own line."""
    role = msg.get("role") or "user"
    if not isinstance(role, str):
        role = str(role)
    content = msg.get("content")
    name = msg.get("name")
    framing = ctx.framing.message + (ctx.framing.name if name else 0)
    name_text = str(name) if name else ""
    if content is None or isinstance(content, str):
        return [ctx.counted("message", role, name_text + (content or ""), framing)]
    if not isinstance(content, list):  # not the wire's shape
        return [unknown("message", role, f"content is a {type(content).__name__}, not text"
                                         " or a list of parts")]
    texts = [p if isinstance(p, str) else _part_text(p) for p in content]
    return [ctx.counted("message", role, name_text + "".join(t for t in texts if t), framing),
            *(_media(ctx, role, index, part) for index, part in enumerate(content)
              if isinstance(part, dict) and _part_text(part) is None)]


def _part_text(part: object) -> str | None:
    if not isinstance(part, dict) or _type(part) not in _TEXT_PARTS:
        return None
    text = part.get("text", part.get("refusal"))
    return text if isinstance(text, str) else ""


def _media(ctx: Context, role: str, index: int, part: Mapping[str, Any]) -> Component:
    kind = str(part.get("type") or "?")
    name = f"{role} #{index} {kind}"
    if kind in _IMAGE_PARTS:
        url = part.get("image_url")
        detail = part.get("detail")
        if isinstance(url, dict):  # chat shape: {"image_url": {"url", "detail"}}
            detail = url.get("detail", detail)
            url = url.get("url")
        size = data_url_size(url) if isinstance(url, str) else None
        tokens, rule = image_tokens(ctx.model, detail if isinstance(detail, str) else None, size)
        if tokens is None:
            return sized(ctx, unknown("image", name, rule), part)
        return Component("image", name, tokens, ESTIMATED, reason=rule)
    if kind in _FILE_PARTS:
        line = unknown("file", name, "file content (PDF, document) is not sized by the capture")
    elif kind in _AUDIO_PARTS:
        line = unknown("audio", name, "audio input tokens depend on its duration")
    else:
        line = unknown("part", name, f"unfamiliar content part {kind!r}")
    return sized(ctx, line, part)


def _output(ctx: Context, kind: str, name: str, output: object,
            label: str) -> list[Component]:
    if not isinstance(output, list):
        return [ctx.counted(kind, label, name + _text(output), ctx.framing.call_output)]
    texts = [_part_text(p) for p in output]
    return [ctx.counted(kind, label, name + "".join(t for t in texts if t),
                        ctx.framing.call_output),
            *(_media(ctx, kind, index, part) for index, part in enumerate(output)
              if isinstance(part, dict) and _part_text(part) is None)]


def _by_id(ctx: Context, kind: str, item: Mapping[str, Any]) -> Component:
    item_id = str(item.get("id") or "")
    found = ctx.item_tokens.get(item_id)
    if found is not None:
        tokens, turn = found
        if kind == "reasoning" and _in_steps(ctx.model, tokens):
            return Component(kind, item_id, tokens + _STEP // 2, ESTIMATED, turn, _STEPPED)
        return Component(kind, item_id, tokens, KNOWN, turn, "tokens of the turn that produced it")
    line = unknown(kind, item_id, _ON_PROVIDER[kind])
    return sized(ctx, line, item) if kind == "additional_tools" else line


# gpt-5 (2025-08) and the o-series report reasoning tokens floored to 64-token steps; the
# resent item bills 0-63 more on every real turn found (docs/input-account.md).
_STEP = 64
_STEPPED = ("the producing turn reported its reasoning in 64-token steps: the item bills"
            " 0-63 tokens more; counted at the step's middle")


def _in_steps(model: str | None, tokens: int) -> bool:
    name = (model or "").lower().rsplit("/", 1)[-1]
    return tokens % _STEP == 0 and (name == "gpt-5" or name.startswith(
        ("gpt-5-", "o1", "o3", "o4")))


def _other(ctx: Context, kind: str, item: Mapping[str, Any]) -> Component:
    """A hosted call or another item resent as input: its query plus the framing measured
    on real captures where there is one (hosted.py), else its fields as compact JSON;
    estimated either way."""
    measured = call_query(kind, item, ctx.model)
    if measured is not None:
        query, framing = measured
        return Component(kind, str(item.get("id") or kind), ctx.count(query) + framing,
                         ESTIMATED, reason=f"its query + {framing}, measured on real"
                                           " captures of this model")
    body = {k: v for k, v in item.items() if k not in ("id", "status", "type")}
    text = kind + _text(body)
    tokens = ctx.count(text) + ctx.framing.call
    return Component(kind, str(item.get("id") or kind), tokens, ESTIMATED,
                     reason="rendered as its JSON fields; the provider's rendering is not"
                            " published")


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return ""
