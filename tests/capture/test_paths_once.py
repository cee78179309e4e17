"""Each capture file is read once however it is named: a folder holding the proxy's
--rotate link beside the file it points at was read as two captures (4 turns became 8,
the cost doubled, nothing said), and so was a file given twice or also inside a folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.capture.sources import expand_paths
from traceview.cli import main


@pytest.fixture
def rotated(tmp_path: Path) -> Path:
    folder = tmp_path / "captures"
    folder.mkdir()
    shutil.copy(SAMPLES / "claims.jsonl", folder / "proxy-2026-12-07.jsonl")
    (folder / "proxy.jsonl").symlink_to("proxy-2026-12-07.jsonl")  # as --rotate leaves it
    return folder


def test_the_rotate_link_and_its_file_are_one_capture(
        rotated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert expand_paths([str(rotated)]) == [str(rotated / "proxy-2026-12-07.jsonl")]
    assert main(["report", str(rotated), "--width", "200"]) == 0
    assert "proxy-2026-12-07.jsonl · 4 turns · 1 conversation" in capsys.readouterr().out


def test_a_file_named_twice_is_read_once(rotated: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    named = str(rotated / "proxy.jsonl")
    assert expand_paths([named, str(rotated), named]) == [named]
    assert main(["export", named, str(rotated), "--to", "csv", "-o", str(tmp_path / "o")]) == 0
    assert "4 turns, 1 conversations, 0 problems from 1 capture(s)" in capsys.readouterr().err
