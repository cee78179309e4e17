"""Find a turn's report by its index without a map of every turn.

Turn indices run 1..n and the analysis keeps its turns sorted, so turn `i` is almost
always at position i - 1: a check of that position replaces a dict of every turn (about
100 bytes a turn). A map is made once, the first time the position does not match (a
capture whose indices have gaps), and kept for the finder's life. The position is checked
on every call, so a list that grew or was re-sorted since is still read correctly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def finder(turns: Sequence[Any]) -> Callable[[int], Any]:
    """index -> the turn with that index (None when there is none)."""
    by_index: dict[int, Any] | None = None

    def find(index: int) -> Any:
        nonlocal by_index
        if 0 < index <= len(turns):
            t = turns[index - 1]
            if t.index == index:
                return t
        if by_index is None:
            by_index = {t.index: t for t in turns}
        return by_index.get(index)

    return find
