"""Found by an attack pass: a followed file rewritten to exactly the length already read
(truncated and written again, or overwritten in place) was noticed only once it grew, as
the poll compared inode and size. A changed ``st_mtime_ns`` with the size unchanged now
runs the bytes comparison the grown-file test runs (one pread of the 4 KB before the
offset); an unchanged mtime costs nothing more than the stat.

The file's mtime is set to a past instant before it is followed, so the rewrite's own
mtime differs whatever the file system's timestamp granularity."""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from tests.analysis.following import followed
from tests.builders import conv_turn, write
from traceview.analysis.follow import FollowSession

PAST = 1_000_000_000 * 10**9  # 2001, in ns


def follow(path: Path) -> FollowSession:
    os.utime(path, ns=(PAST, PAST))
    return followed(path)


def capture(tmp_path: Path) -> tuple[Path, bytes]:
    path = write(tmp_path / "live.jsonl", conv_turn("conv_1", "one", "r1", 1000, 100)
                 + conv_turn("conv_1", "two", "r2", 1100, 100))
    return path, path.read_bytes()


def test_a_same_size_truncate_and_rewrite_is_replaced(tmp_path: Path) -> None:
    path, old = capture(tmp_path)
    session = follow(path)
    new = old.replace(b'"r2"', b'"r7"')
    assert len(new) == len(old) and new != old
    with open(path, "r+b") as f:
        f.truncate(0)
        f.write(new)
    assert session.poll() is None and session.replaced


def test_an_in_place_overwrite_of_the_same_size_is_replaced(tmp_path: Path) -> None:
    path, old = capture(tmp_path)
    session = follow(path)
    at = old.rindex(b'"r2"')
    with open(path, "r+b") as f:  # no truncate: a few bytes overwritten where they are
        f.seek(at)
        f.write(b'"r7"')
    assert os.stat(path).st_size == len(old)
    assert session.poll() is None and session.replaced


def test_a_touch_with_the_same_bytes_is_not_replaced(tmp_path: Path) -> None:
    path, _ = capture(tmp_path)
    session = follow(path)
    os.utime(path)  # mtime changed, the bytes not: still the file that was read
    assert session.poll() is None and not session.replaced
    with open(path, "ab") as f:
        for record in conv_turn("conv_1", "three", "r3", 1200, 100):
            f.write(orjson.dumps(record) + b"\n")
    batch = session.poll()
    assert batch is not None and [t.index for t in batch.turns] == [3]
