"""Issue 33, bullets 2-6 on the bundled tenants sample and crafted captures: storage
accrued, embeddings and moderations, attribution, the month projected, budgets, the cost
lines reconcile reads, and the export's new columns."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.cost.helpers import response, turn, web_search, write
from tests.fixtures_shared import SAMPLES, run_cli
from traceview.analysis.cost.lines import cost_lines
from traceview.analysis.session import analyze
from traceview.export.rows import capture_rows

TENANTS = str(SAMPLES / "tenants.jsonl")


@pytest.fixture(scope="module")
def tenants():  # noqa: ANN201 - the analysis
    return analyze([TENANTS])


def tv(*args: str) -> tuple[int, str, str]:
    p = run_cli(*args)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def test_storage_accrued_over_the_store_life(tenants) -> None:  # noqa: ANN001
    (store,) = tenants.cost["storage"]
    # 2.5 GB from its create (08:00:00) to the last turn before its DELETE (08:08:15).
    assert store["days"] == pytest.approx(495 / 86400, abs=1e-6)
    assert store["ended"] == "deleted (line 27)"
    assert store["usd"] == pytest.approx(2.5 * 495 / 86400 * 0.10, abs=1e-6)
    assert store["usd_low"] == pytest.approx(1.5 * 495 / 86400 * 0.10, abs=1e-6)


def test_storage_without_size_is_a_range_and_without_delete_runs_to_the_end(
        tmp_path: Path) -> None:
    t0 = 1764576000
    records = [{"dir": "req", "endpoint": "POST /v1/vector_stores", "body": {"name": "kb"}},
               {"dir": "res", "elapsed_ms": 10, "body": {"id": "vs_1", "object": "vector_store",
                                                          "created_at": t0}},
               *turn({"model": "gpt-4.1", "input": "hi"},
                     response("gpt-4.1", 10, 1, created=t0 + 2 * 86400))]
    a = analyze([str(write(tmp_path / "c.jsonl", records))])
    (store,) = a.cost["storage"]
    assert store["ended"] == "the capture's end" and store["days"] == pytest.approx(2, abs=1e-3)
    assert (store["usd"], store["usd_low"], store["usd_high"]) == (None, 0.0, None)
    assert "no usage_bytes" in store["basis"]


def test_embeddings_and_moderations_priced_and_the_flag_marked(tenants) -> None:  # noqa: ANN001
    emb, mod = tenants.cost["exchanges"]
    assert (emb["kind"], emb["tokens"], emb["usd"]) == ("embeddings", 11, 11 * 0.02 / 1e6)
    assert (mod["kind"], mod["flagged"], mod["categories"]) == ("moderations", True,
                                                                ["harassment"])
    assert tenants.cost["moderation_flagged"] == [
        {"line": 23, "categories": ["harassment"], "guarded_turn": 7}]
    marked = [t.index for t in tenants.turns if "moderation_flagged" in t.markers]
    assert marked == [7]
    assert tenants.totals["markers"]["moderation_flagged"] == 1


def test_attribution_carried_onto_turns_and_grouped(tenants) -> None:  # noqa: ANN001
    t1 = tenants.turns[0].to_dict()["attributed_to"]
    assert t1 == {"metadata": {"tenant": "acme", "case_id": "AC-1001", "feature": "support"},
                  "conversation_metadata": {"tenant": "acme", "case_id": "AC-1001"},
                  "user": "acme-user-7", "safety_identifier": "sid-acme-user-7",
                  "project": None, "organization": None, "project_from": None}
    groups = tenants.cost["attribution"]["groups"]["tenant"]
    assert [(g["value"], g["conversations"], g["turns"], g["carried_tokens"])
            for g in groups] == [("acme", 2, 5, 6370), ("globex", 1, 2, 0)]
    assert sum(g["cost_usd"] for g in groups) == pytest.approx(tenants.totals["cost_usd"],
                                                               abs=1e-5)


def test_cost_lines_sum_to_the_turns_and_storage(tenants) -> None:  # noqa: ANN001
    lines = cost_lines(tenants.turns)
    assert {c.day for c in lines} == {"2025-12-01"}
    assert sum(c.usd for c in lines) == pytest.approx(tenants.totals["cost_usd"], abs=1e-5)
    items = {c.line_item: c for c in lines}
    preview = items["web search preview tool calls (non-reasoning model)"]
    assert (preview.quantity, preview.usd) == (6, pytest.approx(0.15))
    assert "gpt-4o-mini-2024-07-18, input, flex" in items
    report = {(x["day"], x["line_item"]) for x in tenants.cost["lines"]}
    assert ("2025-12-01", "vector store storage") in report
    assert ("2025-12-01", "text-embedding-3-small, embeddings") not in report  # no time


def test_the_seed_projection_line_on_its_own_numbers(tmp_path: Path) -> None:
    """Five conversations, 24 GA web searches on a reasoning model: 4.8 a conversation."""
    records = []
    for c, n in enumerate([5, 5, 5, 5, 4]):
        records += turn({"model": "o4-mini", "input": "q", "tools": [{"type": "web_search"}]},
                        response("o4-mini", 100, 10, output=web_search(n), rid=f"resp_{c}"))
    a = analyze([str(write(tmp_path / "c.jsonl", records))])
    rc, out, _ = tv("report", str(tmp_path / "c.jsonl"), "--format", "json",
                    "--per-month", "30000")
    proj = orjson.loads(out)["cost"]["projection"]
    assert rc == 0 and len(a.conversations) == 5
    assert proj["lines"][0]["arithmetic"] == (
        "4.8 web search tool calls per conversation × 30,000 conversations × $10.00 per "
        "1,000 = $1,440.00")
    assert proj["label"].startswith("projection") and proj["rates"]["trigger_rate"] == 1.0


def test_budget_marks_and_exits_1_when_asked() -> None:
    rc, out, err = tv("report", TENANTS, "--format", "json",
                      "--budget", "usd=0.06,per=conversation", "--fail-over-budget")
    doc = orjson.loads(out)
    assert rc == 1 and "2 conversations over the budget of $0.06" in err
    over = doc["cost"]["budget"]["over"]
    assert [o["first_turn_over"] for o in over] == [2, 4]
    assert [t["index"] for t in doc["turns"] if "over_budget" in t["markers"]] == [2, 4]
    rc, out, _ = tv("report", TENANTS, "--format", "json", "--budget", "usd=1,per=day",
                    "--fail-over-budget")
    assert rc == 0 and orjson.loads(out)["cost"]["budget"]["over"] == []
    rc, _, err = tv("report", TENANTS, "--budget", "usd=lots")
    assert rc == 2 and "is not a number" in err


def test_export_columns_carry_tier_and_attribution() -> None:
    rows = [r for t, r in capture_rows(TENANTS) if t == "turns"]
    assert [r["cost_tier"] for r in rows] == ["default"] * 2 + ["flex"] + ["default"] * 4
    assert orjson.loads(rows[0]["metadata"])["tenant"] == "acme"
    assert (rows[6]["end_user"], rows[6]["safety_identifier"]) == ("globex-user-1",
                                                                   "sid-globex-user-1")


def test_analysis_cost_lines_hold_turns_and_storage_with_the_project(tenants) -> None:  # noqa: ANN001
    from traceview.analysis.cost.section import analysis_cost_lines

    lines = analysis_cost_lines(tenants, project="proj_support")
    assert {c.project for c in lines} == {"proj_support"}
    storage = [c for c in lines if c.line_item == "vector store storage"]
    assert [c.unit for c in storage] == ["GB-day"]
    assert sum(c.usd for c in lines) == pytest.approx(
        tenants.totals["cost_usd"] + tenants.cost["storage"][0]["usd"], abs=1e-5)
