"""`traceview sql` over captures: an incremental cache; and the optional extras' messages."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.export.cache import Cache

Q = "SELECT source, count(*) AS n FROM turns GROUP BY source ORDER BY source"


def _counts(tv, src: Path, cache: Path) -> dict[str, int]:
    rc, out, err = tv("sql", Q, src, "--format", "json", "--cache", cache)
    assert rc == 0, err
    return {Path(r["source"]).name: r["n"] for r in json.loads(out)}


def test_cache_reads_only_what_changed(tv, tmp_path: Path) -> None:
    caps = tmp_path / "caps"
    caps.mkdir()
    for name in ("claims.jsonl", "service_day.jsonl", "long_conversation.jsonl"):
        shutil.copy(SAMPLES / name, caps / name)
    cache = tmp_path / "cache"
    first = _counts(tv, caps, cache)
    assert first == {"claims.jsonl": 4, "long_conversation.jsonl": 8, "service_day.jsonl": 12}

    c = Cache(cache)
    files = sorted(str(p) for p in caps.iterdir())
    c.refresh(files)
    assert c.read == []  # nothing changed: nothing re-read
    os.utime(caps / "claims.jsonl", ns=(1, 1))  # touched, same bytes: hashed, not re-read
    c.refresh(files)
    assert c.read == []
    with open(caps / "claims.jsonl", "ab") as f:  # a turn appended: that file only
        f.write((SAMPLES / "claims.jsonl").read_bytes().splitlines(keepends=True)[-2])
        f.write((SAMPLES / "claims.jsonl").read_bytes().splitlines(keepends=True)[-1])
    c.refresh(files)
    assert [Path(p).name for p in c.read] == ["claims.jsonl"]
    c.close()

    (caps / "service_day.jsonl").unlink()
    assert _counts(tv, caps, cache) == {"claims.jsonl": 5, "long_conversation.jsonl": 8}
    # Another question over one file: the cache holds the others but the views show one.
    assert _counts(tv, caps / "claims.jsonl", cache) == {"claims.jsonl": 5}


def test_cache_follows_analysis_options(tv, tmp_path: Path) -> None:
    q = "SELECT count(*) AS n FROM turns WHERE list_contains(markers, 'deposit')"
    base = ["sql", q, SAMPLES / "claims.jsonl", "--format", "json", "--cache", tmp_path]
    _, out, _ = tv(*base)
    assert json.loads(out) == [{"n": 1}]
    _, out, _ = tv(*base, "--deposit-min-tokens", "100000")
    assert json.loads(out) == [{"n": 0}]


@pytest.mark.parametrize("module,argv,extra", [
    ("pyarrow", ["export", SAMPLES / "claims.jsonl", "--to", "parquet", "-o", "{tmp}/o"],
     "fleet"),
    ("duckdb", ["sql", "SELECT 1", SAMPLES / "claims.jsonl", "--cache", "{tmp}/c"], "fleet"),
    ("distributed", ["export", SAMPLES / "claims.jsonl", "--to", "parquet", "-o", "{tmp}/o",
                     "--dask", "local:2"], "cluster"),
])
def test_missing_extra_names_it(tv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                module: str, argv: list, extra: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # import now raises ImportError
    args = [str(a).replace("{tmp}", str(tmp_path)) for a in argv]
    rc, out, err = tv(*args)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1
    assert f"pip install 'traceview[{extra}]'" in err


def test_export_bad_inputs(tv, tmp_path: Path) -> None:
    rc, _, err = tv("export", tmp_path / "nope.jsonl", "--to", "csv", "-o", tmp_path / "o")
    assert rc == 2 and "nope.jsonl: no such file or directory" in err  # as `sql` says it
    assert not (tmp_path / "o").exists()
    rc, _, err = tv("export", SAMPLES / "claims.jsonl", "--to", "xml", "-o", tmp_path)
    assert rc == 2 and "choose one of parquet, duckdb, csv, otlp" in err
    rc, _, err = tv("export", SAMPLES / "claims.jsonl", "--to", "parquet")
    assert rc == 2 and "needs an output" in err
    rc, _, err = tv("export", SAMPLES / "claims.jsonl", "--to", "parquet", "-o", tmp_path / "p",
                    "--partition-by", "colour")
    assert rc == 2 and "cannot partition by colour" in err


def test_an_unusable_cache_is_one_line(tv, tmp_path: Path) -> None:
    """A cache whose catalog is not one (damaged, or some other file) is a message."""
    (tmp_path / "fleet.json").write_bytes(b"not a catalog at all" * 100)
    rc, out, err = tv("sql", "SELECT 1", SAMPLES / "claims.jsonl", "--cache", tmp_path)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "fleet.json: not a traceview cache catalog" in err


def test_cache_rows_are_parquet_segments_and_a_replaced_one_goes(tv, tmp_path: Path) -> None:
    """The cache holds its rows as Parquet files (small row groups, never a DuckDB table
    built in memory); a capture read again gets a new segment and the old one is removed,
    and a segment deleted by hand is read again, not queried as missing."""
    cap = tmp_path / "claims.jsonl"
    shutil.copy(SAMPLES / "claims.jsonl", cap)
    cache = tmp_path / "cache"
    assert _counts(tv, cap, cache) == {"claims.jsonl": 4}
    first = sorted(p.name for p in (cache / "fleet.parts").iterdir())
    assert len(first) == 1
    assert sorted(p.name for p in (cache / "fleet.parts" / first[0]).iterdir()) == [
        "conversations", "hosted_calls", "problems", "turns"]
    with open(cap, "ab") as f:
        f.write(b"".join((SAMPLES / "claims.jsonl").read_bytes().splitlines(True)[-2:]))
    assert _counts(tv, cap, cache) == {"claims.jsonl": 5}
    second = sorted(p.name for p in (cache / "fleet.parts").iterdir())
    assert len(second) == 1 and second != first
    shutil.rmtree(cache / "fleet.parts" / second[0] / "turns")
    rc, out, err = tv("sql", Q, cap, "--format", "json", "--cache", cache)
    assert rc == 0 and json.loads(out)[0]["n"] == 5 and "1 read" in err


def test_a_query_cannot_write_into_the_cache_or_an_export(tv, tmp_path: Path,
                                                          samples_export: Path) -> None:
    """The locked connection may open only the query's own copies of the tables' files: a
    COPY cannot overwrite a cache segment or plant a file in an export folder, and the
    cache's files cannot be read by name."""
    cache = tmp_path / "cache"
    assert _counts(tv, SAMPLES / "claims.jsonl", cache) == {"claims.jsonl": 4}
    (seg,) = (cache / "fleet.parts").iterdir()
    target = seg / "turns" / "rows.parquet"
    before = target.read_bytes()
    rc, _, err = tv("sql", f"COPY (SELECT 1 AS x) TO '{target}' (USE_TMP_FILE false)",
                    SAMPLES / "claims.jsonl", "--cache", cache)
    assert rc == 2 and target.read_bytes() == before
    planted = samples_export / "turns" / "planted.parquet"
    rc, _, _ = tv("sql", f"COPY (SELECT 1 AS x) TO '{planted}'", samples_export,
                  "--cache", cache)
    assert rc == 2 and not planted.exists()
    rc, _, _ = tv("sql", f"SELECT * FROM read_parquet('{target}')", SAMPLES / "claims.jsonl",
                  "--cache", cache)
    assert rc == 2


def test_a_fresh_cache_is_shared_by_runs_at_once(tmp_path: Path) -> None:
    """A run that finds every capture fresh holds the cache shared: another run holding
    it does not make it wait."""
    import subprocess

    from traceview.export.cache import open_cache

    cache = tmp_path / "cache"
    claims = str(SAMPLES / "claims.jsonl")
    held = open_cache(cache, None, [claims])  # builds it, held exclusively
    held.close()
    held = open_cache(cache, None, [claims])  # fresh: held shared
    try:
        proc = subprocess.run([sys.executable, "-m", "traceview", "sql",
                               "SELECT count(*) AS n FROM turns", claims, "--cache", str(cache),
                               "--format", "csv"], capture_output=True, text=True, timeout=60)
    finally:
        held.close()
    assert proc.returncode == 0 and proc.stdout == "n\n4\n", proc.stderr
    assert "0 read, 1 from cache" in proc.stderr
