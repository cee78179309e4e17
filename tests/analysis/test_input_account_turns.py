"""The input account in the analysis: each case of issue 30 on a crafted capture.

Billed input is set from the account itself (`sized`) plus what the case adds, so each
test states which surplus or shortfall the analysis must explain, and pins the numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.builders import message, req, res, response, write
from tests.fixtures_shared import run_cli
from traceview.analysis import analyze
from traceview.analysis.account import account

MODEL = "gpt-4.1"
WHEN = 1767225600  # 2026-01-01: after the provider preamble the constants leave out
SCHEMA = {"type": "json_schema", "name": "answer", "strict": True, "schema": {
    "type": "object", "properties": {"verdict": {"type": "string", "enum": ["yes", "no"]},
                                     "reason": {"type": "string"}},
    "required": ["verdict", "reason"], "additionalProperties": False}}
WEATHER = {"type": "function", "name": "get_weather", "description": "Weather for a city",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}


def sized(body: dict[str, Any]) -> int:
    """The account's sum for a fully visible request."""
    total = account(body, MODEL).expected
    assert total is not None
    return total


def reply(rid: str, inp: int | None, out: int, **extra: Any) -> dict[str, Any]:
    return res(response(rid, inp, out, model=MODEL, created_at=WHEN, **extra))


def test_a_store_false_tool_loop_resending_its_reasoning_is_not_a_deposit(tmp_path: Path) -> None:
    ask = {"role": "user", "content": "What is the weather in Paris?"}
    call = {"type": "function_call", "call_id": "call_1", "name": "get_weather",
            "arguments": "{\"city\":\"Paris\"}", "id": "fc_1"}
    thought = {"type": "reasoning", "id": "rs_1", "summary": [],
               "encrypted_content": "gAAAA" + "x" * 4000}
    first = {"model": MODEL, "store": False, "tools": [WEATHER], "input": [ask],
             "include": ["reasoning.encrypted_content"]}
    loop = {**first, "input": [ask, thought, call,
                               {"type": "function_call_output", "call_id": "call_1",
                                "output": "{\"temp_c\": 18}"}]}
    # The second request carries the first turn's reasoning (1,350 tokens) itself.
    billed = sized({**loop, "input": [ask, call, loop["input"][3]]}) + 1350
    recs = [req(first), reply("r1", sized(first), 1400, reasoning=1350,
                              output=[thought, call]),
            req(loop), reply("r2", billed, 20)]
    t1, t2 = analyze(str(write(tmp_path / "loop.jsonl", recs))).turns
    [line] = [c for c in t2.input_account if c["component"] == "reasoning"]
    assert (line["tokens"], line["basis"], line["source_turn"]) == (1350, "known", 1)
    assert t2.expected_input == billed == 1425 and t2.unexplained_tokens == 0
    assert "deposit" not in t2.markers


def test_a_hosted_turn_that_stops_sending_its_schema_is_not_a_compaction(
        tmp_path: Path) -> None:
    first = {"model": MODEL, "input": "Is flood damage covered?",
             "text": {"format": SCHEMA}}
    second = {"model": MODEL, "previous_response_id": "r1", "input": "Thanks, and theft?"}
    schema = next(c.tokens for c in account(first, MODEL).components
                  if c.component == "response_format")
    words = next(c.tokens for c in account(second, MODEL).components if c.component == "message")
    inp1 = sized(first)
    # The schema no longer billed; the 12-token answer carried (+3: framed as input).
    inp2 = inp1 - schema + 12 + 3 + words
    recs = [req(first), reply("r1", inp1, 12), req(second), reply("r2", inp2, 30)]
    t1, t2 = analyze(str(write(tmp_path / "schema.jsonl", recs))).turns
    assert (schema, inp1, inp2) == (36, 48, 36)
    assert t2.input_tokens < t1.input_tokens and t2.unexplained_tokens == 0
    assert "compaction_likely" not in t2.markers and "deposit" not in t2.markers


