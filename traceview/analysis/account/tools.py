"""Components of the tool definitions and the response-format schema of a request.

Function tools are billed as their TypeScript rendering (render.py) plus framing. A hosted
tool's definition is billed too, but its text is the provider's own: where real captures
pin its size (HOSTED_DEFINITION, with the captures named in docs/input-account.md) it is
estimated from that, else it is unknown.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from traceview.analysis.account.context import Context
from traceview.analysis.account.model import ESTIMATED, Component, unknown
from traceview.analysis.account.render import (
    TOOLS_FOOTER,
    TOOLS_HEADER,
    function_text,
    json_text,
    schema_text,
)

# (hosted tool type, model family) -> billed definition tokens, measured on real captures
# where the tool was offered and not called (docs/input-account.md). Absent: unknown.
HOSTED_DEFINITION: dict[tuple[str, str], int] = {
    ("image_generation", "gpt-5"): 342,
    ("code_interpreter", "gpt-5"): 613,
}
_FUNCTION_LIKE = frozenset({"function", "custom"})
# The name of the `tools` line that holds the functions' namespace wrapper.
NAMESPACE = "functions namespace"


def tool_components(ctx: Context, tools: Sequence[object]) -> Iterator[Component]:
    """One component per tool, plus the namespace wrapper when function tools are offered."""
    functions = [t for t in tools if isinstance(t, Mapping) and _is_function(t)]
    if functions:
        yield ctx.counted("tools", NAMESPACE, TOOLS_HEADER + TOOLS_FOOTER,
                          ctx.framing.tools_block)
    for tool in tools:
        if not isinstance(tool, Mapping):
            yield unknown("tools", "?", "not an object")
        elif _is_function(tool):
            yield _function(ctx, tool)
        else:
            yield _hosted(ctx, tool)


def _is_function(tool: Mapping[str, Any]) -> bool:
    kind = tool.get("type")
    return (isinstance(kind, str) and kind in _FUNCTION_LIKE) or isinstance(
        tool.get("function"), Mapping)


def _function(ctx: Context, tool: Mapping[str, Any]) -> Component:
    spec = tool.get("function") if isinstance(tool.get("function"), Mapping) else tool
    assert isinstance(spec, Mapping)
    name = str(spec.get("name") or "")
    description = spec.get("description")
    params = spec.get("parameters")
    if tool.get("type") == "custom":
        params = None  # a freeform tool takes one string; its grammar is counted below
    text = function_text(name, description if isinstance(description, str) else None, params)
    fmt = spec.get("format")
    if isinstance(fmt, Mapping) and fmt.get("type") == "grammar":
        text += json_text(fmt.get("definition"))
    return ctx.counted("tools", name, text, ctx.framing.tool)


def _hosted(ctx: Context, tool: Mapping[str, Any]) -> Component:
    kind = str(tool.get("type") or "?")
    if kind == "mcp":
        label = str(tool.get("server_label") or "mcp")
        return unknown("tools", f"mcp:{label}", "MCP tool list is fetched by the provider;"
                       " billed as an mcp_list_tools item when it is in the input")
    tokens = HOSTED_DEFINITION.get((kind, ctx.framing.family))
    if tokens is None:
        return unknown("tools", kind, f"hosted tool {kind!r}: billed definition not published"
                       f" and not measured on a real {ctx.framing.family} capture")
    return Component("tools", kind, tokens, ESTIMATED,
                     "hosted tool definition, measured on real captures")


def response_format_components(ctx: Context, fmt: object) -> Iterator[Component]:
    """The structured-output schema (Responses `text.format`, chat `response_format`)."""
    if not isinstance(fmt, Mapping) or fmt.get("type") != "json_schema":
        return
    spec = fmt.get("json_schema") if isinstance(fmt.get("json_schema"), Mapping) else fmt
    assert isinstance(spec, Mapping)
    name = str(spec.get("name") or "response")
    schema = spec.get("schema", spec.get("schema_"))
    yield ctx.counted("response_format", name, schema_text(name, schema),
                      ctx.framing.response_format)
