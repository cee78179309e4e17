"""A conversation's totals as the report and the screens read them.

A ConversationReport is a view of one conversation's number in the analyzer's
ConversationColumns (conversation_columns.py), made when read: a hosted-state capture has
a conversation every dozen turns, and an object each cost ~450 bytes.
"""

from __future__ import annotations

from array import array
from typing import Any


def _conv_count(name: str) -> property:
    """A conversation's token total from its columns (None while no turn had usage)."""
    def get(self: ConversationReport) -> int | None:
        v = getattr(self._c, name)[self._n]
        return None if v < 0 else v

    def put(self: ConversationReport, value: int | None) -> None:
        getattr(self._c, name)[self._n] = -1 if value is None else value

    return property(get, put)


def _conv_number(name: str) -> property:
    """A conversation's count (0 when none) from its columns."""
    def get(self: ConversationReport) -> int:
        return int(getattr(self._c, name)[self._n])

    def put(self: ConversationReport, value: int) -> None:
        getattr(self._c, name)[self._n] = value

    return property(get, put)


def _conv_item(name: str) -> property:
    """A conversation's entry in one of its columns' lists."""
    def get(self: ConversationReport) -> Any:
        return getattr(self._c, name)[self._n]

    def put(self: ConversationReport, value: Any) -> None:
        getattr(self._c, name)[self._n] = value

    return property(get, put)


class ConversationReport:
    """Per-conversation totals, for the conversations list and the report: a view of one
    conversation's number in the analyzer's ConversationColumns (conversation_columns.py),
    made when read. Two views of one conversation are equal."""

    __slots__ = ("_c", "_n")

    def __init__(self, columns: Any, number: int) -> None:
        self._c = columns
        self._n = number

    def __eq__(self, other: object) -> bool:
        return (type(other) is ConversationReport and other._c is self._c
                and other._n == self._n)

    def __hash__(self) -> int:
        return hash((id(self._c), self._n))

    def __repr__(self) -> str:
        return f"ConversationReport(key={self.key!r}, turns={len(self.turn_indices)})"

    key = _conv_item("keys")
    id = _conv_item("ids")
    kind = _conv_item("kinds")  # conversation | chain | stateless
    source = _conv_item("sources")
    carried = _conv_item("carried")  # the ConversationLedger, set by the ledger's pass
    input_tokens = _conv_count("input_tokens")
    cached_tokens = _conv_count("cached_tokens")
    output_tokens = _conv_count("output_tokens")
    hosted_calls = _conv_number("hosted_calls")
    cost_unknown_turns = _conv_number("cost_unknown_turns")
    usage_turns = _conv_number("usage_turns")

    @property
    def cost_usd(self) -> float | None:
        v = self._c.cost_usd[self._n]
        return None if v != v else v  # NaN: no turn of it was priced

    @cost_usd.setter
    def cost_usd(self, value: float | None) -> None:
        self._c.cost_usd[self._n] = float("nan") if value is None else value

    @property
    def turn_indices(self) -> array[int]:
        return self._c.indices(self._n)  # type: ignore[no-any-return]

    @property
    def markers(self) -> dict[str, int]:
        """Marker → how many of the conversation's turns carry it (a new dict: counted by
        the analyzer, ConversationColumns.count_marker)."""
        return self._c.marker_counts(self._n)  # type: ignore[no-any-return]

    @property
    def exchanges(self) -> list[int]:
        """Indices of the exchanges (non-model calls) that name this conversation."""
        return self._c.exchanges.setdefault(self._n, [])  # type: ignore[no-any-return]

    @property
    def turns(self) -> list[int]:
        """The conversation's turn indices, in order (a new list; the analyzer appends to
        `turn_indices`)."""
        return self.turn_indices.tolist()

    def to_dict(self) -> dict[str, Any]:
        c, n = self._c, self._n
        carried = c.carried[n]
        return {
            "id": c.ids[n], "key": c.keys[n], "kind": c.kinds[n], "source": c.sources[n],
            "turns": c.indices(n).tolist(), "input_tokens": self.input_tokens,
            "cached_tokens": self.cached_tokens, "output_tokens": self.output_tokens,
            "hosted_calls": c.hosted_calls[n],
            "cost_usd": None if (v := c.cost_usd[n]) != v else round(v, 6),
            "cost_unknown_turns": c.cost_unknown_turns[n], "markers": c.marker_counts(n),
            "usage_turns": c.usage_turns[n],
            "exchanges": c.exchanges.get(n) or [],
            "carried_context": carried.to_dict() if carried is not None else None,
        }

