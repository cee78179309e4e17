"""A stream's text deltas masked as the text they make, before the stream is recorded.

The recorder keeps every event of a stream. A key the model streams back arrives cut
across deltas ("sk-pr", "oj-Ab12…"): no delta alone has a key's shape, so masking the
record value by value leaves each part in clear and joining the recorded deltas gives the
key back. Each run of deltas that build one text (one content part, one tool call's
arguments) is masked as its join, and the masks are cut back onto the deltas
(`traceview.safety.pieces`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from traceview.safety.pieces import redact_pieces

# Where a delta sits: the dict holding it and the field's name.
Slot = tuple[dict[str, Any], str]
_CHAT_FIELDS = ("content", "refusal", "reasoning_content", "reasoning")


_RUN_FIELDS = ("item_id", "output_index", "content_index", "summary_index")  # one text's


def _responses_slot(event: dict[str, Any], groups: dict[tuple[Any, ...], list[Slot]]) -> None:
    kind = event.get("type")
    if isinstance(kind, str) and kind.endswith(".delta") and isinstance(event.get("delta"), str):
        key = (kind, *map(str, map(event.get, _RUN_FIELDS)))
        groups.setdefault(key, []).append((event, "delta"))


def _chat_slots(event: dict[str, Any], groups: dict[tuple[Any, ...], list[Slot]]) -> None:
    choices = event.get("choices")
    if not isinstance(choices, list):
        return
    for n, choice in enumerate(choices):
        delta = choice.get("delta") if isinstance(choice, dict) else None
        if not isinstance(delta, dict):
            continue
        at = str(choice.get("index", n))
        for field in _CHAT_FIELDS:
            if isinstance(delta.get(field), str):
                groups.setdefault(("chat", at, field), []).append((delta, field))
        calls = delta.get("tool_calls")
        for m, call in enumerate(calls if isinstance(calls, list) else ()):
            fn = call.get("function") if isinstance(call, dict) else None
            if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                key = ("chat-tool", at, str(call.get("index", m)))
                groups.setdefault(key, []).append((fn, "arguments"))


def mask_deltas(events: list[Any], keys: Iterable[str] = ()) -> None:
    """Mask, in place, each run of `events`' text deltas as the text they join into;
    `keys` are exact secrets to mask too (the ones this recorder saw in headers)."""
    groups: dict[tuple[Any, ...], list[Slot]] = {}
    for event in events:
        if isinstance(event, dict):
            _responses_slot(event, groups)
            _chat_slots(event, groups)
    keys = tuple(keys)
    for slots in groups.values():
        if len(slots) < 2:
            continue  # one delta alone is masked like any other value
        pieces = [holder[field] for holder, field in slots]
        for (holder, field), piece in zip(slots, redact_pieces(pieces, keys), strict=True):
            holder[field] = piece
