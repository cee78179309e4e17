"""What cannot be followed (a directory, several files, a .gz, stdin) is said before
anything is lost: `traceview --follow DIR` exits 2 with one line instead of opening an
empty inspector that says its load stopped, and `F` on an inspector opened on a directory
keeps the rows it shows instead of reloading them into that error."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

from traceview.capture.sources import unfollowable
from traceview.cli import main
from traceview.ui.app import make_app

from .conftest import sample


def test_a_directory_is_refused_before_the_inspector_opens(tmp_path: Path, capsys) -> None:
    shutil.copy(sample("claims"), tmp_path / "claims.jsonl")
    assert main(["--follow", str(tmp_path)]) == 2
    assert "--follow needs exactly one plain capture file" in capsys.readouterr().err


def test_what_can_and_cannot_be_followed(tmp_path: Path) -> None:
    plain = Path(shutil.copy(sample("claims"), tmp_path / "claims.jsonl"))
    packed = tmp_path / "claims.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert unfollowable([str(plain)]) is None
    for paths in ([str(tmp_path)], [str(plain), str(plain)], ["-"], [str(packed)]):
        assert unfollowable(paths) is not None, paths


async def test_capital_f_on_a_directory_keeps_the_rows(tmp_path: Path) -> None:
    shutil.copy(sample("claims"), tmp_path / "claims.jsonl")
    app = make_app([str(tmp_path)])
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(app.main.rows) == 4
        await pilot.press("F")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(app.main.rows) == 4 and not app.follow.on
        assert any("--follow needs" in n.message for n in app._notifications)
