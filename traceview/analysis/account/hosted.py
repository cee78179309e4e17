"""Billed sizes of hosted tools, measured on real captures (docs/input-account.md).

The provider publishes neither the text it shows the model for a hosted tool's definition
nor how a hosted call resent as input is rendered. Where real turns that differ only by
such a line agree within a few tokens, the size measured on them is kept here, labelled
estimated, for the model (or family) it was measured on and no other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

# Billed definition tokens where the tool was offered and not called (docs/input-account.md,
# "Hosted tool definitions"): (hosted tool type, model family) ...
BY_FAMILY: dict[tuple[str, str], int] = {
    ("image_generation", "gpt-5"): 342,
    ("code_interpreter", "gpt-5"): 613,
}
# ... and (hosted tool type, model) for a size seen on one model of a family only, with
# the options it was seen with: another option (a user location, domain filters) adds
# text of its own, so such a tool stays unknown.
BY_MODEL: dict[tuple[str, str], int] = {
    ("web_search", "gpt-4.1"): 294,
}
_PLAIN_OPTIONS = frozenset({"type", "search_context_size", "external_web_access"})
# (resent hosted call type, model) -> tokens beyond the call's query text.
CALL_FRAMING: dict[tuple[str, str], int] = {
    ("web_search_call", "gpt-4.1"): 14,
}
_DATED = re.compile(r"-\d{4}-\d{2}-\d{2}$")


@lru_cache(maxsize=256)
def model_key(model: str | None) -> str:
    """The model's name without provider prefix or date snapshot: gpt-4.1-2025-04-14 ->
    gpt-4.1 (gpt-4.1-mini stays itself). Made once per model: every request that offers
    a hosted tool asks."""
    return _DATED.sub("", (model or "").lower().rsplit("/", 1)[-1])


def definition(tool: Mapping[str, Any], model: str | None, family: str) -> int | None:
    """A hosted tool's measured definition size on this model, or None."""
    kind = str(tool.get("type") or "")
    if (kind, model_key(model)) in BY_MODEL:
        return BY_MODEL[(kind, model_key(model))] if set(tool) <= _PLAIN_OPTIONS else None
    return BY_FAMILY.get((kind, family))


def call_query(kind: str, item: Mapping[str, Any], model: str | None) -> tuple[str, int] | None:
    """(query text, framing) of a resent hosted call whose rendering was measured on this
    model, or None: a web search's one query."""
    framing = CALL_FRAMING.get((kind, model_key(model)))
    action = item.get("action")
    if framing is None or not isinstance(action, dict) or action.get("type") != "search":
        return None
    query, queries = action.get("query"), action.get("queries")
    if not isinstance(query, str) or queries not in (None, [query]):
        return None
    return query, framing
