"""A response's hosted calls are kept in call columns (capture/calls.py): calls set out of
row order (a view's write, kept apart in `changed`) must count exactly as calls stored in
order — markers, hosted calls, fees and latency buckets alike."""

from __future__ import annotations

from traceview.analysis.analyzer import Analyzer
from traceview.capture.model import HostedCall, RequestFacts, ResponseFacts, Turn, new_turn
from traceview.capture.table import TurnTable

CALLS = (HostedCall("web_search_call", "ws_1", "completed", "missing",
                    "web_search_call.action.sources", ("q",)),
         HostedCall("file_search_call", "fs_1", "completed", "captured", None, ("r",)))


def _turns(later: bool) -> list[Turn]:
    """Two turns; the first one's calls stored with its row, or set after the second."""
    t = TurnTable()
    turns = []
    for i in (1, 2):
        res = ResponseFacts(f"resp_{i}", status="completed", model="gpt-4.1",
                            input_tokens=100, output_tokens=10, elapsed_ms=500)
        if i == 2:
            res.hosted_calls = CALLS[1:]
        elif not later:
            res.hosted_calls = CALLS
        turns.append(new_turn(i, 0, i, "responses", req=RequestFacts(model="gpt-4.1"), res=res,
                          table=t))
    if later:
        turns[0].res.hosted_calls = CALLS  # a row before the last: kept in `changed`
        assert t.responses.dicts["hosted_calls"].changed
    return turns


def _analysed(later: bool) -> tuple:
    an = Analyzer()
    reps = [an.add(t, "c.jsonl") for t in _turns(later)]
    tot = an.totals
    return ([r.markers for r in reps], tot.hosted_calls, round(tot.hosted_fees_usd, 6),
            len(tot.latency_hosted), [c.hosted_calls for c in an.conversations()])


def test_calls_set_out_of_order_count_as_calls_stored_in_order() -> None:
    stored = _analysed(later=False)
    assert "evidence_missing" in stored[0][0] and "evidence_missing" not in stored[0][1]
    assert stored[1:4] == (3, 0.015, 2)  # calls, their fees, turns with calls
    assert _analysed(later=True) == stored
