"""The analysis holds no object per turn: `analysis.turns` is a sequence of table rows whose
TurnReports are views made when read (analysis/reports.py), and the analysed values live
in columns (analysis/turn_columns.py) of 8-byte items. Every reader of the
list it replaced (screens, writers, the hosted-state passes) relies on it reading alike."""

from __future__ import annotations

import gc
import random
import statistics
from pathlib import Path

from tests.builders import conv_turn, write
from traceview.analysis import analyze
from traceview.analysis.reports import Reports
from traceview.analysis.stats import Totals, latency_percentiles, percentiles
from traceview.analysis.turn_columns import TurnColumns
from traceview.analysis.turn_report import TurnReport
from traceview.capture import load

ROOT = Path(__file__).parent.parent.parent
CLAIMS = str(ROOT / "sample_traces/claims.jsonl")


def test_turns_read_like_the_list_they_replace() -> None:
    a = analyze(CLAIMS)
    turns = a.turns
    assert isinstance(turns, Reports)
    as_list = list(turns)
    assert len(turns) == len(as_list) == 4
    assert [t.index for t in turns] == [1, 2, 3, 4]
    assert turns[0] == as_list[0] and turns[-1] == as_list[-1]
    assert turns[-1].index == 4
    assert [t.index for t in turns[1:3]] == [2, 3]
    assert isinstance(turns[1:3], Reports)
    assert [t.index for t in turns[::2]] == [1, 3]
    assert turns[1] in turns and turns[1:3][0] == turns[1]
    assert turns == as_list
    # Two views of one row are one turn: equal, same hash, usable as dict keys.
    assert turns[2] == a.turn(3) and hash(turns[2]) == hash(a.turn(3))
    assert {turns[2]: "x"}[a.turn(3)] == "x"
    assert turns[0] != turns[1]
    assert a.turn(99) is None
    try:
        turns[4]
    except IndexError:
        pass
    else:
        raise AssertionError("past the end must raise IndexError, like a list")
    # The views' values are the analysis's: pinned, as tests/core/test_turn_columns.py.
    assert [(t.conversation_key, t.source, t.markers) for t in turns][0][1] == CLAIMS
    assert turns[3].cumulative_input_tokens == 15590


def test_no_turn_report_is_held_per_turn() -> None:
    a = analyze(CLAIMS)
    # This analysis's columns (views of other tests run earlier in this process may be
    # held by their own objects: only this analysis's count here).
    probe = a.turns[0]
    mine = probe.columns
    del probe
    gc.collect()
    held = [o for o in gc.get_objects() if type(o) is TurnReport and o.columns is mine]
    assert held == [], f"{len(held)} TurnReports held after the analysis"
    assert len(a.turns) == 4


def test_sort_orders_rows_by_index_and_by_a_key() -> None:
    a = analyze(CLAIMS)
    cols = a.turns[0].columns
    r = Reports()
    for row in (2, 0, 3, 1):
        r.append(cols, row)
    assert [t.index for t in r] == [3, 1, 4, 2]
    r.sort()
    assert [t.index for t in r] == [1, 2, 3, 4]
    r.sort(key=lambda t: -t.index)
    assert [t.index for t in r] == [4, 3, 2, 1]
    # Rows in order are a range (nothing per turn); one out of order makes them an array.
    ordered = Reports()
    for row in range(4):
        ordered.append(cols, row)
    assert isinstance(ordered.rows(), range)
    ordered.append(cols, 0)
    assert not isinstance(ordered.rows(), range) and len(ordered) == 5


def test_markers_set_after_a_turn_was_handed_out_are_read_back() -> None:
    """The analyzer marks a turn `unanswered_call` when the next one arrives: a view made
    before that sees it, as the object did."""
    a = analyze(CLAIMS)
    t = a.turns[1]
    before = list(t.markers)
    t.markers = [*before, "refusal"]
    assert a.turns[1].markers == [*before, "refusal"]
    t.markers = before
    assert a.turns[1].markers == before


