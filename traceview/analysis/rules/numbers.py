"""A turn's analysed numbers: owned-state bytes, expected input (from the input account),
cumulative billed input."""

from __future__ import annotations

from typing import Any

from traceview.analysis.rules.account import TurnAccount
from traceview.analysis.rules.facts import TurnFacts
from traceview.analysis.rules.state import ConversationState

UNREADABLE = "expected input unknown: the request body could not be read again"
NOTHING_EARLIER = ("expected input unknown: what the provider held before this turn is not in"
                   " the capture (no earlier turn of this conversation with known usage to"
                   " start from)")


def owned_state_bytes(f: TurnFacts, st: ConversationState) -> int | None:
    """The bytes this turn would have sent had the application owned the transcript: its
    own request, plus everything earlier when it continues a conversation or chain."""
    if f.request_bytes is None:
        return None
    chained = f.req_conversation_id is not None or f.previous_response_id is not None
    if not chained:
        return f.request_bytes
    # A chained request that sends the history again: those bytes are already counted.
    resent = f.req_extra.get("resent_bytes", 0) if f.req_extra else 0
    return f.request_bytes - resent + st.history_bytes


def expected_input(f: TurnFacts, st: ConversationState, acc: TurnAccount | None,
                   found: dict[str, Any]) -> int | None:
    """What the turn should be billed for when nothing arrived without a request.

    Where the input is visible (no conversation handle or chain), the input account's sum.
    On a hosted turn, the previous turn's billed input + its visible output (each output
    message framed as input) + the itemised change: this turn's input items, and its
    instructions, tools and schema less the previous turn's (they are billed each turn
    and not carried). None when a line of that is unknown; `found` says why."""
    if not f.has_req:
        return None
    if acc is None:
        found["expected_unknown"] = UNREADABLE
        return None
    if not acc.hosted:
        if acc.expected is None:
            line = next(x for x in acc.lines if x[2] is None)
            found["expected_unknown"] = f"expected input unknown: {line[0]} {line[1]}: {line[5]}"
        return acc.expected
    if st.last_input is None:
        found["expected_unknown"] = NOTHING_EARLIER
        return None
    if acc.items is None:
        found["expected_unknown"] = f"expected input unknown: {acc.items_unknown}"
        return None
    prev = st.last_static
    if prev is None or prev.unknown != acc.static.unknown:
        found["expected_unknown"] = ("expected input unknown: a tool, prompt or other line"
                                     " billed each turn is unknown and changed since the"
                                     " previous turn")
        return None
    if st.last_visible is None:
        found["expected_unknown"] = ("expected input unknown: the previous turn's usage says "
                                     "more reasoning than output, so its visible output is "
                                     "unknown")
        return None
    change: int = acc.items + acc.static.known - prev.known
    carried = st.last_visible + st.last_messages * acc.carried_message
    return st.last_input + carried + change


def cumulative_input(f: TurnFacts, st: ConversationState) -> int | None:
    """Billed input of the conversation so far, this turn included (None before any)."""
    if f.input_tokens is not None:
        return st.cumulative + f.input_tokens
    return st.cumulative or None
