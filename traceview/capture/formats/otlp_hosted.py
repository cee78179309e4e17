"""Hosted calls read back from OTLP: the `execute_tool` child spans of a model call.

traceview's own OTLP export (export/otlp.py) writes one such span per hosted call, with its
call id, status, queries and whether its evidence was captured; other instrumentations
write them for hosted tools too. Each becomes the output item the analysis reads, so a
capture read back from its export keeps its hosted calls and their evidence. A span says
whether results were captured, not what they were: captured results come back as one
placeholder, and the turn's origin says so.
"""

from __future__ import annotations

from typing import Any

from traceview.wire import HOSTED_CALL_TYPES

PLACEHOLDER = {"note": "captured in the original; an OTLP span does not carry the results"}
CANNOT_CARRY = "hosted call results (a span says whether they were captured, not what they were)"


def is_hosted_tool(attrs: dict[str, Any]) -> bool:
    """An `execute_tool` span of a hosted tool (not a function the application ran)."""
    if attrs.get("gen_ai.operation.name") != "execute_tool":
        return False
    if attrs.get("gen_ai.tool.type") == "function":
        return False
    return _call_type(attrs) is not None


def _call_type(attrs: dict[str, Any]) -> str | None:
    name = attrs.get("gen_ai.tool.name")
    if not isinstance(name, str):
        return None
    for t in (name, f"{name}_call"):
        if t in HOSTED_CALL_TYPES:
            return t
    return None


def _evidence(state: Any) -> Any:
    """The evidence field's value for a state: missing → None, empty → [], else captured."""
    if state == "missing":
        return None
    if state == "empty":
        return []
    return [PLACEHOLDER]


def hosted_item(attrs: dict[str, Any]) -> dict[str, Any]:
    """The output item a hosted-call span stands for."""
    t = _call_type(attrs) or "hosted"
    state = attrs.get("traceview.evidence", "captured")
    queries = [q for q in attrs.get("traceview.hosted.queries") or [] if isinstance(q, str)]
    item: dict[str, Any] = {"type": t, "id": attrs.get("gen_ai.tool.call.id"),
                            "status": attrs.get("traceview.hosted.status") or "completed"}
    if t == "file_search_call":
        item.update(queries=queries, results=_evidence(state))
    elif t == "web_search_call":
        item["action"] = {"type": "search", "query": queries[0] if queries else None,
                          "queries": queries, "sources": _evidence(state)}
    elif t == "code_interpreter_call":
        item["outputs"] = _evidence(state)
    elif t == "image_generation_call":
        item["result"] = None if state == "missing" else "(not carried by the span)"
    elif t == "mcp_call":
        item["output"] = None if state == "missing" else ("" if state == "empty" else "…")
    elif t == "mcp_list_tools":
        item["tools"] = _evidence(state)
    return item
