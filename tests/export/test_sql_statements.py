"""`traceview sql` runs exactly one statement: an empty query (blank, `;`, only comments)
and several statements are each one line and exit 2, nothing on stdout, rather than a
traceback or the last statement's result passed off as the answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES

pytest.importorskip("duckdb")

CLAIMS = SAMPLES / "claims.jsonl"


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.mark.parametrize("sql", ["", " ", ";", ";;", "-- c", "/* x */", "\n;\n-- c\n"])
def test_an_empty_query_is_refused(tv, cache: Path, sql: str) -> None:
    rc, out, err = tv("sql", sql, CLAIMS, "--cache", cache)
    assert (rc, out, err) == (2, "", "traceview sql: no SQL statement given\n")


def test_more_than_one_statement_is_refused(tv, cache: Path) -> None:
    rc, out, err = tv("sql", "SELECT 1; SELECT 2", CLAIMS, "--cache", cache)
    assert (rc, out) == (2, "")
    assert err == ("traceview sql: 2 SQL statements given; traceview sql runs one query at "
                   "a time (combine them with WITH … or run one command per statement)\n")


@pytest.mark.parametrize("sql", ["SELECT count(*) AS n FROM turns;",
                                 "-- how many\nSELECT count(*) AS n FROM turns -- turns"])
def test_one_statement_with_a_semicolon_or_comments_runs(tv, cache: Path, sql: str) -> None:
    rc, out, _ = tv("sql", sql, CLAIMS, "--cache", cache, "--format", "csv")
    assert (rc, out) == (0, "n\n4\n")
