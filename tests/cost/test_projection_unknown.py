"""`--per-month` never projects a month that costs $0 from a capture that gives no cost to
scale: with no turn priced (a model not in the pricing table) or no conversation at all,
the token cost per conversation and the total are null and the arithmetic says why (they
read "$0.0000 of tokens per conversation … total: $0.0000", while totals.cost_usd was null)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.cost.helpers import response, write
from tests.fixtures_shared import SAMPLES
from traceview.analysis.cost.volume import Budget
from traceview.cli import main


def _projection(capsys, *argv: str) -> dict:
    assert main(["report", *argv, "--format", "json", "--per-month", "1000"]) == 0
    return orjson.loads(capsys.readouterr().out)["cost"]["projection"]


def test_no_turn_priced_projects_an_unknown_cost(tmp_path: Path, capsys) -> None:
    records = [{"dir": "req", "body": {"model": "gpt-nobody-knows", "input": "hi"}},
               {"dir": "res", "body": response("gpt-nobody-knows", 100, 10)}]
    proj = _projection(capsys, str(write(tmp_path / "c.jsonl", records)))
    assert proj["total_usd"] is None
    assert proj["rates"]["token_usd_per_conversation"] is None
    assert proj["lines"][-1]["usd"] is None
    assert "not in the pricing table" in proj["total_arithmetic"]


def test_no_conversation_projects_nothing(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    proj = _projection(capsys, str(empty))
    assert proj["total_usd"] is None
    assert proj["rates"]["turns_per_conversation"] is None
    assert "no conversation" in proj["total_arithmetic"]


def test_a_priced_capture_projects_as_before(capsys) -> None:
    proj = _projection(capsys, str(SAMPLES / "tenants.jsonl"))
    assert proj["total_usd"] == 51.02 and proj["rates"]["cost_unknown_turns"] == 0


@pytest.mark.parametrize("value", ["0", "-3", str(10**13), "1e23"])
def test_per_month_out_of_range_is_a_usage_error(value: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A month's conversations from 1 to a trillion: past that the dollar amounts are
    float noise, not a projection."""
    with pytest.raises(SystemExit) as ended:
        main(["report", str(SAMPLES / "claims.jsonl"), f"--per-month={value}"])
    assert ended.value.code == 2
    assert "--per-month" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["usd=1,per=day,usd=2", "usd=1,garbage", "usd=1,,per=day"])
def test_a_budget_with_a_repeated_or_bare_field_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="--budget"):
        Budget.parse(text)


def test_a_budget_reads_both_fields() -> None:
    assert Budget.parse("usd=2.5,per=day") == Budget(2.5, "day")
    assert Budget.parse("usd=3") == Budget(3.0, "conversation")


def test_a_partly_priced_capture_projects_a_lower_bound_and_says_so(tmp_path: Path,
                                                                    capsys) -> None:
    """An unpriced turn adds nothing to the token cost per conversation: the month is at
    least the projected amount, and the line and the total say how many turns were left
    out, instead of a total that reads as the whole month."""
    records = [{"dir": "req", "body": {"model": "gpt-4.1", "input": "hi"}},
               {"dir": "res", "body": response("gpt-4.1", 1000, 100, rid="resp_1")},
               {"dir": "req", "body": {"model": "gpt-nobody-knows", "input": "hi"}},
               {"dir": "res", "body": response("gpt-nobody-knows", 1000, 100, rid="resp_2")}]
    proj = _projection(capsys, str(write(tmp_path / "c.jsonl", records)))
    token = proj["lines"][-1]
    # gpt-4.1: 1,000 × $2.00/1M + 100 × $8.00/1M = $0.0028 over 2 conversations
    assert proj["rates"]["token_usd_per_conversation"] == 0.0014
    assert proj["rates"]["cost_unknown_turns"] == 1
    assert token["usd"] == 1.4 and proj["total_usd"] == 1.4
    assert "1 of the capture's 2 turns is not priced" in token["arithmetic"]
    assert proj["total_arithmetic"] == "$1.40 = $1.40, a lower bound (unpriced turns)"
