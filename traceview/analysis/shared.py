"""One tuple per distinct list of names.

Call types, include flags and tool names repeat on nearly every turn of a capture: keeping
one tuple per distinct list, instead of one per turn, is what lets per-turn records hold
them for the capture's life at the cost of a reference. The table is capped so a hostile
capture with a different list on every line cannot grow it without bound (past the cap a
list is simply not shared).
"""

from __future__ import annotations

_SHARED: dict[tuple[str, ...], tuple[str, ...]] = {}
_CAP = 4096


def shared(names: tuple[str, ...]) -> tuple[str, ...]:
    got = _SHARED.get(names)
    if got is None:
        got = names
        if len(_SHARED) < _CAP:
            _SHARED[names] = names
    return got