def test_a_function_schema_added_on_a_hosted_turn_is_not_a_deposit(tmp_path: Path) -> None:
    big = {"type": "function", "name": "file_claim", "description": "File a claim. " * 60,
           "parameters": {"type": "object", "properties": {
               f"field_{i}": {"type": "string", "description": f"The claim's field {i}"}
               for i in range(40)}}}
    first = {"model": MODEL, "input": "Hello", "tools": [WEATHER]}
    second = {"model": MODEL, "previous_response_id": "r1", "input": "File it",
              "tools": [WEATHER, big]}
    added = next(c.tokens for c in account(second, MODEL).components if c.name == "file_claim")
    inp1 = sized(first)
    recs = [req(first), reply("r1", inp1, 10),
            req(second), reply("r2", inp1 + 10 + 3 + added + 6, 10)]
    t2 = analyze(str(write(tmp_path / "tools.jsonl", recs))).turns[1]
    assert added == 777 and t2.unexplained_tokens == 0 and t2.markers == []


def test_a_turn_that_cannot_be_compacted_is_never_compaction_likely(tmp_path: Path) -> None:
    body = {"model": MODEL, "store": False, "previous_response_id": "r1", "input": "more"}
    recs = [req({"model": MODEL, "store": False, "input": "start"}), reply("r1", 5000, 10),
            req(body), reply("r2", 900, 10)]
    t2 = analyze(str(write(tmp_path / "unstored.jsonl", recs))).turns[1]
    assert t2.unexplained_tokens < -4000
    assert "compaction_likely" not in t2.markers and "unstored_chain" in t2.markers
    auto = {**body, "truncation": "auto"}
    recs[2] = req(auto)
    t2 = analyze(str(write(tmp_path / "auto.jsonl", recs))).turns[1]
    assert "compaction_likely" in t2.markers


def test_zero_usage_on_a_turn_with_output_is_unknown_not_zero(tmp_path: Path) -> None:
    first = {"model": MODEL, "conversation": "conv_1", "input": "hi"}
    recs = [req(first), reply("r1", 0, 0, conv="conv_1", output=[message("partial answer")]),
            req({**first, "input": "again"}), reply("r2", 400, 10, conv="conv_1")]
    t1, t2 = analyze(str(write(tmp_path / "zeros.jsonl", recs))).turns
    assert t1.input_tokens is None and t1.output_tokens is None
    assert t1.to_dict()["cost_usd"] is None  # not $0.0000
    assert t2.expected_input is None  # not built on the zeros


def test_a_chain_that_resends_its_history_is_billed_twice_and_marked(tmp_path: Path) -> None:
    q1 = {"role": "user", "content": "Summarise the policy"}
    a1 = {"role": "assistant", "content": "It covers flood and fire damage to the home."}
    q2 = {"role": "user", "content": "And theft?"}
    first = {"model": MODEL, "input": [q1]}
    second = {"model": MODEL, "previous_response_id": "r1", "input": [q1, a1, q2]}
    inp1 = sized(first)
    resent = sum(c.tokens or 0 for c in account(second, MODEL).components[2:4])
    recs = [req(first), reply("r1", inp1, 14),
            # the chain's answer (14 + 3 framed as input), and the input items again
            req(second), reply("r2", inp1 + 14 + 3 + sized(
                {"model": MODEL, "input": [q1, a1, q2]}) - 3, 10)]
    t2 = analyze(str(write(tmp_path / "twice.jsonl", recs))).turns[1]
    assert "history_resent" in t2.markers and t2.unexplained_tokens == 0
    assert t2.analysis_context["history_resent"] == {"tokens": resent, "items": 2}
    assert resent == 23


