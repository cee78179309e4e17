"""An output or cache path the system refuses (a file where a folder must be, a folder
that cannot exist) is said as every other refused path is: the path, "cannot be used" and
the system's reason, one line, exit 2 — not Python's "[Errno 20] …" repr."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main

CLAIMS = str(SAMPLES / "claims.jsonl")


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_an_output_folder_under_a_file(kind: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyarrow")
    (tmp_path / "FILE").write_text("kept")
    out = tmp_path / "FILE" / "sub"
    assert main(["export", CLAIMS, "--to", kind, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Errno" not in err
    assert err.startswith(f"traceview export: {out}") and "cannot be used (Not a directory)" in err
    assert (tmp_path / "FILE").read_text() == "kept"


def test_an_output_folder_that_cannot_be_made(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyarrow")
    assert main(["export", CLAIMS, "--to", "parquet", "-o", "/proc/traceview-x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Errno" not in err
    assert err.startswith("traceview export: /proc/traceview-x") and "cannot be used (" in err


def test_a_cache_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("duckdb")
    cache = tmp_path / "cache"
    cache.write_text("kept")
    assert main(["sql", "select 1", CLAIMS, "--cache", str(cache)]) == 2
    err = capsys.readouterr().err
    assert err == (f"traceview sql: {cache}: exists and is not a directory; --cache names the "
                   "folder the cache is kept in\n")
    assert cache.read_text() == "kept"
