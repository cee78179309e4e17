"""The conversations' totals in columns, by conversation number.

A hosted-state capture has a conversation every dozen turns: as objects (a
ConversationReport of fifteen slots, its int and float totals, an empty dict and list)
each cost ~450 bytes, 35 a turn. Here each total is one slot of an array at the
conversation's number (the analyzer's order of first appearance), a ConversationReport is a
view of (columns, number) made when read (turn_report.py), and the conversations list a
sequence of numbers (`Conversations`). What few conversations have (exchanges, markers)
is made only for those.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import Any, overload

from traceview.analysis.turn_report import ConversationReport

NO_COUNT = -1  # a token total's "None": no turn of the conversation had usage
NO_COST = float("nan")  # cost_usd's "None": no turn of it was priced

_COUNTS = ("input_tokens", "cached_tokens", "output_tokens", "hosted_calls",
           "cost_unknown_turns", "usage_turns")


class ConversationColumns:
    """Every conversation of one analyzer: its key, id, kind and source, its turn indices
    (an array each), its totals in arrays, its marker counts (None until one is counted),
    exchanges (by number, where any) and carried context (set by the ledger's pass)."""

    __slots__ = ("keys", "ids", "kinds", "sources", "turn_indices", "input_tokens",
                 "cached_tokens", "output_tokens", "hosted_calls", "cost_unknown_turns",
                 "usage_turns", "cost_usd", "markers", "exchanges", "carried")

    def __init__(self, keys: list[str] | None = None) -> None:
        self.keys: list[str] = keys if keys is not None else []
        self.ids: list[str | None] = []
        self.kinds: list[str] = []
        self.sources: list[str] = []
        self.turn_indices: list[array] = []
        for name in _COUNTS:
            setattr(self, name, array("q"))
        self.cost_usd = array("d")
        self.markers: list[dict[str, int] | None] = []
        self.exchanges: dict[int, list[int]] = {}
        self.carried: list[Any] = []

    def add(self, key: str, id: str | None, kind: str, source: str) -> int:
        """A new conversation (its key appended to `keys` by the caller or here); its
        number."""
        n = len(self.ids)
        if len(self.keys) == n:
            self.keys.append(key)
        self.ids.append(id)
        self.kinds.append(kind)
        self.sources.append(source)
        self.turn_indices.append(array("i"))
        self.input_tokens.append(NO_COUNT)
        self.cached_tokens.append(NO_COUNT)
        self.output_tokens.append(NO_COUNT)
        self.hosted_calls.append(0)
        self.cost_unknown_turns.append(0)
        self.usage_turns.append(0)
        self.cost_usd.append(NO_COST)
        self.markers.append(None)
        self.carried.append(None)
        return n

    def __len__(self) -> int:
        return len(self.ids)


class Conversations(Sequence[ConversationReport]):
    """ConversationReports by position: conversation numbers in report order (by first
    turn), each view made when read."""

    __slots__ = ("_cols", "_order")

    def __init__(self, cols: ConversationColumns, order: Sequence[int]) -> None:
        self._cols = cols
        self._order = order

    def __len__(self) -> int:
        return len(self._order)

    @overload
    def __getitem__(self, i: int) -> ConversationReport: ...

    @overload
    def __getitem__(self, i: slice) -> list[ConversationReport]: ...

    def __getitem__(self, i: int | slice) -> ConversationReport | list[ConversationReport]:
        if isinstance(i, slice):
            return [ConversationReport(self._cols, n) for n in self._order[i]]
        return ConversationReport(self._cols, self._order[i])

    def __iter__(self) -> Iterator[ConversationReport]:
        cols = self._cols
        for n in self._order:
            yield ConversationReport(cols, n)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Conversations | list | tuple):
            return len(self) == len(other) and all(
                a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Conversations({len(self)})"
