"""Issue 33: the markdown report carries the text report's cost section — attribution
groups, storage accrued, embeddings and moderations, flagged moderations, the month
projected and the budget — from the same `cost` section as `report --format json`."""

from __future__ import annotations

import orjson

from tests.cost.test_bill_sections import TENANTS, tv

ASKED = ("--per-month", "30000", "--budget", "usd=0.06,per=conversation")


def test_markdown_report_has_the_cost_section_pinned_on_tenants() -> None:
    rc, md, _ = tv("report", TENANTS, "--format", "markdown", *ASKED)
    assert rc == 0
    cost = md[md.index("\n## Cost\n"):]
    assert "### Cost by tenant\n" in cost
    assert "| acme | 2 | 5 | 6,370 | $0.0007 | $0.1527 |" in cost
    assert "| globex | 1 | 2 | 0 | $0.0000 | $0.0003 |" in cost
    assert ("- vector store vs_692d4b00cb36c80bf611de55de2a6e9a: storage accrued $0.0014 "
            "over 0.005729 days, deleted (line 27)") in cost
    assert "- 1 embeddings (11 tokens) and 1 moderations priced: <$0.0001" in cost
    assert "- moderation at line 23 flagged harassment: guarded turn 7" in cost
    assert ("- 2.0 web search preview tool calls (non-reasoning model) per conversation × "
            "30,000 conversations × $25.00 per 1,000 = $1,500.00") in cost
    assert "- **total:** $1,500.00 + $30.60 = $1,530.60" in cost
    assert "budget $0.06 per conversation: 2 over:" in cost
    assert ("- conv_692d4bff767c24180b83c0721e53c1a36123106409d0ba3b: $0.0762 (over by "
            "$0.0162; from turn 4)") in cost


def test_markdown_cost_is_the_json_cost_section() -> None:
    """Every group the JSON report attributes is a row of the markdown table, and the
    projection's arithmetic is the JSON's, word for word."""
    _, md, _ = tv("report", TENANTS, "--format", "markdown", *ASKED)
    _, js, _ = tv("report", TENANTS, "--format", "json", *ASKED)
    section = orjson.loads(js)["cost"]
    for key, groups in section["attribution"]["groups"].items():
        if any(g["value"] is not None for g in groups):
            assert f"### Cost by {key}\n" in md
            for g in groups:
                assert f"| {g['value'] or '(none)'} | {g['conversations']} | {g['turns']} |" in md
    for line in section["projection"]["lines"]:
        assert f"- {line['arithmetic']}\n" in md
    rc, plain, _ = tv("report", TENANTS, "--format", "markdown")
    assert rc == 0 and "### Volume projection" not in plain and "### Budget" not in plain
    assert "### Cost by tenant" in plain


def test_a_store_whose_life_is_unknown_says_why_not_question_mark_days() -> None:
    rc, text, _ = tv("report", "sample_traces/claims.jsonl", "--format", "markdown")
    assert rc == 0
    assert ("- vector store vs_68a1c0claims2024policy: storage accrued unknown (no creation "
            "time in the capture: the store's life is unknown)") in text
    assert "? days" not in text
