"""Forked writers that take turns at one output (capture/handoff.py `written`): the parts
arrive whole and in order, made and written by the workers (never by the process that
forked them), and a worker that dies or fails loses nothing and repeats nothing.

Each case runs in a fresh process (a test process may have threads, and then nothing
forks) writing to a pipe this test reads.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent.parent

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forked workers: POSIX")

RUN = r"""
import os, signal, sys
from traceview.capture.handoff import written
LOG, FAIL = sys.argv[1], sys.argv[2]
MAIN = os.getpid()

def make(k):
    with open(LOG, "a") as f:
        f.write(f"{'main' if os.getpid() == MAIN else 'worker'} {k}\n")
    if os.getpid() != MAIN and k == 7:
        if FAIL == "die":
            os.kill(os.getpid(), signal.SIGKILL)
        if FAIL == "raise":
            raise RuntimeError("a part's error")
    # Parts of very different sizes: a pipe takes the large ones in several writes.
    return b"".join(b"%d:%d " % (k, i) for i in range(k * 9000 % 70001))

tasks = [(b"<%d>" % k, k) for k in range(24)]
written(make, tasks, int(sys.argv[3]), sys.stdout.fileno())
"""


def _expected() -> bytes:
    return b"".join(b"<%d>" % k + b"".join(b"%d:%d " % (k, i) for i in range(k * 9000 % 70001))
                    for k in range(24))


def _run(tmp_path: Path, fail: str, workers: int) -> tuple[bytes, list[str]]:
    log = tmp_path / f"log-{fail}-{workers}"
    out = subprocess.run([sys.executable, "-c", RUN, str(log), fail, str(workers)],
                         capture_output=True, cwd=ROOT, check=True)
    return out.stdout, log.read_text().split("\n")[:-1]


@pytest.mark.parametrize("workers", [2, 3])
def test_the_workers_write_every_part_in_order_and_the_main_process_none(
        tmp_path: Path, workers: int) -> None:
    out, log = _run(tmp_path, "none", workers)
    assert out == _expected()
    assert sorted(int(line.split()[1]) for line in log) == list(range(24))  # each once
    assert all(line.startswith("worker ") for line in log)


@pytest.mark.parametrize("fail", ["die", "raise"])
def test_a_worker_that_dies_or_fails_loses_and_repeats_nothing(tmp_path: Path,
                                                               fail: str) -> None:
    """The other workers are stopped; this process writes what is left, from the part
    the turns had reached: the output is the one a single process writes."""
    out, log = _run(tmp_path, fail, 2)
    assert out == _expected()
    assert "main 7" in log  # made again here, after the worker's attempt
    assert "worker 7" in log


def test_one_worker_writes_every_part_here(tmp_path: Path) -> None:
    out, log = _run(tmp_path, "none", 1)
    assert out == _expected()
    assert log == [f"main {k}" for k in range(24)]