def test_a_cache_lost_after_the_instructions_changed(tmp_path: Path) -> None:
    first = {"model": MODEL, "conversation": "conv_1", "instructions": "Be brief.",
             "input": "hi"}
    second = {**first, "instructions": "Be brief and polite.", "input": "again"}
    recs = [req(first), reply("r1", 10000, 10, conv="conv_1", cached=9000),
            req(second), reply("r2", 10016, 10, conv="conv_1", cached=0)]
    t2 = analyze(str(write(tmp_path / "cache.jsonl", recs))).turns[1]
    assert "cache_lost" in t2.markers
    lost = t2.analysis_context["cache_lost"]
    assert lost == {"changed": ["instructions"], "previous_share": 0.9, "share": 0.0,
                    "tokens": 9014, "usd": 0.013521}


def test_the_context_command_prints_the_stack(tmp_path: Path) -> None:
    first = {"model": MODEL, "input": "Is flood damage covered?", "text": {"format": SCHEMA}}
    path = write(tmp_path / "one.jsonl", [req(first), reply("r1", sized(first), 12)])
    run = ["context", str(path), "--turn", "1"]

    def ok(*args: str) -> str:
        out = run_cli(*args)
        assert out.returncode == 0, out.stderr
        return out.stdout.decode()

    doc = json.loads(ok(*run, "--format", "json"))
    assert doc["schema"] == "traceview.context/1" and doc["expected_input"] == 48
    assert [(c["component"], c["tokens"]) for c in doc["input_account"]] == [
        ("request", 3), ("response_format", 36), ("message", 9)]
    text = ok(*run)
    assert "response_format  answer" in text and "expected 48" in text
    md = ok(*run, "--format", "markdown")
    assert "| response_format | answer | 36 |" in md
    missing = run_cli(*run[:-1], "7")
    assert missing.returncode == 2 and b"no turn 7" in missing.stderr


def test_a_reusable_prompt_is_listed_and_its_text_unknown(tmp_path: Path) -> None:
    body = {"model": MODEL, "prompt": {"id": "pmpt_1", "version": "2",
                                       "variables": {"city": "Paris"}}}
    t = analyze(str(write(tmp_path / "prompt.jsonl", [req(body), reply("r1", 300, 10)]))
                ).turns[0]
    lines = {(c["component"], c["name"]): (c["tokens"], c["basis"]) for c in t.input_account}
    assert lines[("prompt", "pmpt_1@2")] == (None, "unknown")
    assert lines[("prompt_variable", "city")] == (1, "known")
    assert t.expected_input is None and "reusable prompt" in t.expected_input_unknown


def test_a_conversation_created_empty_carries_nothing_on_its_first_turn() -> None:
    """pai_conversation_streaming (real, MIT: tests/fixtures/real): POST /v1/conversations
    with no items, then a first turn billed 21 = framing 3 + instructions 10 + message 8."""
    root = Path(__file__).resolve().parents[1] / "fixtures" / "real"
    t = analyze(str(root / "pai_conversation_streaming.jsonl")).turns[0]
    [carried] = [c for c in t.input_account if c["component"] == "carried"]
    assert (carried["tokens"], carried["basis"]) == (0, "known")
    assert t.expected_input == t.input_tokens == 21 and t.unexplained_tokens == 0


def test_a_hosted_turn_with_nothing_earlier_says_why_its_expectation_is_unknown(
        tmp_path: Path) -> None:
    """The first turn the capture holds of a conversation the capture did not create empty
    (the claims sample's turn 1) or of a chain: what the provider held is not in the
    capture. Its expected input is null, and `expected_input_unknown` says why."""
    recs = [req({"model": MODEL, "conversation": "conv_1", "input": "Is flood covered?"}),
            reply("r1", 900, 40, conversation={"id": "conv_1"}),
            req({"model": MODEL, "previous_response_id": "r0", "input": "And fire?"}),
            reply("r2", 700, 30)]
    for t in analyze(str(write(tmp_path / "first.jsonl", recs))).turns:
        assert t.expected_input is None and t.unexplained_tokens is None
        assert t.expected_input_unknown is not None
        assert "not in the capture" in t.expected_input_unknown
