"""``traceview reconcile --costs FILE``: the remainder arithmetic on a crafted capture, and
saved pages good and malformed (docs/reconcile.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reconcile_data import PROJECT, bill_lines, costs_page, crafted_capture
from traceview.cli import main
from traceview.report.reconcile import line_key


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["reconcile", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    return crafted_capture(tmp_path / "cap.jsonl")


def save(path: Path, doc: object) -> str:
    path.write_text(json.dumps(doc))
    return str(path)


def rows_of(out: str) -> dict[tuple[str, str, str], dict[str, object]]:
    doc = json.loads(out)
    return {(r["day"], r["project_id"], r["line_item"]): r for r in doc["rows"]}


def test_line_keys_bring_both_sides_to_one_grain() -> None:
    assert line_key("gpt-4.1-2025-04-14, cached input") == "gpt-4.1 tokens"
    assert line_key("gpt-4.1, tokens") == "gpt-4.1 tokens"
    assert line_key("Web Search Tool Calls") == "hosted tools"
    assert line_key("Vector store storage") == "vector store storage"
    assert line_key(None) == "(all line items)"


def test_remainder_arithmetic_pinned(capsys: pytest.CaptureFixture[str], capture: Path,
                                     tmp_path: Path) -> None:
    lines = bill_lines() + [("2026-12-01", PROJECT, "web search tool calls", 0.025)]
    costs = save(tmp_path / "costs.json", costs_page(lines))
    code, out, err = run(capsys, str(capture), "--costs", costs, "--project", PROJECT,
                         "--format", "json")
    assert code == 1, err  # the web search fee is beyond tolerance, unexplained
    rows = rows_of(out)
    day1 = rows[("2026-12-01", PROJECT, "gpt-4.1 tokens")]
    assert (day1["attributed_usd"], day1["billed_usd"], day1["remainder_usd"]) == \
        (0.036, 0.036, 0.0)
    assert day1["status"] == "reconciled"
    tool = rows[("2026-12-01", PROJECT, "hosted tools")]
    assert (tool["attributed_usd"], tool["billed_usd"], tool["remainder_usd"]) == \
        (0.0, 0.025, 0.025)
    assert tool["status"] == "beyond"
    assert any("other workloads" in r for r in tool["reasons"])
    day2 = rows[("2026-12-02", PROJECT, "gpt-4.1-mini tokens")]
    # Without usage pages nothing measures the missing request: beyond, sign +.
    assert (day2["attributed_usd"], day2["billed_usd"], day2["remainder_usd"]) == \
        (0.056, 0.112, 0.056)
    doc = json.loads(out)
    assert doc["totals"] == {"attributed_usd": 0.092, "billed_usd": 0.173,
                             "remainder_usd": 0.081}
    assert any("other projects" in n and "$1.500000" in n for n in doc["notes"])


def test_usage_pages_explain_the_uncaptured_request(capsys: pytest.CaptureFixture[str],
                                                    capture: Path, tmp_path: Path) -> None:
    from tests.reconcile_data import usage_lines

    usage = {"object": "page", "has_more": False, "next_page": None, "data": [
        {"object": "bucket", "start_time": 1796083200 + 86_400 * i, "end_time": 0,
         "results": [{"object": "organization.usage.completions.result", "project_id": p,
                      **f} for d, p, f in usage_lines() if d.endswith(f"0{i + 1}")]}
        for i in range(2)]}
    costs = save(tmp_path / "costs.json", costs_page(bill_lines()))
    used = save(tmp_path / "usage.json", usage)
    code, out, err = run(capsys, str(capture), "--costs", costs, "--costs", used,
                         "--project", PROJECT, "--format", "json")
    assert code == 0, out + err
    day2 = rows_of(out)[("2026-12-02", PROJECT, "gpt-4.1-mini tokens")]
    assert day2["status"] == "explained"
    assert "counted 2 gpt-4.1-mini requests" in day2["reasons"][-1]
    assert "come to $0.056000" in day2["reasons"][-1]


def test_without_project_the_bill_is_summed_over_projects(
        capsys: pytest.CaptureFixture[str], capture: Path, tmp_path: Path) -> None:
    """A capture that records no project and is given none: its lines are the (unknown)
    project's, compared with every project's bill, and the output says so."""
    costs = save(tmp_path / "costs.json", costs_page(bill_lines()))
    code, out, _ = run(capsys, str(capture), "--costs", costs, "--format", "json")
    rows = rows_of(out)
    assert code == 1
    other = rows[("2026-12-02", "(unknown)", "gpt-4o tokens")]
    assert (other["billed_usd"], other["attributed_usd"]) == (1.5, 0.0)
    assert other["billed_scope"] == "every project (the capture names none)"
    assert rows[("2026-12-01", "(unknown)", "gpt-4.1 tokens")]["remainder_usd"] == 0.0
    doc = json.loads(out)
    assert doc["projects"]["named"] == [] and doc["projects"]["unknown_lines"] == 5
    assert any(n.startswith("5 capture line(s) name no project") for n in doc["notes"])


def test_text_and_markdown_tables(capsys: pytest.CaptureFixture[str], capture: Path,
                                  tmp_path: Path) -> None:
    costs = save(tmp_path / "costs.json", costs_page(bill_lines()))
    _, text, _ = run(capsys, str(capture), "--costs", costs, "--project", PROJECT)
    assert "remainder = billed − attributed" in text
    assert "2026-12-02  proj_claims  gpt-4.1-mini tokens    0.056000  0.112000" \
           "  +0.056000  beyond" in text
    _, md, _ = run(capsys, str(capture), "--costs", costs, "--project", PROJECT,
                   "--format", "markdown")
    assert "| 2026-12-01 | proj_claims | gpt-4.1 tokens | 0.036000 | 0.036000 | +0.000000 " \
           "| reconciled |" in md


def test_saved_pages_ending_with_has_more_are_partial(
        capsys: pytest.CaptureFixture[str], capture: Path, tmp_path: Path) -> None:
    page = costs_page(bill_lines(), has_more=True, days=("2026-12-01",))
    costs = save(tmp_path / "costs.json", page)
    code, out, err = run(capsys, str(capture), "--costs", costs, "--project", PROJECT)
    assert code == 2
    assert "PARTIAL" in out and "read only in part" in err and "has_more" in err
    assert "2026-12-02  proj_claims  gpt-4.1-mini tokens    0.056000         —" \
           "          —  unknown" in out


@pytest.mark.parametrize(("content", "said"), [
    ("{not json", "costs.json:1: not JSON"),
    ('{"object": "page"}', "costs.json is not a page"),
    (json.dumps({"object": "page", "data": [{"start_time": 1796083200, "results": [
        {"object": "organization.costs.result", "amount": {"value": "0.1"}}]}]}),
     "costs.json.data[0].results[0].amount.value must be a number, not '0.1'"),
    ('{"object": "page", "data": []}\n{"data": [{"start_time": "x"}]}\n',
     "costs.json:2.data[0].start_time must be Unix seconds"),
    (json.dumps({"object": "page", "data": [{"start_time": 1796083200, "results": [
        {"object": "list"}]}]}), "results[0].object is 'list'"),
])
def test_malformed_pages_name_file_and_key(capsys: pytest.CaptureFixture[str], capture: Path,
                                           tmp_path: Path, content: str, said: str) -> None:
    path = tmp_path / "costs.json"
    path.write_text(content)
    code, out, err = run(capsys, str(capture), "--costs", str(path))
    assert code == 2
    assert out == ""
    assert said in err, err


def test_missing_costs_file(capsys: pytest.CaptureFixture[str], capture: Path,
                            tmp_path: Path) -> None:
    code, out, err = run(capsys, str(capture), "--costs", str(tmp_path / "nope.json"))
    assert (code, out) == (2, "")
    assert "nope.json: cannot read" in err


def test_line_keys_of_the_cost_sections_names() -> None:
    assert line_key("gpt-4.1, input, flex") == "gpt-4.1 tokens (flex)"
    assert line_key("text-embedding-3-small, embeddings") == "text-embedding-3-small tokens"
    assert line_key("image generation") == "hosted tools"
    assert line_key("code interpreter sessions (1g)") == "hosted tools"


def test_the_cost_sections_lines_are_used_when_present() -> None:
    """The seam with analysis/cost: its lines (storage included) replace the per-turn ones."""
    from types import SimpleNamespace

    from traceview.report.reconcile import BilledLine, BillRead, reconcile
    from traceview.report.reconcile_lines import capture_side

    turn = SimpleNamespace(ts="2026-12-01T01:00:00Z", model="gpt-4.1", input_tokens=10,
                           cost_usd=0.5, cost={"tokens_usd": 0.5, "hosted_usd": 0.0})
    analysis = SimpleNamespace(turns=[turn], cost={"lines": [
        {"day": "2026-12-01", "project": None, "line_item": "gpt-4.1, input", "usd": 0.3},
        {"day": "2026-12-01", "project": None, "line_item": "gpt-4.1, output", "usd": 0.2},
        {"day": "2026-12-01", "project": None, "line_item": "vector store storage",
         "usd": 0.1},
        {"day": None, "project": None, "line_item": "moderations", "usd": 0.0}]})
    side = capture_side(analysis)
    assert side.undated == 1 and side.requests == {("2026-12-01", None, "gpt-4.1"): 1}
    bill = BillRead([BilledLine("2026-12-01", "p", "gpt-4.1-2025-04-14, input", 0.5),
                     BilledLine("2026-12-01", "p", "vector store storage", 0.1)],
                    [], {"2026-12-01"}, True, ["test"])
    rows = {r.line: r for r in reconcile(side.lines, bill).rows}
    assert (rows["gpt-4.1 tokens"].attributed, rows["gpt-4.1 tokens"].remainder) == (0.5, 0.0)
    assert rows["vector store storage"].status == "reconciled"


def test_a_key_in_a_saved_page_is_masked(capsys: pytest.CaptureFixture[str], capture: Path,
                                         tmp_path: Path) -> None:
    secret = "sk-admin-LEAKED0123456789abcdefghij"
    lines = bill_lines() + [("2026-12-01", PROJECT, f"note {secret}", 0.001)]
    costs = save(tmp_path / "costs.json", costs_page(lines))
    for fmt in ("text", "json", "markdown"):
        _, out, err = run(capsys, str(capture), "--costs", costs, "--format", fmt)
        assert "LEAKED" not in out + err


def test_the_readme_example(capsys: pytest.CaptureFixture[str]) -> None:
    """README's `reconcile` line on the bundled sample and saved page: reconciled, exit 0."""
    root = Path(__file__).parents[2]
    code, out, err = run(capsys, str(root / "sample_traces/service_day.jsonl"), "--costs",
                         str(root / "tests/fixtures/reconcile/service_day.costs.json"),
                         "--project", "proj_service", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    # Attributed: $0.003301 summing each turn's rounded price, $0.003300 from the cost
    # section's lines (priced by part): either is within a millionth of the bill.
    assert [(r["line_item"], r["billed_usd"], r["status"]) for r in doc["rows"]] == \
        [("gpt-4o-mini tokens", 0.0033, "reconciled"), ("hosted tools", 0.01, "reconciled")]
    assert [r["attributed_usd"] for r in doc["rows"]] == \
        [pytest.approx(0.0033, abs=1.5e-6), 0.01]
    assert any("$0.420000" in n for n in doc["notes"])
    assert any("outside the capture's days" in n and "$0.002100" in n for n in doc["notes"])


def test_an_unpriced_turn_leaves_its_row_unknown_and_exits_1(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tests.builders import req, res, response, write

    cap = write(tmp_path / "cap.jsonl", [
        req({"model": "gpt-unpriced", "input": "hi"}),
        res(response("resp_1", 100, 10, model="gpt-unpriced", created_at=1796083200.0))])
    costs = save(tmp_path / "costs.json",
                 costs_page([("2026-12-01", None, "gpt-unpriced, input", 0.5)],
                            days=("2026-12-01",)))
    code, out, err = run(capsys, str(cap), "--costs", costs, "--format", "json")
    assert code == 1
    (row,) = json.loads(out)["rows"]
    assert (row["attributed_usd"], row["billed_usd"], row["remainder_usd"], row["status"]) == \
        (None, 0.5, None, "unknown")
    assert "1 row(s) have an unknown remainder" in err


def test_a_day_billed_without_line_items_is_compared_as_one_total() -> None:
    from traceview.report.reconcile import BilledLine, BillRead, reconcile
    from traceview.report.reconcile_lines import TurnCostLine

    lines = [TurnCostLine("2026-12-01", None, "gpt-4.1, tokens", 0.3),
             TurnCostLine("2026-12-01", None, "hosted tools", 0.2),
             TurnCostLine("2026-12-02", None, "gpt-4.1, tokens", 0.1)]
    bill = BillRead([BilledLine("2026-12-01", None, None, 0.5)], [],
                    {"2026-12-01", "2026-12-02"}, True, ["test"])
    rows = [(r.day, r.line, r.attributed, r.billed) for r in reconcile(lines, bill).rows]
    # Day 1 has a total only; day 2's empty bucket billed nothing, line by line.
    assert rows == [("2026-12-01", "(all line items)", 0.5, 0.5),
                    ("2026-12-02", "gpt-4.1 tokens", 0.1, 0.0)]
