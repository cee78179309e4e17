"""A large capture's Parquet rows are written by workers forked from its analysis: the
files read back in name order are the one-process export's rows, and the command's own
process loads neither pyarrow (export, sql's cache) nor DuckDB before the rows are written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES

pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("duckdb")

CAPTURE = str(SAMPLES / "service_day.jsonl")  # 12 turns in 7 conversations, a hosted call

# Run in a fresh process (one thread: workers may fork), with parts of 2 turns and any
# capture counted as large. Prints what the command's own process had loaded.
_RUN = """
import json, sys
from traceview.export import cache, parts
parts.MIN_TURNS, parts.SPAN_TURNS, parts.SPAN_CONVERSATIONS = 1, 2, 1
seen = {}
refresh = cache.Cache.refresh
def watched(self, files):
    keys = refresh(self, files)
    seen["after_refresh"] = ["duckdb" in sys.modules, "pyarrow" in sys.modules]
    return keys
cache.Cache.refresh = watched
from traceview.cli import main
rc = main(sys.argv[1:])
seen["rc"] = rc
seen["end"] = ["duckdb" in sys.modules, "pyarrow" in sys.modules]
print(json.dumps(seen), file=sys.stderr)
"""


def _run(*args: str, workers: str = "2") -> dict:
    proc = subprocess.run([sys.executable, "-c", _RUN, *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "TRACEVIEW_WORKERS": workers})
    return json.loads(proc.stderr.strip().splitlines()[-1])


def _rows(out: Path) -> dict[str, list[dict]]:
    """Every table's rows, its files read in name order (partitions included)."""
    return {t: [r for f in sorted((out / t).glob("**/*.parquet"))
                for r in pq.read_table(f).to_pylist()]
            for t in ("turns", "conversations", "problems", "hosted_calls")}


def test_parts_written_by_workers_are_the_one_process_rows(tmp_path: Path) -> None:
    forked, alone = tmp_path / "forked", tmp_path / "alone"
    seen = _run("export", CAPTURE, "--to", "parquet", "-o", str(forked))
    assert seen["rc"] == 0 and seen["end"] == [False, False]  # no pyarrow here: in workers
    assert _run("export", CAPTURE, "--to", "parquet", "-o", str(alone), workers="1")["rc"] == 0
    got, want = _rows(forked), _rows(alone)
    assert [len(got[t]) for t in got] == [12, 7, 0, 1]
    assert got == want
    names = sorted(p.name for p in (forked / "turns").glob("**/*.parquet"))
    assert names == [f"part-0-{k:05d}.parquet" for k in range(6)]  # 6 spans of 2 turns
    # the empty table still has its file (made by a worker), so its schema reads back
    (problems,) = (forked / "problems").iterdir()
    assert pq.read_schema(problems).names[:2] == ["source", "line"]


def test_sql_cache_written_by_workers_before_duckdb_loads(tmp_path: Path) -> None:
    q = "SELECT count(*) AS n, sum(input_tokens) AS billed FROM turns"
    seen = _run("sql", q, CAPTURE, "--cache", str(tmp_path), "--format", "csv")
    assert seen["rc"] == 0
    assert seen["after_refresh"] == [False, False]  # the cache written: nothing loaded yet
    assert seen["end"] == [True, False]  # DuckDB for the query; pyarrow never
    assert list((tmp_path / "fleet.query").iterdir()) == []  # the query's copies removed


def test_a_damaged_capture_written_by_workers_keeps_its_problems(tmp_path: Path) -> None:
    """The problems are written by the last part (a worker): the same rows as alone."""
    capture = str(SAMPLES / "damaged.jsonl")
    forked, alone = tmp_path / "forked", tmp_path / "alone"
    seen = _run("export", capture, "--to", "parquet", "-o", str(forked))
    assert seen["rc"] == 1 and seen["end"] == [False, False]  # written by workers
    assert _run("export", capture, "--to", "parquet", "-o", str(alone), workers="1")["rc"] == 1
    got = _rows(forked)
    assert [len(got[t]) for t in got] == [4, 4, 4, 0]
    assert got == _rows(alone)
    (calls,) = (forked / "hosted_calls").iterdir()  # no call: a worker made its empty file
    assert pq.read_table(calls).schema.equals(
        pq.read_table(next((alone / "hosted_calls").iterdir())).schema, check_metadata=True)
