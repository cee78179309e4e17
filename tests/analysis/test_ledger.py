"""The carried-context ledger: what a deposit costs on every later turn, until compaction."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders import file_search, message, req, res, response, write
from traceview.analysis import analyze
from traceview.capture.table import TurnTable

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"


def test_claims_turn2_file_search_is_carried_into_turns_3_and_4_with_its_cost() -> None:
    a = analyze(str(SAMPLES / "claims.jsonl"))
    conv = a.conversations[0].to_dict()["carried_context"]
    [src] = conv["sources"]
    assert src["kind"] == "deposit" and src["origin_turns"] == [2]
    assert src["types"] == ["file_search_call"] and src["evidence_missing"] is True
    assert src["tokens_per_turn"] == 4001
    assert [(c["turn"], c["tokens"], c["cost_usd"]) for c in src["charges"]] == [
        (3, 4001, 0.006368),  # 1,664 of 6,110 cached on turn 3
        (4, 4001, 0.002515),  # 6,016 of 6,580 cached on turn 4: mostly at the cached price
    ]
    assert src["later_turns"] == 1 and src["tokens_rebilled"] == 4001
    assert conv["tokens"] == 8002 and conv["cost_usd"] == 0.008882
    assert conv["share_of_cost"] == 0.2496  # of the conversation's $0.035588
    assert "apportioned" in conv["apportioned"]
    t3, t4 = a.turn(3).to_dict(), a.turn(4).to_dict()
    assert t3["carried_context"]["arrived"] == ["deposit@3"]
    assert t4["carried_context"]["tokens"] == 4001
    assert a.turn(2).to_dict()["carried_context"]["tokens"] == 0
    assert any("re-billed on 1 later turn: ≈ 4,001 tokens, ≈ $0.0025" in s
               for s in t3["explanation"])
    assert any(s.startswith("Carries ≈ 4,001 tokens") for s in t4["explanation"])


def test_growth_has_cumulative_input_owned_bytes_and_a_labelled_projection() -> None:
    a = analyze(str(SAMPLES / "claims.jsonl"))
    g = a.conversations[0].to_dict()["carried_context"]["growth"]
    assert g["cumulative_input_tokens"] == 15590 and g["owned_state_bytes"] == 6156
    turns = [a.turn(i).to_dict() for i in (1, 2, 3, 4)]
    assert [t["cumulative_input_tokens"] for t in turns] == [1210, 2900, 9010, 15590]
    assert [t["owned_state_bytes"] for t in turns] == [410, 2533, 4682, 6156]
    p = g["projection"]
    assert p["label"].startswith("projection")
    assert p["tokens_per_turn_growth"] == 2053.0
    assert [n["input_tokens"] for n in p["next"]] == [9030, 11083, 13136]


def _deposit_conv(tmp_path: Path, *, later_tools: list[dict], compaction: bool = False) -> Path:
    conv = "conv_L"
    tools = [{"type": "file_search", "vector_store_ids": ["vs_old"]}]
    recs = [
        req({"model": "gpt-4o-mini", "conversation": conv, "input": "q1", "tools": tools}),
        res(response("r1", 1000, 100, conv=conv, output=[file_search("fs_1"), message("a")])),
        req({"model": "gpt-4o-mini", "conversation": conv, "input": "q2", "tools": tools}),
        res(response("r2", 5100, 100, conv=conv)),  # +4,000 unexplained: the deposit
        req({"model": "gpt-4o-mini", "conversation": conv, "input": "q3", "tools": later_tools}),
        res(response("r3", 5200, 100, conv=conv, cached=5000)),
    ]
    if compaction:
        recs += [req({"model": "gpt-4o-mini", "conversation": conv, "input": "q4"}),
                 res(response("r4", 900, 100, conv=conv)),  # fell: compaction likely
                 req({"model": "gpt-4o-mini", "conversation": conv, "input": "q5"}),
                 res(response("r5", 1010, 100, conv=conv))]
    return write(tmp_path / "c.jsonl", recs)


@pytest.mark.parametrize(("later", "reason"), [
    ([], "file_search no longer offered"),
    ([{"type": "file_search", "vector_store_ids": ["vs_new"]}], "vs_new, not vs_old"),
])
def test_context_outliving_its_tool_configuration_is_flagged(tmp_path: Path, later: list,
                                                             reason: str) -> None:
    a = analyze(str(_deposit_conv(tmp_path, later_tools=later)))
    out = a.turn(3).to_dict()["carried_context"]["outlived_tools"]
    assert len(out) == 1 and reason in out[0]["reason"]
    assert a.turn(2).to_dict()["carried_context"]["outlived_tools"] == []
    assert any("outlives its tool configuration" in s for s in a.turn(3).explanation)


def test_vector_stores_of_a_request_not_scanned_are_read_from_its_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ledger reads a request's vector stores from the turn table (found as its line
    was read); a request whose bytes were not scanned there (a rebuilt stream, say) is
    read again, and tells the same configurations apart."""
    monkeypatch.setattr(TurnTable, "request_ids", lambda _table, _row: None)
    later = [{"type": "file_search", "vector_store_ids": ["vs_new"]}]
    a = analyze(str(_deposit_conv(tmp_path, later_tools=later)))
    [out] = a.turn(3).to_dict()["carried_context"]["outlived_tools"]
    assert "vs_new, not vs_old" in out["reason"]


