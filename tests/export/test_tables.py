"""The fleet tables: one schema, the report's numbers, readable back by pyarrow and DuckDB."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import duckdb
import pyarrow.dataset as ds
import pytest

from tests.export.conftest import SAMPLE_FILES
from tests.fixtures_shared import REAL, ROOT, SAMPLES
from traceview.analysis.session import analyze
from traceview.export.queries import QUERIES
from traceview.export.readme_tables import rewrite
from traceview.export.rows import capture_rows
from traceview.export.schema import (
    ATTRIBUTED,
    TABLES,
    TURN_FLATTENED,
    TURN_RENAMED,
    arrow_schema,
    column_names,
    markdown_table,
)


def _read(root: Path, table: str):
    return ds.dataset(root / table, format="parquet").to_table()


def test_every_report_key_has_a_column() -> None:
    """A key added to the report's turn must get a column (or it lands in `extras`)."""
    cols = set(column_names("turns")) | set(TURN_RENAMED) | set(TURN_FLATTENED) | set(ATTRIBUTED)
    for path in [*SAMPLES.glob("*.jsonl"), *REAL.glob("*.jsonl")]:
        a = analyze([str(path)])
        for t in a.turns:
            assert set(t.to_dict()) <= cols, path.name
        for c in a.conversations:
            assert set(c.to_dict()) <= set(column_names("conversations")), path.name


def test_rows_carry_the_report_numbers() -> None:
    rows = [r for t, r in capture_rows(str(SAMPLES / "claims.jsonl")) if t == "turns"]
    report = {t.index: t.to_dict() for t in analyze([str(SAMPLES / "claims.jsonl")]).turns}
    assert [r["capture_index"] for r in rows] == [1, 2, 3, 4]
    assert [r["conversation_index"] for r in rows] == [1, 2, 3, 4]
    r3 = rows[2]
    assert (r3["input_tokens"], r3["unexplained_tokens"], r3["markers"]) == (
        6110, 4001, ["deposit", "tool_offered_unused"])
    assert r3["ts"] == 1767225609000 and r3["date"] == "2026-01-01"
    assert r3["conversation_kind"] == "conversation"
    assert r3["cost_tokens_usd"] == report[3]["cost"]["tokens_usd"]
    for r in rows:
        d = report[r["capture_index"]]
        for k in ("input_tokens", "cached_tokens", "output_tokens", "elapsed_ms", "markers",
                  "hosted_calls", "cost_usd", "request_bytes", "attribution", "user_text"):
            assert r[k] == d[k], k


def test_parquet_reads_back_with_the_documented_schema(samples_export: Path) -> None:
    for table in TABLES:
        got = _read(samples_export, table)
        want = arrow_schema(table)
        assert got.schema.remove_metadata().equals(want.remove_metadata()), table
    turns = _read(samples_export, "turns")
    assert turns.num_rows == sum(len(analyze([str(p)]).turns) for p in SAMPLES.glob("*.jsonl"))
    meta = ds.dataset(samples_export / "turns", format="parquet").schema.metadata
    assert meta[b"traceview.schema"] == b"traceview.turns/1"
    dates = sorted(p.name for p in (samples_export / "turns").iterdir())
    assert "date=2026-01-01" in dates and "date=unknown" in dates
    problems = _read(samples_export, "problems").to_pylist()
    assert {p["source"] for p in problems} == {str(SAMPLES / "damaged.jsonl")}


def test_duckdb_reads_the_parquet_with_the_documented_types(samples_export: Path) -> None:
    con = duckdb.connect()
    glob = str(samples_export / "turns" / "**" / "*.parquet")
    con.execute(f"CREATE VIEW turns AS SELECT * FROM read_parquet('{glob}', "
                "hive_partitioning = false)")
    types = dict(con.execute("SELECT column_name, column_type FROM "
                             "(DESCRIBE turns)").fetchall())
    assert list(types) == column_names("turns")
    assert types["ts"] == "TIMESTAMP" and types["input_tokens"] == "BIGINT"
    assert types["markers"] == "VARCHAR[]"
    assert types["hosted_calls"].startswith("STRUCT(\"type\" VARCHAR")
    n = con.execute("SELECT sum(unexplained_tokens) FROM turns WHERE source LIKE "
                    "'%claims.jsonl' AND list_contains(markers, 'deposit')").fetchone()
    assert n == (4001,)


