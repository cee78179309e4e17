"""`export` of a path that does not exist: one line, exit 2, nothing made — as `sql` says it
(it made the output folder holding an "unreadable source" problem and exited 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from traceview.cli import main


@pytest.mark.parametrize("to", ["parquet", "csv"])
def test_export_of_a_missing_path_is_refused_and_makes_nothing(
        to: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fleet"
    assert main(["export", str(tmp_path / "captures"), "--to", to, "-o", str(out)]) == 2
    assert "captures: no such file or directory" in capsys.readouterr().err
    assert not out.exists()
