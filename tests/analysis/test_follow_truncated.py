"""Following a capture that is truncated in place (same file, fewer bytes than were read):
it is not the file that was followed, so `poll()` reads nothing and says `replaced`, and
the caller offers a reload (`R` in the inspector) instead of tailing from a stale offset."""

from __future__ import annotations

import os
from pathlib import Path

from tests.analysis.following import followed, lines
from tests.builders import conv_turn, write


def test_a_file_truncated_in_place_is_replaced_not_tailed(tmp_path: Path) -> None:
    path = write(tmp_path / "live.jsonl", conv_turn("conv_1", "one", "r1", 1000, 100)
                 + conv_turn("conv_1", "two", "r2", 1100, 100))
    session = followed(path)
    inode = os.stat(path).st_ino
    with open(path, "r+b") as f:
        f.truncate(10)
    assert os.stat(path).st_ino == inode  # in place: the same file, not a new one
    assert session.poll() is None
    assert session.replaced is True


def test_an_append_is_tailed_not_replaced(tmp_path: Path) -> None:
    path = write(tmp_path / "live.jsonl", conv_turn("conv_1", "one", "r1", 1000, 100))
    session = followed(path)
    with open(path, "ab") as f:
        f.write(lines(conv_turn("conv_1", "two", "r2", 1100, 100)))
    batch = session.poll()
    assert batch is not None and [t.index for t in batch.turns] == [2]
    assert session.replaced is False
