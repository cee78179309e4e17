"""Following a capture whose file goes away: deleted, moved (a log rotated), or replaced
by a directory or a FIFO. ``poll()`` says so in ``gone`` instead of finding nothing in
silence, keeps every turn already read, never opens what is not a regular file (a FIFO
would wait for a writer), and notices by itself when a file is at the path again: the
same file moved back is tailed on, another one is ``replaced`` as a new inode is."""

from __future__ import annotations

import os
from pathlib import Path

from tests.analysis.following import followed, lines
from tests.builders import conv_turn, write


def capture(tmp_path: Path) -> Path:
    return write(tmp_path / "live.jsonl", conv_turn("conv_1", "one", "r1", 1000, 100)
                 + conv_turn("conv_1", "two", "r2", 1100, 100))


def test_a_deleted_file_is_gone_and_the_turns_stay(tmp_path: Path) -> None:
    path = capture(tmp_path)
    session = followed(path)
    path.unlink()
    assert session.poll() is None
    assert session.gone is not None and "gone" in session.gone
    assert not session.replaced and len(session.analysis.turns) == 2
    assert session.poll() is None and session.gone is not None  # still gone, still quiet


def test_a_rotated_log_is_gone_then_replaced_by_the_new_file(tmp_path: Path) -> None:
    path = capture(tmp_path)
    session = followed(path)
    path.rename(tmp_path / "live.jsonl.1")  # moved away: nothing at the path
    assert session.poll() is None and session.gone is not None
    write(path, conv_turn("conv_2", "new", "r9", 500, 50))  # recreated: another inode
    assert session.poll() is None
    assert session.gone is None and session.replaced  # as a new inode is, offered a reload
    assert len(session.analysis.turns) == 2


def test_the_same_file_moved_back_is_tailed_on(tmp_path: Path) -> None:
    path = capture(tmp_path)
    session = followed(path)
    away = tmp_path / "elsewhere.jsonl"
    path.rename(away)
    assert session.poll() is None and session.gone is not None
    with open(away, "ab") as f:
        f.write(lines(conv_turn("conv_1", "three", "r3", 1200, 100)))
    away.rename(path)
    batch = session.poll()
    assert session.gone is None and not session.replaced
    assert batch is not None and [t.index for t in batch.turns] == [3]


def test_a_directory_at_the_path_is_not_a_file_to_read(tmp_path: Path) -> None:
    path = capture(tmp_path)
    session = followed(path)
    path.unlink()
    path.mkdir()
    assert session.poll() is None
    assert session.gone is not None and "directory" in session.gone
    assert not session.replaced and len(session.analysis.turns) == 2


def test_a_fifo_at_the_path_is_never_opened(tmp_path: Path) -> None:
    path = capture(tmp_path)
    session = followed(path)
    path.unlink()
    os.mkfifo(path)  # opened for reading, it would wait for a writer for ever
    assert session.poll() is None
    assert session.gone is not None and "FIFO" in session.gone
    path.unlink()
    write(path, conv_turn("conv_2", "new", "r9", 500, 50))
    session.poll()
    assert session.gone is None and session.replaced
