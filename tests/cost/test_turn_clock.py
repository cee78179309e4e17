"""The turns' clock the storage fee and the container sessions read (cost/storage.py
`turn_clock`): lines and start times in line order, ties by start, and the capture's end.
Multiple sources number their lines from 1 each, so turns in index order need not be in
line order."""

from __future__ import annotations

from types import SimpleNamespace

from traceview.analysis.cost.storage import turn_clock


def _turn(line: int, started_ms: int | None, elapsed_ms: int | None = None) -> object:
    return SimpleNamespace(line=line, started_ms=started_ms, elapsed_ms=elapsed_ms)


def test_turns_out_of_line_order_are_sorted_by_line_then_start() -> None:
    turns = [_turn(5, 3000, 500), _turn(2, 9000), _turn(5, 1000, 0), _turn(9, None, 0)]
    lines, starts, end = turn_clock(turns)
    assert (list(lines), list(starts), end) == ([2, 5, 5], [9.0, 1.0, 3.0], 9.0)


def test_turns_in_line_order_keep_it_and_the_end_is_the_latest_stop() -> None:
    lines, starts, end = turn_clock([_turn(1, 1000, 9000), _turn(4, 2000, 500)])
    assert (list(lines), list(starts), end) == ([1, 4], [1.0, 2.0], 10.0)
    lines, starts, end = turn_clock([_turn(3, None)])
    assert (list(lines), list(starts), end) == ([], [], None)
