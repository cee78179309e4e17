"""Rows written by forked children (report/forked.py) come out as one process writes them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from traceview.report import forked

ROOT = Path(__file__).parent.parent.parent
# Runs a report with os.fork counted, so the test knows the children did the writing.
COUNTED = """
import os, sys
calls = [0]
real = os.fork
def fork():
    calls[0] += 1
    return real()
os.fork = fork
import traceview.report.forked as forked
forked.READ = int(os.environ.get("READ", forked.READ))  # children's files cut mid-character
from traceview.cli import main
rc = main(sys.argv[1:])
sys.stdout.flush()
sys.stderr.write(f"\\nforks={calls[0]}\\n")
raise SystemExit(rc)
"""


def _report(fmt: str, workers: str) -> tuple[bytes, int]:
    env = dict(os.environ, TRACEVIEW_WORKERS=workers, TRACEVIEW_FORK_MIN_ROWS="2", READ="7")
    out = subprocess.run([sys.executable, "-c", COUNTED, "report", "--format", fmt,
                          "--width", "100", "tests/fixtures/real"],
                         capture_output=True, cwd=ROOT, env=env, check=False)
    assert out.returncode in (0, 1), out.stderr
    return out.stdout, int(out.stderr.rsplit(b"forks=", 1)[1])


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_children_write_the_same_bytes(fmt: str) -> None:
    one, forks_one = _report(fmt, "1")
    many, forks_many = _report(fmt, "2")
    assert forks_one == 0  # one worker: no child
    assert forks_many >= 1  # the rows were split and a child wrote some
    assert many == one
    assert len(one) > 10_000 and not one.isascii()  # multi-byte characters, cut by READ


def test_a_failed_child_has_its_range_written_by_the_parent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()

    def write(start: int, end: int) -> Iterator[bytes]:
        if os.getpid() != parent:
            raise RuntimeError("a child that fails")
        for i in range(start, end):
            yield b"%d," % i

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    out = b"".join(forked.write_ranges([(0, 3), (3, 7), (7, 9)], write))
    assert out == b"".join(b"%d," % i for i in range(9))
    assert list(tmp_path.iterdir()) == []  # the children's files are gone


def test_one_worker_or_few_rows_never_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    assert forked.ranges(100_000) == [(0, 100_000)]
    monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
    monkeypatch.delenv("TRACEVIEW_FORK_MIN_ROWS", raising=False)
    assert forked.ranges(19_999) == [(0, 19_999)]


def test_an_abandoned_write_stops_its_children(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`report | head`: the reader leaves after the first chunk; no child is left writing
    (nor a zombie), and no file is left behind."""
    def write(start: int, end: int) -> Iterator[bytes]:
        for i in range(start, end):
            yield b"%d," % i

    pids: list[int] = []
    real_fork = forked._fork

    def fork(*args: object) -> tuple:
        child = real_fork(*args)  # type: ignore[arg-type]
        pids.append(child[0])
        return child

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(forked, "_fork", fork)
    gen = forked.write_ranges([(0, 3), (3, 10_000_000)], write)
    assert next(gen) == b"0,"
    gen.close()
    assert list(tmp_path.iterdir()) == []
    assert len(pids) == 1 and pids[0] > 0
    with pytest.raises(ChildProcessError):
        os.waitpid(pids[0], os.WNOHANG)  # stopped and reaped, not left writing


def test_the_parent_streams_a_childs_rows_in_small_chunks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The parent's peak is a forked report's peak: it holds one chunk of a child's file
    (and its decoded copy) at a time, so chunks stay at 64 kB however large the range."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))

    def write(start: int, end: int) -> Iterator[bytes]:
        if start:  # the child's range: 2 MB in 1 MB pieces
            yield from (b"x" * (1 << 20) for _ in range(start, end))
        else:
            yield b"first,"

    chunks = list(forked.write_ranges([(0, 1), (1, 3)], write))
    assert chunks[0] == b"first,"
    assert b"".join(chunks[1:]) == b"x" * (2 << 20)
    assert max(len(c) for c in chunks[1:]) <= 1 << 16
    assert list(tmp_path.iterdir()) == []


def test_the_childrens_directory_is_private(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    made = forked._tempdir()
    try:
        assert Path(made).parent == tmp_path
        assert os.stat(made).st_mode & 0o777 == 0o700
        assert forked._tempdir() != made  # a fresh name each time
    finally:
        for d in tmp_path.iterdir():
            d.rmdir()


def test_without_a_writable_temporary_directory_the_parent_writes_every_range(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A full or read-only $TMPDIR costs the speed of the children, never the report."""
    def refuse(path: str, mode: int = 0o777) -> None:
        raise PermissionError(13, "Permission denied", path)

    forks: list[object] = []
    monkeypatch.setattr(os, "mkdir", refuse)
    monkeypatch.setattr(forked, "_fork", lambda *a: forks.append(a))

    def write(start: int, end: int) -> Iterator[bytes]:
        for i in range(start, end):
            yield b"%d," % i

    out = b"".join(forked.write_ranges([(0, 3), (3, 7), (7, 9)], write))
    assert out == b"".join(b"%d," % i for i in range(9))
    assert forks == []
