"""The carried-context ledger: what each piece of context that arrived without a request
costs over the rest of its conversation.

A deposit is marked once, on the turn where billed input first jumps. But the deposited
text stays in the stored conversation and is billed again on every later turn until a
compaction rewrites the transcript. The ledger follows each *source* of such context — a
deposit (attributed to the hosted calls that explain it), or a hosted call whose results
were captured and that no deposit already accounts for — from the turn it is first billed
to the end of the conversation or the first compaction (explicit or likely).

Cost is apportioned: a turn's bill does not say which of its tokens were cached, so the
carried tokens are priced at the turn's own cached/fresh split. The pass that builds it
is analysis/hosted/ledger_pass.py; the views it hands out, analysis/hosted/carry.py.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from typing import Any

from traceview.analysis.hosted.carry import (
    APPORTIONED,
    EMPTY_CARRY,
    Charge,
    ConversationLedger,
    Conversations,
    Source,
    TurnCarry,
)
from traceview.analysis.hosted.growth import PROJECT_TURNS, PROJECTION
from traceview.analysis.hosted.ledger_store import LedgerColumns
from traceview.analysis.hosted.tools import ToolConfig, tool_config, tool_name

__all__ = ["APPORTIONED", "EMPTY_CARRY", "PROJECTION", "PROJECT_TURNS", "Charge",
           "ConversationLedger", "Ledger", "Source", "ToolConfig", "TurnCarry",
           "tool_config", "tool_name"]


class Ledger(LedgerColumns):
    """Every conversation's sources and charges (columns), read through views."""

    @property
    def conversations(self) -> Mapping[str, ConversationLedger]:
        return Conversations(self)

    @property
    def turns(self) -> dict[int, TurnCarry]:
        """Turn index -> its account (made when asked: the ledger keeps no per-turn map)."""
        return {c.turn: c for conv in self.conversations.values() for c in conv.carries()}

    def carry(self, key: str, index: int) -> TurnCarry | None:
        """The account of turn `index` of conversation `key` (None: it carries nothing)."""
        n = self._num.get(key)
        if n is None:
            return None
        hi = self._c_off[n + 1]
        k = bisect_left(self._c_turn, index, self._c_off[n], hi)
        return TurnCarry(self, n, k) if k < hi and self._c_turn[k] == index else None

    def turn(self, index: int) -> dict[str, Any]:
        """Turn `index`'s carried-context dict (the empty one when it carries nothing)."""
        carry = self.turns.get(index)
        return carry.to_dict() if carry is not None else EMPTY_CARRY

    def conversation(self, key: str) -> dict[str, Any] | None:
        """Conversation `key`'s ledger dict (None: not in the ledger)."""
        conv = self.conversations.get(key)
        return conv.to_dict() if conv is not None else None

    def source_at(self, turn: int) -> list[Source]:
        """Sources first billed on `turn` (what its turn account talks about)."""
        return [Source(self, i) for i, a in enumerate(self._s_arrived) if a == turn]
