"""`export --to duckdb|otlp` writes one file: a path ending in a slash names a directory, and
was written as a file of that name without the slash (`-o out_duckdb/` made `out_duckdb`).
It is refused as an existing directory is: exit 2, one line, nothing made."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main


@pytest.mark.parametrize(("kind", "example"), [("duckdb", "fleet.duckdb"),
                                               ("otlp", "spans.json")])
def test_a_path_ending_in_a_slash_is_refused(kind: str, example: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    if kind == "duckdb":
        pytest.importorskip("duckdb")
    out = f"{tmp_path / 'out'}/"
    assert main(["export", str(SAMPLES / "claims.jsonl"), "--to", kind, "-o", out]) == 2
    captured = capsys.readouterr()
    assert captured.err == (f"traceview export: {out}: ends in a slash, so names a directory; "
                            f"--to {kind} writes one file: give its path (-o {example})\n")
    assert captured.out == "" and list(tmp_path.iterdir()) == []


def test_an_existing_directory_is_refused_too(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "out").mkdir()
    assert main(["export", str(SAMPLES / "claims.jsonl"), "--to", "otlp",
                 "-o", str(tmp_path / "out")]) == 2
    assert "out: is a directory, not a regular file" in capsys.readouterr().err
