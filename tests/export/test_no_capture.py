"""`export` and `sql` given inputs of which none is a capture: a line per file naming it and
why, exit 2, nothing made, as `report` refuses them (they wrote an empty export or cache and
exited 1). With one capture among them, the capture is exported and the rest named (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main

TEXT = "not a capture: none of its first 2 lines is a JSON object (line 1: 'hello world')"
ARRAY = "this is a JSON array of 2 values, not a capture"


def _foreign(tmp_path: Path) -> list[str]:
    (tmp_path / "notes.txt").write_text("hello world\nnot json\n")
    (tmp_path / "arr.json").write_text("[1, 2]\n")
    return [str(tmp_path / "notes.txt"), str(tmp_path / "arr.json")]


@pytest.mark.parametrize("to", ["parquet", "csv", "duckdb", "otlp"])
def test_export_of_no_capture_is_refused_and_makes_nothing(
        to: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs, out = _foreign(tmp_path), tmp_path / "out"
    assert main(["export", *inputs, "--to", to, "-o", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"traceview export: {inputs[0]}: {TEXT}; expected one JSON record per line",
                   f"traceview export: {inputs[1]}: {ARRAY}; nothing read (traceview reads "
                   "JSONL records, HAR, OpenAI Batch and OTLP JSON files)"]
    assert not out.exists()
    assert main(["report", *inputs]) == 2  # as report says it


def test_binary_file_export_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blob = tmp_path / "image.jsonl"
    blob.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    assert main(["export", str(blob), "--to", "parquet", "-o", str(tmp_path / "o")]) == 2
    assert "image.jsonl: not a capture: binary data" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_sql_over_no_capture_is_refused_and_caches_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    code = main(["sql", "SELECT count(*) FROM turns", *_foreign(tmp_path), "--cache", str(cache)])
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and f"traceview sql: {tmp_path}/notes.txt: {TEXT}" in captured.err
    assert not cache.exists()


def test_a_capture_among_them_is_exported_and_the_rest_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fleet"
    inputs = [*_foreign(tmp_path), str(SAMPLES / "claims.jsonl")]
    assert main(["export", *inputs, "--to", "parquet", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "4 turns, 1 conversations, 2 problems from 3 capture(s)" in err
    assert f"notes.txt:1 not_a_capture: {TEXT}" in err
    assert json.loads((out / "_traceview.json").read_text())["captures"] == 3


def test_an_empty_file_is_a_capture_being_written(tmp_path: Path) -> None:
    """Read as `report` reads it (0 turns, exit 0): the recorder's file before its first call."""
    (tmp_path / "new.jsonl").write_bytes(b"")
    assert main(["report", str(tmp_path / "new.jsonl")]) == 0
    assert main(["export", str(tmp_path / "new.jsonl"), "--to", "csv", "-o",
                 str(tmp_path / "o")]) == 0


def test_a_pipe_and_stdin_are_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Neither is judged before the export: read twice, the export found them empty (a
    pipe's writer was gone once the judging read closed it)."""
    import io
    import os
    import sys
    import threading

    capture = (SAMPLES / "claims.jsonl").read_bytes()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(capture,))
    writer.start()
    assert main(["export", str(fifo), "--to", "csv", "-o", str(tmp_path / "a")]) == 0
    writer.join()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(capture)))
    assert main(["export", "-", "--to", "csv", "-o", str(tmp_path / "b")]) == 0
    assert capsys.readouterr().err.count("4 turns, 1 conversations, 0 problems") == 2


@pytest.mark.parametrize("how", ["gzip", "stdin", "pipe"])
@pytest.mark.parametrize("to", ["parquet", "csv", "duckdb", "otlp"])
def test_no_capture_read_once_is_refused_too(
        how: str, to: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Judged only by the export's own read, a text file behind gzip, stdin or a pipe is
    refused as the plain file is: its line, exit 2, the output not made (they wrote an
    empty export and exited 1)."""
    import gzip
    import io
    import os
    import sys
    import threading

    text = b"hello world\nnot json\n"
    out, writer = tmp_path / "out", None
    if how == "gzip":
        source = tmp_path / "notes.txt.gz"
        source.write_bytes(gzip.compress(text))
        given, named = str(source), str(source)
    elif how == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
        given, named = "-", "<stdin>"
    else:
        source = tmp_path / "pipe"
        os.mkfifo(source)
        writer = threading.Thread(target=source.write_bytes, args=(text,))
        writer.start()
        given, named = str(source), str(source)
    assert main(["export", given, "--to", to, "-o", str(out)]) == 2
    if writer is not None:
        writer.join()
    err = capsys.readouterr().err.splitlines()
    assert err == [f"traceview export: {named}: {TEXT}; expected one JSON record per line"]
    assert not out.exists()


def test_captures_written_after_to_are_exported_or_named_missing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--to KIND [TARGET]` takes every word after it: a capture written after it (with the
    output given by -o) is exported as if written first; with no capture at all the
    message says how to name one (it said CAPTURE was required, with the capture given)."""
    claims, out = str(SAMPLES / "claims.jsonl"), tmp_path / "out"
    assert main(["export", "--to", "parquet", claims, "-o", str(out)]) == 0
    assert "4 turns, 1 conversations, 0 problems from 1 capture(s)" in capsys.readouterr().err
    assert json.loads((out / "_traceview.json").read_text())["captures"] == 1
    for args in (["--to", "parquet", claims], ["--to", "csv", "-o", str(tmp_path / "c")]):
        assert main(["export", *args]) == 2
        assert capsys.readouterr().err == (
            "traceview export: no capture given: name the capture(s) first, as in "
            "`traceview export trace.jsonl --to parquet -o out/`\n")
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("to", ["duckdb", "parquet"])
def test_a_capture_on_stdin_is_exported_whole(to: str, tmp_path: Path) -> None:
    """`cat trace.jsonl | traceview export - --to duckdb`: the DuckDB export reads the
    capture in a forked child, and multiprocessing closes a child's stdin: it exported
    0 turns and exited 0. Real standard input, through a real process."""
    import subprocess
    import sys

    out = tmp_path / ("o.duckdb" if to == "duckdb" else "o")
    proc = subprocess.run([sys.executable, "-m", "traceview", "export", "-", "--to", to,
                           "-o", str(out)], input=(SAMPLES / "claims.jsonl").read_bytes(),
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert b"4 turns, 1 conversations, 0 problems from 1 capture(s)" in proc.stderr
    if to == "duckdb":
        import duckdb

        with duckdb.connect(str(out), read_only=True) as db:
            assert db.execute("SELECT count(*) FROM turns").fetchone() == (4,)
