"""The analysis's sequences read like the lists they replaced (issue #11: reports, turns
and conversations are views made when read): len, indices from either end, slices with
any step, `in`, equality, reversed, index/count, sorting, and `Analysis.turn(index)` —
on a capture whose rows are not in report order (a retried turn takes a new row), on an
empty capture and on one of only damaged lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.hostile import widening_capture
from traceview.analysis.session import Analysis, analyze
from traceview.capture.model import new_turn
from traceview.report.json_out import render_json

SLICES = [slice(None), slice(3, 40), slice(None, None, 2), slice(None, None, -1),
          slice(-5, None), slice(None, -7), slice(10, 2, -3), slice(1, 400, 7),
          slice(-3, -90, -4), slice(1000, None), slice(5, 5)]


@pytest.fixture(scope="module")
def edges(tmp_path_factory: pytest.TempPathFactory) -> Analysis:
    path = widening_capture.write(tmp_path_factory.mktemp("seq") / "edges.jsonl")
    return analyze(str(path))


def _same_sequence(seq: Any, want: list[Any]) -> None:
    n = len(want)
    assert len(seq) == n
    assert list(seq) == want and seq == want and seq == tuple(want)
    assert list(reversed(seq)) == want[::-1]
    for i in range(-n, n):
        assert seq[i] == want[i]
    for bad in (n, -n - 1):
        with pytest.raises(IndexError):
            seq[bad]
    for s in SLICES:
        part = seq[s]
        assert list(part) == want[s] and len(part) == len(want[s]), s
    if n:
        assert seq != want[:-1]
        for k in (0, n // 2, n - 1):
            assert want[k] in seq
            assert seq.index(want[k]) == k and seq.count(want[k]) == 1


def test_reports_read_like_the_list_they_replaced(edges: Analysis) -> None:
    reports = edges.turns
    assert list(reports.rows()) != list(range(len(reports)))  # rows out of report order
    want = list(reports)
    _same_sequence(reports, want)
    assert [t.index for t in want] == sorted(t.index for t in want)
    assert "turn" not in reports and None not in reports
    # Slices are sequences of their own, with every operation again.
    _same_sequence(reports[::3], want[::3])
    _same_sequence(reports[-50:-10:-1], want[-50:-10:-1])
    _same_sequence(reports[::-7], want[::-7])
    # A report of another analysis of the same capture is not in this one.
    other = analyze(edges.capture)
    assert other.turns[0] not in reports and other.turns[0].to_dict() == want[0].to_dict()


def test_sorting_reports_is_stable_and_in_place_like_a_list(edges: Analysis) -> None:
    def key(t: Any) -> int:
        return -(t.input_tokens or 0)

    copy = edges.turns[:]
    want = sorted(list(copy), key=key)
    copy.sort(key=key)
    assert list(copy) == want
    assert [t.index for t in copy] == [t.index for t in want]
    copy.sort()  # back by index
    assert list(copy) == list(edges.turns)


def test_turn_by_index_finds_each_report(edges: Analysis) -> None:
    for t in edges.turns:
        assert edges.turn(t.index) == t
    assert edges.turn(0) is None and edges.turn(len(edges.turns) + 1) is None
    assert edges.turn(-1) is None


def test_conversations_and_turns_read_like_lists(edges: Analysis) -> None:
    convs = edges.conversations
    _same_sequence(convs, list(convs))
    assert [c.turns[0] for c in convs] == sorted(c.turns[0] for c in convs)
    turns = edges.capture.turns
    _same_sequence(turns, list(turns))
    assert [t.index for t in turns] == [t.index for t in edges.turns]
    with pytest.raises(ValueError):
        turns.append(new_turn(1, 0, 1, "chat"))  # a turn of another table


@pytest.mark.parametrize("body", [b"", b"\n\n", b"{not json\n\xff\xfe\n[1, 2]\n\"x\"\n"])
def test_an_empty_or_damaged_capture_has_empty_sequences(tmp_path: Path, body: bytes) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(body)
    a = analyze(str(path))
    for seq in (a.turns, a.conversations, a.capture.turns):
        _same_sequence(seq, [])
        assert list(seq[::-1]) == [] and list(seq[5:]) == []
    a.turns.sort()
    a.turns.sort(key=lambda t: t.index)
    assert a.turn(1) is None
    assert b'"turns": []' in render_json(a) or b'"turns":[]' in render_json(a)
