"""Finding a turn by index: by position when indices run 1..n, through a map otherwise."""

from __future__ import annotations

from types import SimpleNamespace

from traceview.analysis.by_index import finder


def _turns(*indices: int) -> list[SimpleNamespace]:
    return [SimpleNamespace(index=i) for i in indices]


def test_dense_gapped_and_resorted_indices_all_find_their_turn() -> None:
    dense = _turns(1, 2, 3)
    find = finder(dense)
    assert [find(i).index for i in (1, 2, 3)] == [1, 2, 3] and find(4) is None
    gapped = _turns(1, 5, 9)
    find = finder(gapped)
    assert find(5) is gapped[1] and find(9) is gapped[2] and find(2) is None
    grown = _turns(2, 1)
    find = finder(grown)
    assert find(1) is grown[1]
    grown.sort(key=lambda t: t.index)  # sorted in place later (a followed file)
    grown.append(SimpleNamespace(index=3))
    assert find(1).index == 1 and find(2).index == 2 and find(3).index == 3
