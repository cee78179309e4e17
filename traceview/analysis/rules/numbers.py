"""A turn's analysed numbers: owned-state bytes, expected input, cumulative billed input."""

from __future__ import annotations

from typing import Any

from traceview.analysis.rules.facts import TurnFacts
from traceview.analysis.rules.state import ConversationState

EXPECTED_UNKNOWN_MEDIA = ("expected input unknown: the request carries a file/image whose "
                          "tokens cannot be estimated")


def owned_state_bytes(f: TurnFacts, st: ConversationState) -> int | None:
    """The bytes this turn would have sent had the application owned the transcript: its
    own request, plus everything earlier when it continues a conversation or chain."""
    if f.request_bytes is None:
        return None
    chained = f.req_conversation_id is not None or f.previous_response_id is not None
    return f.request_bytes + (st.history_bytes if chained else 0)


def media_unknown(f: TurnFacts) -> bool:
    """Whether the new input carries a file or image whose tokens cannot be estimated."""
    media = f.req_extra.get("media") if f.req_extra else None
    return bool(media) and any(m["tokens"] is None for m in media)  # type: ignore[union-attr]


def expected_input(f: TurnFacts, st: ConversationState, found: dict[str, Any]) -> int | None:
    """The previous turn's billed input + its visible output + the new input's estimate:
    what the turn should be billed for when nothing arrived without a request (None when
    the previous usage or the new input's size is unknown; `found` says why)."""
    if not f.has_req or st.last_input is None:
        return None
    if media_unknown(f):
        found["expected_unknown"] = EXPECTED_UNKNOWN_MEDIA
        return None
    return st.last_input + st.last_visible + f.new_input_tokens


def cumulative_input(f: TurnFacts, st: ConversationState) -> int | None:
    """Billed input of the conversation so far, this turn included (None before any)."""
    if f.input_tokens is not None:
        return st.cumulative + f.input_tokens
    return st.cumulative or None