def test_partition_by_model(tv, tmp_path: Path) -> None:
    rc, _, _ = tv("export", SAMPLES / "claims.jsonl", "--to", "parquet", "-o", tmp_path / "o",
                  "--partition-by", "date,model")
    assert rc == 0
    [d] = (tmp_path / "o" / "turns").iterdir()
    assert d.name == "date=2026-01-01"
    assert [m.name for m in d.iterdir()] == ["model=gpt-4.1-2025-04-14"]


def test_export_refuses_a_directory_it_did_not_write(tv, tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep")
    rc, _, err = tv("export", SAMPLES / "claims.jsonl", "--to", "parquet", "-o", tmp_path)
    assert rc == 2 and "not empty" in err
    assert (tmp_path / "mine.txt").read_text() == "keep"


def _sql(tv, query: str, *sources: object, cache: Path) -> list[dict]:
    rc, out, err = tv("sql", query, *sources, "--format", "json", "--cache", cache)
    assert rc == 0, err
    return json.loads(out)


def test_five_queries_on_the_samples(tv, samples_export: Path, tmp_path: Path) -> None:
    res = {k: _sql(tv, q, samples_export, cache=tmp_path) for k, (_, q) in QUERIES.items()}
    # claims.jsonl and claims_included.jsonl: 4,001 tokens deposited on turn 3 of 4,
    # billed again on turn 4.
    top = res["rebilled"][0]
    assert (top["deposited"], top["rebilled_tokens"], top["turns"]) == (4001, 8002, 4)
    ev = {r["tool"]: r for r in res["evidence"]}
    assert (ev["file_search_call"]["calls"], ev["file_search_call"]["missing"]) == (4, 2)
    assert ev["file_search_call"]["include_flag"] == "file_search_call.results"
    lat = {(r["model"], r["hosted"]): r for r in res["latency"]}
    assert lat[("gpt-4.1-2025-04-14", "hosted tools")]["turns"] == 4
    days = {r["date"]: r for r in res["deposits"]}
    assert days["2026-01-01"]["deposits"] == 2 and days["2026-01-01"]["deposited_tokens"] == 8002
    kinds = {r["kind"]: r for r in res["cost"]}
    assert set(kinds) == {"conversation", "chain", "stateless"}
    assert sum(r["turns"] for r in res["cost"]) == 45  # 38 + tenants.jsonl's 7 (issue 33)
    tenants = {r["tenant"]: r for r in res["tenant"]}
    assert (tenants["acme"]["conversations"], tenants["acme"]["carried_tokens"]) == (2, 6370)


def test_five_queries_on_real_captures_agree_with_the_report(tv, tmp_path: Path) -> None:
    res = {k: _sql(tv, q, REAL, cache=tmp_path) for k, (_, q) in QUERIES.items()}
    calls = [c for p in REAL.glob("*.jsonl") for t in analyze([str(p)]).turns
             for c in t.hosted_calls]
    by_tool: dict[str, list[int]] = {}
    for c in calls:
        n = by_tool.setdefault(c["type"], [0, 0])
        n[0] += 1
        n[1] += c["evidence"] == "missing"
    assert {r["tool"]: [r["calls"], r["missing"]] for r in res["evidence"]} == by_tool
    assert by_tool["code_interpreter_call"] == [6, 6]
    turns = sum(len(analyze([str(p)]).turns) for p in REAL.glob("*.jsonl"))
    assert sum(r["turns"] for r in res["deposits"]) == turns
    assert sum(r["turns"] for r in res["cost"]) == turns
    assert all(r["p95_ms"] >= r["p50_ms"] for r in res["latency"])
    assert res["rebilled"] == []  # no deposits in the real fixtures


def test_duckdb_file_answers_like_the_parquet(tv, samples_export: Path, tmp_path: Path) -> None:
    db = tmp_path / "fleet.duckdb"
    rc, _, _ = tv("export", *SAMPLE_FILES, "--to", "duckdb", db)
    assert rc == 1 and db.is_file()
    for _, q in QUERIES.values():
        assert _sql(tv, q, db, cache=tmp_path) == _sql(tv, q, samples_export, cache=tmp_path)


def test_csv_export(tv, tmp_path: Path) -> None:
    rc, _, _ = tv("export", SAMPLES / "claims.jsonl", "--to", "csv", "-o", tmp_path)
    assert rc == 0
    with open(tmp_path / "turns.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == column_names("turns")
    assert rows[2]["unexplained_tokens"] == "4001"
    assert json.loads(rows[2]["markers"]) == ["deposit", "tool_offered_unused"]
    assert rows[2]["ts"] == "2026-01-01T00:00:09Z"
    assert json.loads(rows[1]["hosted_calls"])[0]["evidence"] == "missing"


@pytest.mark.parametrize("kind", ["parquet", "csv", "otlp", "duckdb"])
def test_untrusted_text_is_sanitised_and_redacted(tv, tmp_path: Path, kind: str) -> None:
    """hostile.jsonl holds escape sequences and control characters; one more turn carries
    an API key in its prompt and in its error."""
    cap = tmp_path / "hostile.jsonl"
    leak = "sk-LEAKLEAKLEAK12345678"
    turn = [{"dir": "req", "body": {"model": "m", "input": f"my key {leak} \x1b[31mred"}},
            {"dir": "res", "elapsed_ms": 5, "body": {
                "id": "resp_x", "object": "response", "status": "failed", "model": "m",
                "error": {"code": "bad", "message": f"key {leak} \x1b]8;;x\x07"}}}]
    cap.write_text((SAMPLES / "hostile.jsonl").read_text()
                   + "".join(json.dumps(r) + "\n" for r in turn))
    out = tmp_path / ("o.duckdb" if kind == "duckdb" else "o.json" if kind == "otlp" else "o")
    tv("export", cap, "--to", kind, "-o", out)
    if kind == "duckdb":
        con = duckdb.connect(str(out), read_only=True)
        values = [con.execute(f"SELECT * FROM {t}").fetchall() for t in TABLES]
    elif kind == "parquet":
        values = [_read(out, t).to_pylist() for t in TABLES]
    else:
        files = [out] if out.is_file() else sorted(out.iterdir())
        values = [json.loads(p.read_text()) if kind == "otlp" else p.read_text() for p in files]
    text = json.dumps(values, default=str, ensure_ascii=False)
    for raw in ("\x1b", "\x07", "\x08", "\x00", "\u202e"):
        assert raw not in json.loads(json.dumps(text)), repr(raw)
    assert json.dumps("\\x1b]8;;x")[1:-1] in text  # the text arrived, made visible
    assert leak not in text and "sk-[redacted]" in text


def test_sql_output_formats_and_errors(tv, samples_export: Path, tmp_path: Path) -> None:
    q = "SELECT count(*) AS n, sum(input_tokens) AS billed FROM turns"
    rc, out, _ = tv("sql", q, samples_export, "--format", "csv", "--cache", tmp_path)
    assert rc == 0 and out.splitlines()[0] == "n,billed"
    rc, out, _ = tv("sql", q, samples_export, "--format", "markdown", "--cache", tmp_path)
    assert out.startswith("| n | billed |\n|---|---|\n| 45 |")
    rc, out, _ = tv("sql", q, samples_export, "--cache", tmp_path)
    assert out.splitlines()[0].split() == ["n", "billed"] and "(1 row)" in out
    rc, out, err = tv("sql", "SELECT nope FROM turns", samples_export, "--cache", tmp_path)
    assert rc == 2 and err.count("\n") == 1 and "nope" in err
    rc, _, err = tv("sql", q, tmp_path / "missing.jsonl", "--cache", tmp_path)
    assert rc == 2 and "missing.jsonl" in err


def test_docs_document_the_schema_and_queries() -> None:
    """docs/fleet.md's tables come from schema.py, its five queries and their output on the
    samples from QUERIES: regenerating the section changes nothing."""
    readme = (ROOT / "docs" / "fleet.md").read_text()
    for table in TABLES:
        assert markdown_table(table) in readme, table
    for _, q in QUERIES.values():
        assert q in readme
    assert rewrite(readme) == readme, "stale: python -m traceview.export.readme_tables"


def _rows_with(monkeypatch: pytest.MonkeyPatch, change) -> None:
    """The export reads the report's turn rows with `change(row)` applied to each (and
    the columns they were made of, as the changed rows hold them)."""
    from traceview.export import rows as export_rows

    made = export_rows.explained_batches

    def changed(reports):
        for batch in made(reports):
            for d in batch.rows:
                change(d)
            keyed = {k: [d[k] for d in batch.rows] for k in batch.rows[0]}
            yield batch._replace(columns=keyed)

    monkeypatch.setattr(export_rows, "explained_batches", changed)


def test_carried_context_is_picked_up_when_the_report_has_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The carried-context ledger's objects (issue #13's shape) fill the columns, and the
    re-billed query then sums the measured figure instead of the deposit estimate."""
    from traceview.analysis.turn_report import ConversationReport

    conv_dict = ConversationReport.to_dict

    def with_carry(d):
        d["carried_context"] = {"tokens": 1000 * (d["index"] - 1), "cost_usd": 0.5,
                                "sources": [{"id": "dep-3", "tokens": 7}]}

    def conv_with_carry(self):
        d = conv_dict(self)
        d["carried_context"] = {"tokens": 6000, "cost_usd": 1.5, "sources": []}
        return d

    _rows_with(monkeypatch, with_carry)
    monkeypatch.setattr(ConversationReport, "to_dict", conv_with_carry)
    rows = list(capture_rows(str(SAMPLES / "claims.jsonl")))
    turns = [r for t, r in rows if t == "turns"]
    assert [r["carried_context"] for r in turns] == [0, 1000, 2000, 3000]
    assert turns[1]["carried_context_usd"] == 0.5
    assert json.loads(turns[1]["carried_context_detail"])["sources"][0]["id"] == "dep-3"
    assert all(r["extras"] is None for r in turns)
    [conv] = [r for t, r in rows if t == "conversations"]
    assert (conv["carried_context"], conv["carried_context_usd"]) == (6000, 1.5)

    from traceview.export.duck import export_duckdb

    export_duckdb([str(SAMPLES / "claims.jsonl")], str(tmp_path / "c.duckdb"), None)
    con = duckdb.connect(str(tmp_path / "c.duckdb"), read_only=True)
    [top] = con.execute(QUERIES["rebilled"][1]).fetchall()
    assert top[-1] == 6000  # measured carried context, not 4,001 × 2


def test_a_report_key_without_a_column_lands_in_extras(monkeypatch: pytest.MonkeyPatch) -> None:
    _rows_with(monkeypatch, lambda d: d.update(future_key={"x": "sk-ABCDEFGHIJKL"}))
    turns = [r for t, r in capture_rows(str(SAMPLES / "claims.jsonl")) if t == "turns"]
    assert json.loads(turns[0]["extras"]) == {"future_key": {"x": "sk-[redacted]"}}


def test_a_parquet_export_does_not_load_duckdb(tmp_path: Path) -> None:
    """DuckDB is the other engine: a Parquet export never imports it (its memory was a
    fifth of a small export's peak)."""
    import subprocess
    import sys

    code = ("import sys; from traceview.cli import main; "
            f"rc = main(['export', {str(ROOT / 'sample_traces' / 'claims.jsonl')!r}, '--to', "
            f"'parquet', '-o', {str(tmp_path / 'out')!r}]); "
            "print('duckdb' in sys.modules, 'pyarrow' in sys.modules, rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["False", "True", "0"]
