"""Components of the tool definitions and the response-format schema of a request.

Function tools are billed as their TypeScript rendering (render.py) plus framing. A hosted
tool's definition is billed too, but its text is the provider's own: where real captures
pin its size (hosted.py, with the captures named in docs/input-account.md) it is
estimated from that, else it is unknown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import orjson

from traceview.analysis.account.context import Context
from traceview.analysis.account.hosted import definition
from traceview.analysis.account.model import ESTIMATED, Component, unknown
from traceview.analysis.account.render import (
    TOOLS_FOOTER,
    TOOLS_HEADER,
    function_text,
    json_text,
    rendered,
    schema_text,
)
from traceview.analysis.account.sized import searched

_FUNCTION_LIKE = frozenset({"function", "custom"})
# The name of the `tools` line that holds the functions' namespace wrapper.
NAMESPACE = "functions namespace"


# Tools' lines made, by (model, API, the tools' JSON bytes), with the texts they count: a
# request sends its tools again on every turn. Emptied past this many.
_MADE: dict[tuple[str | None, str, bytes], tuple[tuple[Component, ...], tuple[str, ...]]] = {}
_MADE_SIZE = 256


def tool_components(ctx: Context, tools: Sequence[object],
                    items: object = None) -> list[Component]:
    """One component per tool, plus the namespace wrapper when function tools are offered.
    `items`: the request's input, which holds the tools a tool search has loaded. Made once
    per distinct tool list of a model and API (unless a tool search sizes a line from the
    input); a list made before has its texts counted again only to note them read
    (tokens.py `fresh`: a worker sends the counts its chunk read)."""
    try:
        key: tuple[str | None, str, bytes] | None = (ctx.model, ctx.api, orjson.dumps(tools))
    except TypeError:  # not JSON (a caller's own objects): made each time
        key = None
    made = _MADE.get(key) if key is not None else None
    if made is not None:
        for text in made[1]:
            ctx.count(text)
        return list(made[0])
    lines, texts, searching = _tool_lines(ctx, tools, items)
    if key is not None and not searching:
        if len(_MADE) >= _MADE_SIZE:
            _MADE.clear()
        _MADE[key] = (tuple(lines), tuple(texts))
    return lines


def _tool_lines(ctx: Context, tools: Sequence[object],
                items: object) -> tuple[list[Component], list[str], bool]:
    """The tools' lines, the texts counted for them, and whether a tool search's line
    was sized from the input (then the lines depend on more than the tools)."""
    lines = []
    texts = []
    searching = False
    for tool in tools:
        if not isinstance(tool, dict):
            lines.append(unknown("tools", "?", "not an object"))
        elif _is_function(tool):
            name, text = rendered("function", tool, _function_text)
            lines.append(ctx.counted("tools", name, text, ctx.framing.tool))
            texts.append(text)
        else:
            kind = str(tool.get("type") or "?")
            label = str(tool.get("server_label") or "mcp") if kind == "mcp" else ""
            line = _hosted(kind, label, definition(tool, ctx.model, ctx.framing.family),
                           ctx.framing.family)
            if kind == "tool_search":
                line = searched(ctx, line, tools, items)
                searching = True
            lines.append(line)
    if texts:
        lines.insert(0, ctx.counted("tools", NAMESPACE, _NAMESPACE, ctx.framing.tools_block))
        texts.append(_NAMESPACE)
    return lines, texts, searching


_NAMESPACE = TOOLS_HEADER + TOOLS_FOOTER


def _is_function(tool: Mapping[str, Any]) -> bool:
    kind = tool.get("type")
    return (isinstance(kind, str) and kind in _FUNCTION_LIKE) or isinstance(
        tool.get("function"), dict)


def _function_text(tool: dict[str, Any]) -> tuple[str, str]:
    """A function tool's name and the text the model is shown for it."""
    spec = tool.get("function") if isinstance(tool.get("function"), dict) else tool
    assert isinstance(spec, dict)
    name = str(spec.get("name") or "")
    description = spec.get("description")
    params = spec.get("parameters")
    if tool.get("type") == "custom":
        params = None  # a freeform tool takes one string; its grammar is counted below
    text = function_text(name, description if isinstance(description, str) else None, params)
    fmt = spec.get("format")
    if isinstance(fmt, dict) and fmt.get("type") == "grammar":
        text += json_text(fmt.get("definition"))
    return name, text


@lru_cache(maxsize=256)
def _hosted(kind: str, label: str, tokens: int | None, family: str) -> Component:
    """A hosted tool's line: the same on every request that offers it (a shared line)."""
    if kind == "mcp":
        return unknown("tools", f"mcp:{label}", "MCP tool list is fetched by the provider;"
                       " billed as an mcp_list_tools item when it is in the input")
    if tokens is None:
        return unknown("tools", kind, f"hosted tool {kind!r}: billed definition not published"
                       f" and not measured on a real {family} capture")
    return Component("tools", kind, tokens, ESTIMATED,
                     reason="hosted tool definition, measured on real captures")


def response_format_components(ctx: Context, fmt: object) -> list[Component]:
    """The structured-output schema (Responses `text.format`, chat `response_format`)."""
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return []
    spec = fmt.get("json_schema") if isinstance(fmt.get("json_schema"), dict) else fmt
    assert isinstance(spec, dict)
    name, text = rendered("response_format", spec, _schema_text)
    return [ctx.counted("response_format", name, text, ctx.framing.response_format)]


def _schema_text(spec: dict[str, Any]) -> tuple[str, str]:
    """A response format's name and the text the model is shown for its schema."""
    name = str(spec.get("name") or "response")
    return name, schema_text(name, spec.get("schema", spec.get("schema_")))
