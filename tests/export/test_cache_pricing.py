"""`traceview sql` over captures re-prices them when the pricing file's content changes:
the cache was keyed by the file's name, so an edited price file (same path) answered with
the costs of the old prices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures_shared import ROOT, SAMPLES

pytest.importorskip("duckdb")

BUNDLED = ROOT / "traceview" / "analysis" / "pricing.json"
Q = "SELECT round(sum(cost_usd), 6) AS usd FROM turns"


def _doubled(table: dict) -> dict:
    for prices in table["models"].values():
        for key, value in prices.items():
            prices[key] = value * 2
    return table


def test_an_edited_pricing_file_re_prices_the_cached_captures(tv, tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_bytes(BUNDLED.read_bytes())
    base = ["sql", Q, SAMPLES / "claims.jsonl", "--format", "json", "--cache",
            tmp_path / "cache", "--pricing", prices]
    _, out, _ = tv(*base)
    before = json.loads(out)[0]["usd"]
    prices.write_text(json.dumps(_doubled(json.loads(BUNDLED.read_text()))))
    rc, out, err = tv(*base)
    assert rc == 0, err
    after = json.loads(out)[0]["usd"]
    _, report, _ = tv("report", SAMPLES / "claims.jsonl", "--pricing", prices, "--format", "json")
    assert after != before
    assert after == pytest.approx(json.loads(report)["totals"]["cost_usd"])