def test_same_tool_configuration_is_not_flagged(tmp_path: Path) -> None:
    tools = [{"type": "file_search", "vector_store_ids": ["vs_old"]}]
    a = analyze(str(_deposit_conv(tmp_path, later_tools=tools)))
    assert a.turn(3).to_dict()["carried_context"]["outlived_tools"] == []


def test_compaction_ends_the_carry(tmp_path: Path) -> None:
    a = analyze(str(_deposit_conv(tmp_path, later_tools=[], compaction=True)))
    [src] = a.conversations[0].to_dict()["carried_context"]["sources"]
    assert [c["turn"] for c in src["charges"]] == [2, 3]
    assert src["ended_by"] == {"turn": 4, "kind": "compaction_likely"}
    assert a.turn(4).to_dict()["carried_context"]["tokens"] == 0
    assert a.turn(5).to_dict()["carried_context"]["tokens"] == 0
    # the projection is fitted on turns since the compaction only
    g = a.conversations[0].to_dict()["carried_context"]["growth"]
    assert g["projection"]["fitted_turns"] == 2


def test_captured_hosted_results_below_the_deposit_threshold_are_carried(tmp_path: Path) -> None:
    conv = "conv_S"
    results = [{"file_id": "f", "filename": "p.md", "score": 0.9, "text": "small"}]
    recs = [
        req({"model": "gpt-4o-mini", "conversation": conv, "input": "q1",
             "tools": [{"type": "file_search", "vector_store_ids": ["vs_1"]}]}),
        res(response("r1", 1000, 100, conv=conv, output=[file_search("fs_1", results),
                                                         message("a")])),
        # The same tools each turn: the file_search definition's size is unknown, and only
        # an unchanged tool set leaves the change from turn to turn known.
        req({"model": "gpt-4o-mini", "conversation": conv, "input": "q2",
             "tools": [{"type": "file_search", "vector_store_ids": ["vs_1"]}]}),
        res(response("r2", 1300, 100, conv=conv)),  # +~190: too small to be a deposit
        req({"model": "gpt-4o-mini", "conversation": conv, "input": "q3",
             "tools": [{"type": "file_search", "vector_store_ids": ["vs_1"]}]}),
        res(response("r3", 1420, 100, conv=conv)),
    ]
    a = analyze(str(write(tmp_path / "s.jsonl", recs)))
    [src] = a.conversations[0].to_dict()["carried_context"]["sources"]
    assert src["kind"] == "hosted_result" and src["hosted_calls"] == ["fs_1"]
    assert src["arrived_turn"] == 2 and [c["turn"] for c in src["charges"]] == [2, 3]
    assert src["tokens_per_turn"] == a.turn(2).unexplained_tokens > 0


def test_conversation_without_hosted_state_carries_nothing() -> None:
    a = analyze(str(SAMPLES / "claims_owned_state.jsonl"))
    for c in a.conversations:
        cc = c.to_dict()["carried_context"]
        assert cc["tokens"] == 0 and cc["sources"] == []


def test_the_projection_line_is_the_least_squares_fit() -> None:
    import statistics

    from traceview.analysis.hosted.growth import line

    x, y = [1, 2, 3, 5, 8], [1000, 1890, 3110, 4975, 8012]
    want = statistics.linear_regression(x, y)
    assert line(x, y) == (want.slope, want.intercept)
