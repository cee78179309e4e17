"""What every component builder needs: the counter, the family's framing, and lookups."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from traceview.analysis.account.framing import Framing
from traceview.analysis.account.model import ESTIMATED, KNOWN, Basis, Component
from traceview.analysis.account.tokens import Counter

# Reasoning (and compaction) items resent by id: item id -> (tokens, turn that produced it).
ItemTokens = Mapping[str, tuple[int, int | None]]


class Context(NamedTuple):
    """The counter and framing for one request, plus what earlier turns told us (made
    once per request: a plain tuple)."""

    model: str | None
    counter: Counter
    framing: Framing
    item_tokens: ItemTokens
    keep_reasoning: bool = False

    @property
    def basis(self) -> Basis:
        """Counted text is known only in the model's own encoding with fitted framing."""
        return KNOWN if self.counter.exact and self.framing.calibrated else ESTIMATED

    def count(self, text: str) -> int:
        return self.counter.count(text)

    def counted(self, component: str, name: str, text: str, framing: int,
                reason: str = "") -> Component:
        """A component whose tokens are its text in the model's encoding plus framing."""
        return Component(component, name, self.counter.count(text) + framing, self.basis,
                         reason=reason)
