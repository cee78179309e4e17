"""Every number and marker rule of the analysis, on small explicit captures."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.builders import conv_turn, file_search, message, req, res, response, write
from traceview.analysis import Options, analyze
from traceview.analysis.stats import percentiles


def _claims(tmp_path: Path, include: list[str] | None = None, results=None) -> Path:
    recs = (conv_turn("conv_1", "My washing machine flooded", "r1", 1210, 380, tools=True)
            + conv_turn("conv_1", "Is accidental damage covered?", "r2", 1690, 402, tools=True,
                        output=[file_search("fs_1", results), message("yes")], include=include)
            + conv_turn("conv_1", "What's the excess I would pay on this claim?", "r3", 6110,
                        290, tools=True, cached=1024))
    return write(tmp_path / "claims.jsonl", recs)


def test_expected_input_and_deposit_attributed_to_earlier_file_search(tmp_path: Path) -> None:
    a = analyze(str(_claims(tmp_path)))
    t1, t2, t3 = a.turns
    assert t1.expected_input is None and t1.unexplained_tokens is None
    # previous billed input + previous visible output (+3: the answer framed as input) +
    # the new message in o200k (the file_search definition, unknown, is offered on both
    # turns: it cancels out)
    assert [(c["component"], c["tokens"]) for c in t3.input_account
            if c["component"] == "message"] == [("message", 14)]
    assert t3.expected_input == 1690 + 402 + 3 + 14
    assert t3.unexplained_tokens == 6110 - t3.expected_input
    assert "deposit" in t3.markers and "deposit" not in t2.markers
    assert t3.attribution["turn"] == 2 and t3.attribution["hosted_calls"] == ["fs_1"]
    assert t3.attribution["include"] == ["file_search_call.results"]
    assert any("file_search_call.results" in s and "turn 2" in s for s in t3.explanation)


def test_evidence_states_and_include_flag(tmp_path: Path) -> None:
    missing = analyze(str(_claims(tmp_path))).turns[1].hosted_calls[0]
    assert (missing["evidence"], missing["include"]) == ("missing", "file_search_call.results")
    (tmp_path / "b").mkdir()
    empty = analyze(str(_claims(tmp_path / "b", results=[]))).turns[1]
    assert empty.hosted_calls[0]["evidence"] == "empty"
    assert "evidence_missing" not in empty.markers
    (tmp_path / "c").mkdir()
    got = analyze(str(_claims(tmp_path / "c", ["file_search_call.results"],
                              [{"file_id": "f", "text": "policy"}]))).turns[1]
    assert got.hosted_calls[0]["evidence"] == "captured"


def test_reasoning_tokens_are_not_visible_output(tmp_path: Path) -> None:
    recs = [req({"model": "o3-mini", "input": "a"}),
            res(response("r1", 100, 500, reasoning=400, model="o3-mini")),
            req({"model": "o3-mini", "input": "b", "previous_response_id": "r1"}),
            res(response("r2", 210, 10, model="o3-mini"))]
    t2 = analyze(str(write(tmp_path / "c.jsonl", recs))).turns[1]
    # billed 100 + visible 100 (500 - 400 reasoning) + 3 (the answer framed as input) + "b"
    # in o200k with message framing (1 + 4)
    assert t2.expected_input == 100 + 100 + 3 + 5


@pytest.mark.parametrize("min_tokens,ratio,marked", [(500, 0.25, True), (5000, 0.25, False),
                                                    (500, 5.0, False)])
def test_deposit_thresholds_are_options(tmp_path: Path, min_tokens, ratio, marked) -> None:
    a = analyze(str(_claims(tmp_path)), Options(deposit_min_tokens=min_tokens,
                                                deposit_ratio=ratio))
    assert ("deposit" in a.turns[2].markers) is marked


def test_compaction_likely_vs_explicit(tmp_path: Path) -> None:
    chain = []
    prev = None
    for i, (inp, extra) in enumerate([(6110, {}), (6530, {}), (6980, {}), (4120, {})], 1):
        body = {"model": "gpt-4o", "input": f"turn {i}"}
        if prev:
            body["previous_response_id"] = prev
        chain += [req(body), res(response(f"r{i}", inp, 300, **extra))]
        prev = f"r{i}"
    a = analyze(str(write(tmp_path / "likely.jsonl", chain)))
    assert [t.markers for t in a.turns][-1] == ["compaction_likely"]
    assert all("compaction_likely" not in t.markers for t in a.turns[:3])
    explicit = chain[:6] + [
        req({"model": "gpt-4o", "input": "t4", "previous_response_id": "r3",
             "context_management": [{"type": "compaction", "compact_threshold": 4000}]}),
        res(response("r4", 4120, 300, output=[{"type": "compaction", "id": "cmp_1",
                                               "encrypted_content": "x"}, message("ok")])),
        req({"model": "gpt-4o", "input": "t5", "previous_response_id": "r4"}),
        res(response("r5", 3000, 300))]
    b = analyze(str(write(tmp_path / "explicit.jsonl", explicit)))
    assert b.turns[3].markers == ["compaction"]
    assert "compaction_likely" not in b.turns[4].markers  # explained by the compaction before


def test_status_and_half_turn_markers(tmp_path: Path) -> None:
    recs = [req({"model": "m", "input": "a"}),
            res(response("r1", 10, 5, status="incomplete",
                          incomplete_details={"reason": "max_output_tokens"})),
            req({"model": "m", "input": "b"}),
            res(response("r2", None, None, status="failed",
                          error={"code": "server_error", "message": "boom"})),
            req({"model": "m", "input": "c"}),
            req({"model": "m", "input": "d"}), res(response("r4", 1, 1)),
            res(response("r5", 1, 1))]
    a = analyze(str(write(tmp_path / "c.jsonl", recs)))
    assert [t.markers for t in a.turns] == [["incomplete"], ["failed"], ["request_only"], [],
                                            ["response_only"]]
    assert a.turns[1].input_tokens is None and a.turns[1].cost_usd is None


def test_tool_offered_unused_only_for_hosted_tools(tmp_path: Path) -> None:
    recs = [req({"model": "gpt-4o", "input": "a", "tools": [
        {"type": "function", "name": "f"}, {"type": "file_search", "vector_store_ids": []}]}),
        res(response("r1", 10, 5))]
    t = analyze(str(write(tmp_path / "c.jsonl", recs))).turns[0]
    assert t.tools_offered == ["function", "file_search"]
    assert t.markers == ["tool_offered_unused"]


def test_owned_state_bytes_add_earlier_inputs_and_outputs(tmp_path: Path) -> None:
    recs = conv_turn("conv_1", "first question", "r1", 10, 5) + conv_turn(
        "conv_1", "second", "r2", 20, 5)
    a = analyze(str(write(tmp_path / "c.jsonl", recs)))
    t1, t2 = a.turns
    assert t1.owned_state_bytes == t1.request_bytes
    out1 = len(orjson.dumps(recs[1]["body"]["output"]))
    in1 = len(orjson.dumps([{"role": "user", "content": "first question"}]))
    assert t2.owned_state_bytes == t2.request_bytes + in1 + out1


def test_cost_known_model_unknown_model_and_hosted_fees(tmp_path: Path) -> None:
    recs = [req({"model": "gpt-4o-mini", "input": "a"}),
            res(response("r1", 1_000_000, 1_000_000, cached=500_000,
                         model="gpt-4o-mini-2024-07-18", output=[file_search(), message("x")])),
            req({"model": "secret-model", "input": "b"}),
            res(response("r2", 10, 10, model="secret-model"))]
    a = analyze(str(write(tmp_path / "c.jsonl", recs)))
    t1, t2 = a.turns
    tokens = 500_000 * 0.15 / 1e6 + 500_000 * 0.075 / 1e6 + 1_000_000 * 0.60 / 1e6
    assert t1.cost["tokens_usd"] == pytest.approx(tokens)
    assert t1.cost["hosted_usd"] == pytest.approx(0.0025)
    assert t1.cost_usd == pytest.approx(tokens + 0.0025)
    assert t2.cost_usd is None and "not in the pricing table" in t2.cost["reason"]
    assert a.totals["cost_unknown_turns"] == 1


def test_pricing_file_override(tmp_path: Path) -> None:
    prices = tmp_path / "p.json"
    prices.write_text('{"taken": "2030-01-01", "models": {"secret-model": '
                      '{"input": 1, "cached_input": 1, "output": 1}}}')
    recs = [req({"model": "secret-model", "input": "b"}),
            res(response("r2", 1_000_000, 0, model="secret-model"))]
    a = analyze(str(write(tmp_path / "c.jsonl", recs)), Options(pricing_path=str(prices)))
    assert a.turns[0].cost_usd == pytest.approx(1.0)


def test_conversations_grouped_even_when_interleaved(tmp_path: Path) -> None:
    recs = (conv_turn("conv_A", "a1", "ra1", 10, 5) + conv_turn("conv_B", "b1", "rb1", 10, 5)
            + [req({"model": "m", "input": "c1"}), res(response("rc1", 10, 5))]
            + conv_turn("conv_A", "a2", "ra2", 20, 5)
            + [req({"model": "m", "input": "c2", "previous_response_id": "rc1"}),
               res(response("rc2", 20, 5))]
            + [req({"model": "m", "input": [{"role": "user", "content": "s1"}]}),
               res(response("rs1", 5, 5))]
            + [req({"model": "m", "input": [{"role": "user", "content": "s1"},
                                            message("ok"), {"role": "user", "content": "s2"}]}),
               res(response("rs2", 9, 5))]
            + [req({"model": "m", "input": [{"role": "user", "content": "other"}]}),
               res(response("rx", 5, 5))])
    a = analyze(str(write(tmp_path / "c.jsonl", recs)))
    got = [(c.kind, c.turns) for c in a.conversations]
    assert got == [("conversation", [1, 4]), ("conversation", [2]), ("chain", [3, 5]),
                   ("stateless", [6, 7]), ("stateless", [8])]
    # A stateless turn's new input is only what follows the model's last item.
    assert a.turns[6].new_input_estimate < a.turns[5].new_input_estimate + 10


def test_totals_and_latency_split_by_hosted_tools(tmp_path: Path) -> None:
    a = analyze(str(_claims(tmp_path)))
    tot = a.totals
    assert tot["turns"] == 3 and tot["input_tokens"] == 1210 + 1690 + 6110
    assert tot["hosted_calls"] == 1
    assert tot["latency_ms"]["with_hosted_tools"] == {"p50": 1000.0, "p95": 1000.0}
    assert percentiles([]) == {"p50": None, "p95": None}
    assert percentiles([100, 200, 300, 400]) == {"p50": 250.0, "p95": 385.0}


def test_cumulative_billed_input_per_conversation(tmp_path: Path) -> None:
    a = analyze(str(_claims(tmp_path)))
    assert [t.cumulative_input_tokens for t in a.turns] == [1210, 2900, 9010]


def test_analyze_accepts_a_loaded_capture(tmp_path: Path) -> None:
    from traceview.capture import load

    path = str(_claims(tmp_path))
    again = analyze(load(path))
    assert [t.to_dict() for t in again.turns] == [t.to_dict() for t in analyze(path).turns]


def test_stream_cut_and_cancelled_markers(tmp_path: Path) -> None:
    final = response("r1", 10, 5)
    recs = [req({"model": "m", "input": "a", "stream": True}),
            {"dir": "res", "events": [{"type": "response.created", "sequence_number": 0,
                                       "response": {**final, "usage": None}}]},
            req({"model": "m", "input": "b", "background": True}),
            res(response("r2", None, None, status="cancelled"))]
    a = analyze(str(write(tmp_path / "c.jsonl", recs)))
    assert [t.markers for t in a.turns] == [["stream_cut"], ["cancelled"]]
    assert a.turns[0].input_tokens is None
    assert any("terminal event" in s for s in a.turns[0].explanation)


def test_report_states_which_numbers_are_estimates(tmp_path: Path) -> None:
    doc = analyze(str(_claims(tmp_path))).to_report()
    assert "4 bytes" in doc["estimates"]["new_input_estimate"]
    assert set(doc["estimates"]) == {"expected_input", "new_input_estimate", "unexplained_tokens",
                                     "media_input", "caller_elapsed_ms", "input_account"}
    assert "2025-10" in doc["estimates"]["media_input"]


def test_the_sent_sentence_counts_words_as_every_number_reads() -> None:
    """A real 2,092-word prompt-cache request: thousands separated, as the numbers beside
    it are (it read "(2092 words)")."""
    from tests.fixtures_shared import REAL

    turn = analyze(str(REAL / "pai_responses_prompt_cache.jsonl")).turns[0]
    assert turn.user_words == 2092
    assert "Sent 13.1 kB (2,092 words)." in turn.explanation


def test_a_one_word_message_is_one_word(tmp_path: Path) -> None:
    path = write(tmp_path / "c.jsonl", [req({"model": "gpt-4o-mini", "input": "hello"}),
                                         res(response("resp_1", 10, 2))])
    turn = analyze(str(path)).turns[0]
    assert turn.user_words == 1
    assert "Sent 39 B (1 word)." in turn.explanation
