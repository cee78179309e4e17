"""The per-turn rules at their boundaries, each with the value it turns on.

A deposit is `unexplained ≥ max(deposit_min_tokens = 500, deposit_ratio = 0.25 × expected)`:
exactly at the threshold is a deposit, one token below is not. `compaction_likely` needs
billed input to fall (`billed < previous − compaction_min_drop`, default 0): billed input
that stays equal is not a compaction. A `/responses/compact` call is an explicit
compaction by the call alone, without a compaction item in its output. Read through the
JSON report, the contract every screen and export shares.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders import conv_turn, message, req, res, usage, write
from traceview.cli import main


def report(path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> list[dict[str, Any]]:
    assert main(["report", "--format", "json", str(path)]) == 0
    return orjson.loads(capsysbinary.readouterr().out)["turns"]


def two_turns(tmp_path: Path, first_input: int, second_input: int) -> Path:
    """Turn 2 expects turn 1's billed input + its 100 output tokens + 3 (that answer framed
    as input) + 6 for "and then" (2 tokens in o200k + message framing)."""
    return write(tmp_path / "c.jsonl",
                 conv_turn("conv_1", "hello there", "r1", first_input, 100)
                 + conv_turn("conv_1", "and then", "r2", second_input, 100))


@pytest.mark.parametrize(("billed", "deposit"), [(1106 + 500, True), (1106 + 499, False)])
def test_deposit_at_exactly_the_minimum_tokens(tmp_path, capsysbinary, billed, deposit):
    """Expected 1,106: 25 % of it is 276, so the 500-token minimum is the threshold."""
    second = report(two_turns(tmp_path, 997, billed), capsysbinary)[1]
    assert second["expected_input"] == 1106
    assert second["unexplained_tokens"] == billed - 1106
    assert ("deposit" in second["markers"]) is deposit


@pytest.mark.parametrize(("billed", "deposit"), [(10104 + 2526, True), (10104 + 2525, False)])
def test_deposit_at_exactly_a_quarter_of_expected(tmp_path, capsysbinary, billed, deposit):
    """Expected 10,104: a quarter of it, 2,526 tokens, is above the 500 minimum."""
    second = report(two_turns(tmp_path, 9995, billed), capsysbinary)[1]
    assert second["expected_input"] == 10104
    assert ("deposit" in second["markers"]) is deposit


@pytest.mark.parametrize(("billed", "likely"), [(1000, False), (999, True)])
def test_compaction_likely_needs_billed_input_to_fall(tmp_path, capsysbinary, billed, likely):
    second = report(two_turns(tmp_path, 1000, billed), capsysbinary)[1]
    assert second["input_tokens"] == billed
    assert ("compaction_likely" in second["markers"]) is likely
    assert "compaction" not in second["markers"]


def test_a_compact_call_without_a_compaction_item_is_a_compaction(tmp_path, capsysbinary):
    endpoint = "POST /v1/responses/compact"
    path = write(tmp_path / "c.jsonl", conv_turn("conv_1", "hello there", "r1", 1000, 100) + [
        req({"model": "gpt-4o-mini", "input": [{"role": "user", "content": "hello there"}]},
            endpoint=endpoint),
        res({"id": "r2", "object": "response", "status": "completed", "created_at": 2.0,
             "output": [message("summary")], "usage": usage(900, 50)}, endpoint=endpoint)])
    second = report(path, capsysbinary)[1]
    assert second["api"] == "compact"
    assert second["markers"] == ["compaction"]
