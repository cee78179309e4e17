"""Columns of the exported `turns` table, each with the value it carries on the claims sample.

`cost_hosted_usd` is the hosted tool fees alone (file_search: $2.50 per 1,000 calls, so
$0.0025 on each turn that searched), `cost_tokens_usd` the tokens alone, and `cost_usd`
their sum.
"""

from __future__ import annotations

import csv

from tests.fixtures_shared import SAMPLES


def test_cost_hosted_usd_is_the_file_search_fee(tv, tmp_path) -> None:
    rc, _, err = tv("export", SAMPLES / "claims.jsonl", "--to", "csv", "-o", tmp_path)
    assert rc == 0, err
    with open(tmp_path / "turns.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["capture_index"] for r in rows] == ["1", "2", "3", "4"]
    assert [float(r["cost_hosted_usd"]) for r in rows] == [0.0, 0.0025, 0.0, 0.0025]
    assert [float(r["cost_tokens_usd"]) for r in rows] == [0.00546, 0.004868, 0.012044,
                                                          0.008216]
    for r in rows:
        assert abs(float(r["cost_usd"]) - float(r["cost_tokens_usd"])
                   - float(r["cost_hosted_usd"])) < 1e-12
