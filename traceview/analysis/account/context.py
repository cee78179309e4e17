"""What every component builder needs: the counter, the family's framing, and lookups."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import NamedTuple

from traceview.analysis.account.framing import Framing
from traceview.analysis.account.model import Basis, Component
from traceview.analysis.account.tokens import Counter

# Reasoning (and compaction) items resent by id: item id -> (tokens, turn that produced it).
ItemTokens = Mapping[str, tuple[int, int | None]]


class Context(NamedTuple):
    """The counter and framing for one request, plus what earlier turns told us: the same
    for every request of a model and API read with the same `item_tokens` (made once for
    them: account.py `context`)."""

    model: str | None
    api: str  # framing.CHAT or framing.RESPONSES: with the model, what decides the rest
    counter: Counter
    framing: Framing
    # Counted text is known only in the model's own encoding with fitted framing.
    basis: Basis
    item_tokens: ItemTokens
    keep_reasoning: bool = False

    def count(self, text: str) -> int:
        return self.counter.count(text)

    def counted(self, component: str, name: str, text: str, framing: int,
                reason: str = "") -> Component:
        """A component whose tokens are its text in the model's encoding plus framing."""
        return _line(component, name, self.counter.count(text) + framing, self.basis, None,
                     reason)


# Counted lines recur (a tool on every turn, messages of the same length): each distinct one
# is made once and shared, found by its fields.
_line = lru_cache(maxsize=1024)(Component)
