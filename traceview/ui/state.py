"""What the app knows about the capture so far; owned by the app's message handlers.

Only grouping and lookup live here (which turns belong to which conversation, which
turn has index N). Every number shown still comes from the core's reports.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from traceview.analysis.seams import AnalysisView, ConversationRow, ProblemRow, TurnRow

ALL = "\x00all"  # the pseudo-conversation key for "every turn in the capture"


class ByIndex(Mapping[int, "TurnRow"]):
    """Turn index → its TurnReport, read through the position where the turn sits in
    ``LoadState.turns``: 4 bytes a turn in an array instead of a dict entry (~100 bytes),
    and one array store per turn on the event loop instead of a hash insert."""

    def __init__(self, turns: list[TurnRow]) -> None:
        self._turns = turns
        self._at = array("l")  # turn index → position in `turns` + 1 (0: not loaded)

    def __getitem__(self, index: int) -> TurnRow:
        at = self._at
        if type(index) is int and 0 <= index < len(at) and at[index]:
            return self._turns[at[index] - 1]
        raise KeyError(index)

    def __contains__(self, index: object) -> bool:
        at = self._at
        return type(index) is int and 0 <= index < len(at) and at[index] != 0

    def __iter__(self) -> Iterator[int]:
        return (t.index for t in self._turns)

    def __len__(self) -> int:
        return len(self._turns)


@dataclass
class LoadState:
    turns: list[TurnRow] = field(default_factory=list)
    by_key: dict[str, list[TurnRow]] = field(default_factory=dict)
    problems: list[ProblemRow] = field(default_factory=list)
    bytes_read: int = 0
    total_bytes: int | None = None
    lines: int = 0
    done: bool = False
    error: str | None = None
    analysis: AnalysisView | None = None
    conversations: dict[str, ConversationRow] = field(default_factory=dict)
    #: Turn index → its number within its conversation (the position in the report's
    #: ``conversations[].turns``); 4 bytes a turn, not a dict entry.
    positions: array[int] = field(default_factory=lambda: array("l"))

    def __post_init__(self) -> None:
        self.by_index = ByIndex(self.turns)

    def add_turns(self, turns: Iterable[TurnRow]) -> set[str]:
        """File new turns under their conversation; return the keys that grew.

        It runs on the event loop for every turn of the capture (a gigabyte has a quarter
        of a million): each turn costs one pass of this loop and nothing else — no dict
        entry per turn, consecutive turns of one conversation filed without a lookup."""
        if not isinstance(turns, list):
            turns = list(turns)
        if not turns:
            return set()
        touched: set[str] = set()
        positions = self.positions
        at = self.by_index._at
        by_key = self.by_key
        listed = self.turns
        base = len(listed)
        listed.extend(turns)
        last_key: str | None = None
        group: list[TurnRow] = []
        for n, turn in enumerate(turns, base + 1):
            key = getattr(turn, "conversation_key", None)
            key = f"file:{getattr(turn, 'source', '?')}" if key is None else str(key)
            if key != last_key:
                group = by_key.get(key)  # type: ignore[assignment]
                if group is None:
                    group = by_key[key] = []
                touched.add(key)
                last_key = key
            group.append(turn)
            i = turn.index
            try:
                at[i] = n
            except IndexError:  # past the end: grow both arrays (by half, amortised)
                self._grow(i)
                at[i] = n
            positions[i] = len(group)
        return touched

    def _grow(self, index: int) -> None:
        """Both arrays (always of one length) past `index`, by half at least."""
        size = max(index + 1, len(self.positions) * 3 // 2)
        zeros = array("l", bytes((size - len(self.positions)) * self.positions.itemsize))
        self.positions.extend(zeros)
        self.by_index._at.extend(zeros)

    def position(self, turn: TurnRow) -> int | None:
        """The turn's number within its conversation (1 = its first turn)."""
        i = turn.index
        return self.positions[i] if 0 <= i < len(self.positions) and self.positions[i] else None

    def finish(self, analysis: AnalysisView | None, error: str | None) -> None:
        self.done = True
        self.error = error
        self.analysis = analysis
        if analysis is not None:
            for conv in getattr(analysis, "conversations", None) or []:
                self.conversations[str(conv.key)] = conv

    def rows_for(self, key: str) -> list[TurnRow]:
        return self.turns if key == ALL else self.by_key.get(key, [])

    @property
    def keys(self) -> list[str]:
        return list(self.by_key)

    @property
    def fraction(self) -> float | None:
        if self.done:
            return 1.0
        if not self.total_bytes:
            return None
        return min(1.0, self.bytes_read / self.total_bytes)


def conversation_key(turn: TurnRow) -> str:
    key = getattr(turn, "conversation_key", None)
    return str(key) if key is not None else f"file:{getattr(turn, 'source', '?')}"
