"""The conversations' totals in columns, by conversation number.

A hosted-state capture has a conversation every dozen turns: as objects (a
ConversationReport of fifteen slots, its int and float totals, an empty dict and list)
each cost ~450 bytes, 35 a turn. Here each total is one slot of an array at the
conversation's number (the analyzer's order of first appearance), a ConversationReport is a
view of (columns, number) made when read (turn_report.py), and the conversations list a
sequence of numbers (`Conversations`). What few conversations have (exchanges) is made
only for those. A conversation's marker counts are a dict while turns arrive (counted in
the analyzer's loop), then an array of (marker number, count) pairs in the order first
counted (a dict of three markers is 184 bytes; the pairs 88), read as the report's dict.
Once no turn will be added (`compact`), every conversation's turn indices move into one
array (an array each costs 64 bytes before its first index).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import Any, overload

from traceview.analysis.conversation_report import ConversationReport

NO_COUNT = -1  # a token total's "None": no turn of the conversation had usage
NO_COST = float("nan")  # cost_usd's "None": no turn of it was priced


class ConversationColumns:
    """Every conversation of one analyzer: its key, id, kind and source, its turn indices
    (an array each), its totals in arrays, its marker counts (None until one is counted),
    exchanges (by number, where any) and carried context (set by the ledger's pass)."""

    __slots__ = ("keys", "ids", "kinds", "sources", "turn_indices", "input_tokens",
                 "cached_tokens", "output_tokens", "hosted_calls", "cost_unknown_turns",
                 "usage_turns", "cost_usd", "markers", "exchanges", "carried",
                 "marker_names", "_marker_numbers", "_flat", "_starts")

    def __init__(self, keys: list[str] | None = None) -> None:
        self.keys: list[str] = keys if keys is not None else []
        self.ids: list[str | None] = []
        self.kinds: list[str] = []
        self.sources: list[str] = []
        self.turn_indices: list[array[int]] = []
        self.input_tokens: array[int] = array("q")
        self.cached_tokens: array[int] = array("q")
        self.output_tokens: array[int] = array("q")
        self.hosted_calls: array[int] = array("q")
        self.cost_unknown_turns: array[int] = array("q")
        self.usage_turns: array[int] = array("q")
        self.cost_usd: array[float] = array("d")
        # Per conversation: None, its marker counts (a dict, while turns arrive), or after
        # `compact` as [number, count, number, …] (numbers into `marker_names`).
        self.markers: list[dict[str, int] | array[int] | None] = []
        self.marker_names: list[str] = []
        self._marker_numbers: dict[str, int] = {}
        # After `compact`: every conversation's turn indices, one after another, and where
        # each one's start (one more entry: the end).
        self._flat: array[int] | None = None
        self._starts: array[int] | None = None
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

    def add_turn(self, n: int, index: int, input_tokens: int | None, cached: int | None,
                 output: int | None, hosted_calls: int, tokens_usd: float | None,
                 hosted_usd: float, markers: list[str]) -> None:
        """One more turn of conversation `n`: its index, and its usage, calls, cost and
        markers into the conversation's totals (token sums over the turns with usage)."""
        self.turn_indices[n].append(index)
        if input_tokens is not None:
            if self.usage_turns[n]:
                self.input_tokens[n] += input_tokens
                self.cached_tokens[n] += cached or 0
                self.output_tokens[n] += output or 0
            else:  # the conversation's first turn with usage: its sums start here
                self.input_tokens[n] = input_tokens
                self.cached_tokens[n] = cached or 0
                self.output_tokens[n] = output or 0
            self.usage_turns[n] += 1
        self.hosted_calls[n] += hosted_calls
        if tokens_usd is None:
            self.cost_unknown_turns[n] += 1
        else:
            v = self.cost_usd[n]
            self.cost_usd[n] = (v if v == v else 0.0) + tokens_usd + hosted_usd  # NaN: None
        if markers:
            counts = self.markers[n]
            if counts is None:
                counts = self.markers[n] = {}
            assert isinstance(counts, dict), "marker counts are a dict while turns arrive"
            for marker in markers:
                counts[marker] = counts.get(marker, 0) + 1

    def count_marker(self, n: int, marker: str) -> None:
        """One more turn of conversation `n` carries `marker` (while turns arrive)."""
        d = self.markers[n]
        if d is None:
            d = self.markers[n] = {}
        assert isinstance(d, dict), "marker counts are a dict while turns arrive"
        d[marker] = d.get(marker, 0) + 1

    def _pairs(self, counts: dict[str, int]) -> array[int]:
        numbers = self._marker_numbers
        out = array("q")
        for marker, count in counts.items():
            no = numbers.get(marker)
            if no is None:
                no = numbers[marker] = len(self.marker_names)
                self.marker_names.append(marker)
            out.append(no)
            out.append(count)
        return out

    def marker_counts(self, n: int) -> dict[str, int]:
        """Conversation `n`'s marker → how many of its turns carry it, in the order first
        counted (a new dict)."""
        pairs = self.markers[n]
        if pairs is None:
            return {}
        if isinstance(pairs, dict):
            return dict(pairs)
        names = self.marker_names
        return {names[pairs[i]]: pairs[i + 1] for i in range(0, len(pairs), 2)}

    def indices(self, n: int) -> array[int]:
        """Conversation `n`'s turn indices, in order (after `compact`, a copy)."""
        if self._flat is None:
            return self.turn_indices[n]
        starts = self._starts
        return self._flat[starts[n]:starts[n + 1]]  # type: ignore[index]

    def compact(self) -> None:
        """Every conversation's turn indices into one array, once no turn will be added."""
        if self._flat is not None:
            return
        flat = array("i")
        starts = array("q", [0])
        for a in self.turn_indices:
            flat.extend(a)
            starts.append(len(flat))
        self._flat, self._starts = flat, starts
        self.turn_indices = []
        self.markers = [None if d is None else self._pairs(d)  # type: ignore[arg-type]
                        for d in self.markers]


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
