"""`traceview sql --format json` writes every DuckDB value type a query can return: an
interval, a time of day and a UUID (alone or in a list or struct) were a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES

pytest.importorskip("duckdb")

CLAIMS = SAMPLES / "claims.jsonl"


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.mark.parametrize(("expr", "value"), [
    ("INTERVAL 3 DAY", "3 days, 0:00:00"),
    ("TIME '12:30:01'", "12:30:01"),
    ("'6f1e0c1a-6c2b-4e63-9a55-1d7b0e0b2a10'::UUID", "6f1e0c1a-6c2b-4e63-9a55-1d7b0e0b2a10"),
    ("[INTERVAL 1 DAY]", ["1 day, 0:00:00"]),
    ("{'t': TIME '01:02:03'}", {"t": "01:02:03"}),
])
def test_each_value_type_is_written_as_json(tv, cache: Path, expr: str, value: object) -> None:
    rc, out, err = tv("sql", f"SELECT {expr} AS v", CLAIMS, "--cache", cache,
                      "--format", "json")
    assert (rc, json.loads(out)) == (0, [{"v": value}]), err


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown"])
def test_the_same_values_in_the_other_formats(tv, cache: Path, fmt: str) -> None:
    rc, out, _ = tv("sql", "SELECT INTERVAL 3 DAY AS i, TIME '12:30:01' AS t", CLAIMS,
                    "--cache", cache, "--format", fmt)
    assert rc == 0 and "3 days, 0:00:00" in out and "12:30:01" in out


@pytest.mark.parametrize(("expr", "value"), [
    ("'nan'::DOUBLE", None), ("1e308 * 10", None), ("-1e308 * 10", None),
    ("['nan'::DOUBLE, 1.5]", [None, 1.5]), ("{'x': 'inf'::FLOAT}", {"x": None}),
])
def test_nan_and_infinity_are_null_in_strict_json(tv, cache: Path, expr: str,
                                                   value: object) -> None:
    rc, out, _ = tv("sql", f"SELECT {expr} AS v", CLAIMS, "--cache", cache, "--format", "json")

    def refuse(token: str) -> None:
        raise ValueError(f"not JSON: {token}")
    assert rc == 0
    assert json.loads(out, parse_constant=refuse) == [{"v": value}]


def test_columns_of_one_name_are_each_kept_in_json(tv, cache: Path) -> None:
    sql = ("SELECT t.source, c.source, 3 AS source_1 FROM turns t "
           "JOIN conversations c ON t.conversation_key = c.key LIMIT 1")
    rc, out, _ = tv("sql", sql, CLAIMS, "--cache", cache, "--format", "json")
    row = json.loads(out)[0]
    assert rc == 0 and list(row) == ["source", "source_2", "source_1"]
    assert row["source"] == row["source_2"] is not None
    assert row["source_1"] == 3
