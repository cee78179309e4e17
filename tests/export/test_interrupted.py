"""An export interrupted (Ctrl-C) or failing part-way leaves its output as it was: the CSV
files were renamed into place holding the rows read so far, and a Parquet folder kept the
previous export's manifest over tables cut short, both read as whole. Ctrl-C is one line
(exit 130), not a traceback from wherever it landed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main
from traceview.export import run

FIRST, SECOND = str(SAMPLES / "claims.jsonl"), str(SAMPLES / "tenants.jsonl")


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def _stop_at_the_second_capture(monkeypatch: pytest.MonkeyPatch, error: type[BaseException]
                                ) -> None:
    real = run.capture_raw

    def capture_raw(path: str, *args: Any, **kw: Any) -> Iterator[Any]:
        if path == SECOND:
            raise error("stopped")
        return real(path, *args, **kw)

    monkeypatch.setattr(run, "capture_raw", capture_raw)


@pytest.mark.parametrize("to", ["parquet", "csv"])
def test_ctrl_c_leaves_the_previous_export_as_it_was(
        to: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fleet"
    assert main(["export", SECOND, "--to", to, "-o", str(out)]) == 0
    before = _files(out)
    capsys.readouterr()
    _stop_at_the_second_capture(monkeypatch, KeyboardInterrupt)
    again = ["--force"] if to == "csv" else []  # csv replaces files only when told
    assert main(["export", FIRST, SECOND, "--to", to, "-o", str(out), *again]) == 130
    assert capsys.readouterr().err == "traceview export: interrupted\n"
    assert _files(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["fleet"]  # nothing left beside it


@pytest.mark.parametrize("to", ["parquet", "csv"])
def test_a_failure_part_way_makes_no_new_folder(
        to: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _stop_at_the_second_capture(monkeypatch, OSError)
    assert main(["export", FIRST, SECOND, "--to", to, "-o", str(tmp_path / "new")]) == 2
    assert list(tmp_path.iterdir()) == []


def test_a_whole_export_replaces_the_previous_tables(tmp_path: Path) -> None:
    out = tmp_path / "fleet"
    assert main(["export", FIRST, "--to", "parquet", "-o", str(out)]) == 0
    assert main(["export", SECOND, "--to", "parquet", "-o", str(out), "--partition-by",
                 "date,model"]) == 0
    assert all("model=" in p for p in _files(out) if p.startswith("turns/"))


def test_an_output_that_cannot_be_made_is_named_not_its_temporary_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import tempfile

    def refused(**kw: Any) -> str:
        raise PermissionError(13, "Permission denied", str(kw["dir"]) + "/.tv-abc123")

    monkeypatch.setattr(tempfile, "mkdtemp", refused)
    for to in ("duckdb", "csv"):
        out = tmp_path / f"out.{to}"
        assert main(["export", FIRST, "--to", to, "-o", str(out)]) == 2
        assert capsys.readouterr().err == \
            f"traceview export: {out}: cannot be used (Permission denied)\n"


def test_a_table_planted_as_a_symlink_is_replaced_not_written_through(tmp_path: Path) -> None:
    """A previous export's `turns` made a link to another folder: the Parquet files went
    into that folder (prepare_dir's rmtree refuses a link, and ignored the refusal)."""
    out, elsewhere = tmp_path / "fleet", tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert main(["export", FIRST, "--to", "parquet", "-o", str(out)]) == 0
    for part in sorted((out / "turns").rglob("*"), reverse=True):
        part.unlink() if part.is_file() else part.rmdir()
    (out / "turns").rmdir()
    (out / "turns").symlink_to(elsewhere)
    assert main(["export", FIRST, "--to", "parquet", "-o", str(out)]) == 0
    assert list(elsewhere.iterdir()) == []
    assert not (out / "turns").is_symlink() and list((out / "turns").rglob("*.parquet"))


def test_a_file_where_the_folder_should_be_is_said_as_such(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("x")
    out = tmp_path / "afile" / "fleet"
    assert main(["export", FIRST, "--to", "parquet", "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"traceview export: {out}: cannot be used (Not a directory)\n"
