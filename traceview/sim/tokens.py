"""Deterministic token counting for the simulator.

No tokenizer is involved; the rule is simple enough to compute by hand and stable
across versions, which is what tests and checked-in samples need:

* a text costs ``ceil(utf-8 bytes / 4)`` tokens;
* every stored item costs ``ITEM_OVERHEAD`` on top of its texts;
* a request costs ``PRIMING`` + its instructions + its tool definitions + every item of
  the context the provider renders (the whole stored conversation or chain, plus the
  new input);
* a hosted tool's definition costs a fixed amount, standing in for the tool prompt the
  provider injects (real captures show a ``file_search`` turn billing ~1,150 input tokens
  for a one-line question).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

PRIMING = 3
ITEM_OVERHEAD = 4
RESULT_OVERHEAD = 4
HOSTED_TOOL_TOKENS = {"file_search": 1_069, "web_search": 420, "web_search_preview": 420}
FUNCTION_TOOL_OVERHEAD = 8
# Prompt-cache reads: the prefix shared with the previous request of the same
# conversation or chain, in blocks of CACHE_BLOCK, once it reaches CACHE_MIN tokens.
CACHE_MIN = 1_024
CACHE_BLOCK = 128

_NOT_TEXT_KEYS = frozenset(
    {"id", "type", "status", "role", "call_id", "file_id", "vector_store_id", "score", "phase"}
)


def count_text(text: str | None) -> int:
    if not text:
        return 0
    return math.ceil(len(text.encode("utf-8")) / 4)


def _strings(value: Any, key: str | None = None) -> Iterable[str]:
    if key in _NOT_TEXT_KEYS:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def count_result(result: dict[str, Any]) -> int:
    """One file-search result chunk as it sits in the model's context."""
    return RESULT_OVERHEAD + count_text(result.get("text"))


def count_item(item: dict[str, Any]) -> int:
    """Tokens an item costs each time the provider renders it into a request."""
    kind = item.get("type")
    if kind == "file_search_call":
        queries = sum(count_text(q) for q in item.get("queries") or [])
        results = sum(count_result(r) for r in item.get("results") or [])
        return ITEM_OVERHEAD + queries + results
    if kind == "compaction":
        return ITEM_OVERHEAD + count_text(item.get("encrypted_content"))
    content = item.get("content")
    if kind in (None, "message") and content is not None:
        if isinstance(content, str):
            return ITEM_OVERHEAD + count_text(content)
        total = 0
        for part in content:
            if isinstance(part, dict):
                total += count_text(part.get("text") or part.get("refusal"))
        return ITEM_OVERHEAD + total
    return ITEM_OVERHEAD + sum(count_text(s) for s in _strings(item))


def count_tools(tools: list[dict[str, Any]] | None) -> int:
    total = 0
    for tool in tools or []:
        kind = tool.get("type", "")
        if kind in HOSTED_TOOL_TOKENS:
            total += HOSTED_TOOL_TOKENS[kind]
        elif kind.startswith("web_search"):
            total += HOSTED_TOOL_TOKENS["web_search"]
        else:
            total += FUNCTION_TOOL_OVERHEAD + count_text(json.dumps(tool, sort_keys=True))
    return total


def count_output(item: dict[str, Any]) -> int:
    """Tokens the model generated for an output item (what ``output_tokens`` bills)."""
    kind = item.get("type")
    if kind == "message":
        return sum(count_text(p.get("text")) for p in item.get("content") or [])
    if kind == "file_search_call":
        return sum(count_text(q) for q in item.get("queries") or [])
    if kind == "web_search_call":
        return count_text((item.get("action") or {}).get("query"))
    if kind == "function_call":
        return count_text(item.get("name")) + count_text(item.get("arguments"))
    return 0


def cached_tokens(previous_prefix: int, shared_prefix: int) -> int:
    """Tokens served from the prompt cache, given the previous request's length."""
    shared = min(previous_prefix, shared_prefix)
    if shared < CACHE_MIN:
        return 0
    return (shared // CACHE_BLOCK) * CACHE_BLOCK
