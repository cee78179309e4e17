"""`export --to duckdb` stages Parquet files (a large capture's written by forked workers)
and DuckDB loads them once the analysis has gone: the database's tables, column types and
rows, in their physical order, are those of the one-process export."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES

duckdb = pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

# In a fresh process (one thread: children may fork), with parts of 2 turns and any
# capture of 8 turns or more counted as large. Prints what the command's process loaded.
_RUN = """
import json, sys
from traceview.export import parts, stage
parts.MIN_TURNS, parts.SPAN_TURNS, parts.SPAN_CONVERSATIONS = 8, 2, 1
def logged(sink, analysis, real=stage.write_parts):  # which captures workers wrote
    done = real(sink, analysis)
    print(json.dumps({"turns": len(analysis.turns), "by_workers": done}), file=sys.stderr)
    return done
stage.write_parts = logged
from traceview.cli import main
rc = main(sys.argv[1:])
print(json.dumps({"rc": rc, "pyarrow": "pyarrow" in sys.modules}), file=sys.stderr)
"""

# claims (4 turns) and tenants (7) are written in one process, service_day (12) by
# workers between them: three segments whose files must be read in that order.
CAPTURES = [str(SAMPLES / n) for n in ("claims.jsonl", "service_day.jsonl", "tenants.jsonl",
                                       "damaged.jsonl")]


def _export(out: Path, workers: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", _RUN, "export", *CAPTURES, "--to", "duckdb",
                           "-o", str(out)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TRACEVIEW_WORKERS": workers})
    said = [json.loads(line) for line in proc.stderr.splitlines() if line.startswith("{")]
    return {**said[-1], "captures": said[:-1]}


def dump(path: Path) -> dict[str, tuple[list, list]]:
    """Every table's DESCRIBE and rows, in the order DuckDB stored them."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        names = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables ORDER BY table_name").fetchall()]
        return {t: (con.execute(f"DESCRIBE {t}").fetchall(),
                    con.execute(f"SELECT * FROM {t}").fetchall()) for t in names}
    finally:
        con.close()


def test_worker_written_export_is_the_one_process_export(tmp_path: Path) -> None:
    forked, alone = tmp_path / "forked.duckdb", tmp_path / "alone.duckdb"
    seen = _export(forked, "2")
    assert seen["rc"] == 1 and not seen["pyarrow"]  # damaged.jsonl's problems; Arrow apart
    assert [(c["turns"], c["by_workers"]) for c in seen["captures"]] == [
        (4, False), (12, True), (7, False), (4, False)]
    seen = _export(alone, "1")
    assert seen["rc"] == 1 and not any(c["by_workers"] for c in seen["captures"])
    got, want = dump(forked), dump(alone)
    assert {t: len(rows) for t, (_, rows) in got.items()} == {
        "conversations": 1 + 7 + 3 + 4, "hosted_calls": 9, "problems": 4,
        "turns": 4 + 12 + 7 + 4}
    assert got == want
    sources = [r[0] for r in duckdb.connect(str(forked), read_only=True).execute(
        "SELECT source FROM turns").fetchall()]
    assert sources == sorted(sources, key=CAPTURES.index)  # file order kept across segments
    types = dict((r[0], r[1]) for r in got["turns"][0])
    assert types["ts"] == "TIMESTAMP_MS" and types["markers"] == "VARCHAR[]"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alone.duckdb", "forked.duckdb"]


def test_a_failed_load_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The staged files and DuckDB's spill folder go whatever stops the load (Ctrl-C too),
    and the command writes no database."""
    from traceview.cli import main
    from traceview.export import duck

    def interrupted(path: Path, files: dict, spill: Path) -> None:
        assert all(Path(f).is_file() for f in files["turns"])  # staged, beside the output
        raise KeyboardInterrupt

    monkeypatch.setattr(duck, "load", interrupted)
    # Ctrl-C is said in one line, exit 130 (cli.main), after the staged files are gone.
    assert main(["export", CAPTURES[0], "--to", "duckdb", "-o", str(tmp_path / "o.duckdb")]) == 130
    assert list(tmp_path.iterdir()) == []
