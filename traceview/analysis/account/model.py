"""The input account's data: one component per thing the provider bills as input.

A component's tokens are None when they cannot be known from what the capture holds; the
reason then says what is missing. Sums never treat an unknown as 0: `expected` is None
as soon as one component is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

Basis = Literal["known", "estimated", "unknown"]
KNOWN: Basis = "known"
ESTIMATED: Basis = "estimated"
UNKNOWN: Basis = "unknown"


class Component(NamedTuple):
    """One line of an input account, in the order of the report's `input_account` keys.

    A plain immutable tuple: a capture's turns repeat most of their lines (framing, tools,
    handles), so identical lines are one shared object wherever they are kept."""

    component: str
    name: str
    tokens: int | None
    basis: Basis
    source_turn: int | None = None
    reason: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"component": self.component, "name": self.name, "tokens": self.tokens,
                "basis": self.basis, "reason": self.reason, "source_turn": self.source_turn}


def unknown(component: str, name: str, reason: str,
            source_turn: int | None = None) -> Component:
    return Component(component, name, None, UNKNOWN, source_turn, reason)


@dataclass(frozen=True, slots=True)
class InputAccount:
    """One turn's billed input, itemised, with the encoding it was counted in."""

    components: tuple[Component, ...]
    model: str | None
    encoding: str
    family: str

    @property
    def expected(self) -> int | None:
        """The account's sum, or None when any component is unknown."""
        if any(c.tokens is None for c in self.components):
            return None
        return sum(c.tokens for c in self.components if c.tokens is not None)

    @property
    def known_tokens(self) -> int:
        """The sum of the components that have a count (a floor when some are unknown)."""
        return sum(c.tokens for c in self.components if c.tokens is not None)

    @property
    def unknown(self) -> tuple[Component, ...]:
        return tuple(c for c in self.components if c.tokens is None)

    @property
    def basis(self) -> Basis:
        """The weakest basis of any component: the account is as good as its worst line."""
        kinds = {c.basis for c in self.components}
        for basis in (UNKNOWN, ESTIMATED):
            if basis in kinds:
                return basis
        return KNOWN

    def to_dict(self) -> dict[str, object]:
        return {"model": self.model, "encoding": self.encoding, "family": self.family,
                "expected": self.expected, "known_tokens": self.known_tokens,
                "basis": self.basis, "components": [c.to_dict() for c in self.components]}