def test_counts_past_four_bytes_read_back_exactly(tmp_path: Path) -> None:
    """A billed input past 2**31 tokens (a damaged or synthetic capture): every count
    still reads back exactly, up to the table's LIMIT."""
    big = 3_000_000_000
    path = write(tmp_path / "big.jsonl",
                 [*conv_turn("conv_1", "a", "resp_1", big, 10),
                  *conv_turn("conv_1", "b", "resp_2", big + 7, 10)])
    a = analyze(str(path))
    assert [t.input_tokens for t in a.turns] == [big, big + 7]
    assert [t.cumulative_input_tokens for t in a.turns] == [big, 2 * big + 7]
    assert a.turns[1].expected_input is not None and a.turns[1].expected_input > 2**31
    cols = TurnColumns(None, load(str(path)).table)
    cols.put_row(1, 2**40 - 3, None, 5, 0)
    assert (cols.count("owned_state_bytes", 1), cols.count("expected_input", 1),
            cols.count("cumulative_input_tokens", 1)) == (2**40 - 3, None, 5)
    assert cols.count("owned_state_bytes", 0) is None


def test_latency_over_two_to_the_31_ms_survives() -> None:
    t = Totals()
    for ms, calls in ((5, 0), (2**31 + 1, 0), (7, 0), (3, 1)):
        t.add_turn(True, 10, 0, 1, 0, 100, 100, calls, ms, 0.0, 0.0, 0, [])
    assert sorted(t.latency_plain) == [5, 7, 2**31 + 1]
    assert latency_percentiles(t.latency_plain)["p50"] == 7.0


def test_latency_percentiles_equal_statistics_quantiles() -> None:
    """The counted percentiles are the statistics module's, to the bit (the golden reports
    pin them too)."""
    rng = random.Random(11)
    for size in (0, 1, 2, 3, 7, 100, 101, 2_345):
        values = [rng.choice((rng.randrange(50), rng.randrange(10**6))) for _ in range(size)]
        half = size // 3
        assert latency_percentiles(values[:half], values[half:]) == percentiles(values), size
        if size > 1:
            q = statistics.quantiles(values, n=100, method="inclusive")
            assert latency_percentiles(values)["p95"] == round(q[94], 1)


def test_conversations_are_views_of_columns_and_read_alike() -> None:
    from traceview.analysis.conversation_columns import Conversations
    from traceview.analysis.turn_report import ConversationReport

    gc.collect()
    # Reports other tests in this process still hold are not this analysis's.
    held_before = {id(o) for o in gc.get_objects() if type(o) is ConversationReport}
    a = analyze(str(ROOT / "sample_traces/long_conversation.jsonl"))
    convs = a.conversations
    assert isinstance(convs, Conversations)
    assert len(convs) == len(list(convs)) >= 1
    c = convs[0]
    assert c == convs[0] and hash(c) == hash(convs[0]) and convs[-1] == list(convs)[-1]
    assert [x.key for x in convs[0:1]] == [c.key]
    d = c.to_dict()
    # The compacted turn indices, the totals and the marker counts read back as the dict.
    assert d["turns"] == c.turns == c.turn_indices.tolist() == [t.index for t in a.turns
                                                                if t.conversation_key == c.key]
    assert d["markers"] == c.markers
    assert d["input_tokens"] == c.input_tokens == sum(
        t.input_tokens for t in a.turns if t.conversation_key == c.key
        and t.input_tokens is not None)
    counted: dict[str, int] = {}
    for t in a.turns:
        if t.conversation_key == c.key:
            for m in t.markers:
                counted[m] = counted.get(m, 0) + 1
    assert c.markers == counted
    # No ConversationReport is held by the analysis's turns or conversations: the one read
    # here is the only one (the fidelity pass keeps the conversations it judged).
    del c
    a.fidelity = None
    gc.collect()
    assert [o for o in gc.get_objects()
            if type(o) is ConversationReport and id(o) not in held_before] == []


def test_marker_counts_keep_their_first_counted_order_after_compaction() -> None:
    from traceview.analysis.conversation_columns import ConversationColumns

    cc = ConversationColumns()
    n = cc.add("k", None, "stateless", "f")
    for m in ("retried", "deposit", "retried", "unanswered_call", "deposit", "retried"):
        cc.count_marker(n, m)
    cc.turn_indices[n].extend([1, 2, 5])
    before = cc.marker_counts(n)
    assert list(before.items()) == [("retried", 3), ("deposit", 2), ("unanswered_call", 1)]
    cc.compact()
    assert list(cc.marker_counts(n).items()) == list(before.items())
    assert cc.indices(n).tolist() == [1, 2, 5]
