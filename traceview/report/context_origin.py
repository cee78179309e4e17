"""Where each line of a turn's input account came from, for the context view and
`traceview context`: the request itself, the provider's stored state, history the
application sent again, the provider's own additions during the turn, or tool and schema
definitions (billed every turn, whatever else changes).

One rule, read by the headless command and the inspector alike: the inspector shows the
`origin` each line carries and the `origins` totals, it does not classify.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

ORIGINS = ("request", "tool_definitions", "resent", "stored", "hosted")

#: Held by the provider and named by the request: the carried conversation, a reusable
#: prompt, an item referenced by id.
_STORED = frozenset({"carried", "prompt", "item_reference"})
#: Added by the provider during the turn, in no request: hosted passes, the old preamble,
#: a multi-pass reasoning mode.
_HOSTED = frozenset({"hosted_pass", "preamble", "reasoning_mode"})
_DEFINITIONS = frozenset({"tools", "response_format"})
#: Items only a model produces: sent again, they are history, not new input.
_MODEL_ITEMS = frozenset({"function_call", "custom_tool_call", "reasoning", "compaction",
                          "web_search_call", "file_search_call", "code_interpreter_call",
                          "image_generation_call", "mcp_call", "mcp_list_tools",
                          "computer_call", "local_shell_call", "shell_call",
                          "tool_search_call"})


def origin_of(line: Mapping[str, Any]) -> str:
    """One of ORIGINS for an `input_account` line."""
    component = line.get("component")
    if component in _STORED:
        return "stored"
    if component in _HOSTED:
        return "hosted"
    if component in _DEFINITIONS:
        return "tool_definitions"
    if component in _MODEL_ITEMS or (component == "message" and line.get("name") == "assistant"):
        return "resent"
    return "request"


def with_origins(lines: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The lines, each with its `origin` (copies: the report's lines are left as they are)."""
    return [{**line, "origin": origin_of(line)} for line in lines]


def origin_totals(lines: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per origin present, in ORIGINS order: its lines, how many are unknown, the tokens of
    those with a count (`known_tokens`, a floor) and the origin's `tokens` (null when a
    line is unknown: never a guess)."""
    totals: dict[str, dict[str, Any]] = {}
    for line in lines:
        origin = str(line.get("origin") or origin_of(line))
        t = totals.setdefault(origin, {"origin": origin, "lines": 0, "unknown": 0,
                                       "known_tokens": 0})
        t["lines"] += 1
        if line.get("tokens") is None:
            t["unknown"] += 1
        else:
            t["known_tokens"] += int(line["tokens"])
    for t in totals.values():
        t["tokens"] = None if t["unknown"] else t["known_tokens"]
    return [totals[o] for o in ORIGINS if o in totals]
