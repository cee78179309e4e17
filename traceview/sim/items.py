"""Items as the provider stores them, and as it shows them depending on ``include``."""

from __future__ import annotations

import copy
from typing import Any

from traceview.sim.state import SimError, SimState
from traceview.wire import INCLUDABLE

ID_PREFIX = {
    "message": "msg",
    "function_call": "fc",
    "function_call_output": "fco",
    "file_search_call": "fs",
    "web_search_call": "ws",
    "compaction": "cmp",
    "reasoning": "rs",
    "custom_tool_call_output": "ctco",
}


def check_include(include: Any) -> list[str]:
    if include is None:
        return []
    if not isinstance(include, list) or not all(isinstance(v, str) for v in include):
        raise SimError(400, "Invalid type for 'include': expected an array of strings.",
                       param="include", code="invalid_type")
    for value in include:
        if value not in INCLUDABLE:
            raise SimError(
                400,
                f"Invalid value: '{value}'. Supported values are: "
                + ", ".join(f"'{v}'" for v in sorted(INCLUDABLE)) + ".",
                param="include",
                code="invalid_value",
            )
    return include


def _parts(role: str, content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        content = [{"type": "input_text", "text": content}]
    if not isinstance(content, list):
        raise SimError(400, "Invalid 'input': message content must be a string or an array.",
                       param="input")
    parts = []
    for part in content:
        if not isinstance(part, dict):
            raise SimError(400, "Invalid 'input': content parts must be objects.", param="input")
        part = dict(part)
        if role == "assistant" and part.get("type") in ("input_text", "output_text", None):
            part = {"type": "output_text", "annotations": part.get("annotations", []),
                    "logprobs": part.get("logprobs", []), "text": part.get("text", "")}
        parts.append(part)
    return parts


def normalize_input(state: SimState, raw: Any) -> tuple[list[dict[str, Any]], bool]:
    """Request ``input`` → stored items with fresh ids; also whether a compaction was asked."""
    if raw is None:
        return [], False
    if isinstance(raw, str):
        raw = [{"role": "user", "content": raw}]
    if not isinstance(raw, list):
        raise SimError(400, "Invalid type for 'input': expected a string or an array.",
                       param="input", code="invalid_type")
    items: list[dict[str, Any]] = []
    trigger = False
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise SimError(400, f"Invalid 'input[{index}]': expected an object.",
                           param=f"input[{index}]")
        kind = entry.get("type")
        if kind == "compaction_trigger":
            trigger = True
            continue
        if kind == "item_reference" or (kind is None and "id" in entry and "role" not in entry):
            found = state.find_item(str(entry.get("id")))
            if found is None:
                raise SimError(404, f"Item with id '{entry.get('id')}' not found.",
                               param=f"input[{index}]")
            items.append(copy.deepcopy(found))
            continue
        if kind in (None, "message"):
            role = entry.get("role", "user")
            item = {"id": state.ids.new("msg"), "type": "message", "status": "completed",
                    "content": _parts(role, entry.get("content", "")), "role": role}
        else:
            item = copy.deepcopy(entry)
            item["id"] = item.get("id") or state.ids.new(ID_PREFIX.get(kind, "item"))
        items.append(item)
    return items, trigger


def render(item: dict[str, Any], include: list[str] | set[str]) -> dict[str, Any]:
    """An item as the provider shows it: include-gated fields null unless asked for."""
    kind = item.get("type")
    if kind == "file_search_call" and "file_search_call.results" not in include:
        return {**item, "results": None}
    if kind == "web_search_call" and "web_search_call.action.sources" not in include:
        action = {k: v for k, v in (item.get("action") or {}).items() if k != "sources"}
        return {**item, "action": action}
    return item


def user_text(items: list[dict[str, Any]]) -> str:
    """Text of the last user message among ``items`` (what the canned model answers)."""
    for item in reversed(items):
        if item.get("type") == "message" and item.get("role") == "user":
            return " ".join(
                p.get("text", "") for p in item.get("content") or [] if isinstance(p, dict)
            )
    return ""
