"""The worker processes (capture/pool.py): workers forked ahead for a read from a thread
(the inspector's), and none where forking is unsafe or none is needed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.capture import parallel, pool

SAMPLE = str(SAMPLES / "service_day.jsonl")


_FORKED_AHEAD = """
import multiprocessing, os, sys, threading
from traceview.capture import parallel, pool

path = sys.argv[1]
begun = multiprocessing.Semaphore(0)  # released by each worker once its start has run

def begin():  # the caller's start, in each worker
    os.nice(2)
    begun.release()

assert pool.fork_ahead(2, then=begin)
ahead = {p.pid for p in multiprocessing.active_children()}
assert not pool.fork_ahead(2)  # the first ones wait: no second pool
seen = []

def no_start(*_, **__):
    raise AssertionError("a worker was started after the ones forked ahead")

multiprocessing.get_context("spawn").Process.start = no_start
multiprocessing.get_context("fork").Process.start = no_start

def load():  # from a thread, as the inspector reads
    extractor = parallel.Extractor(2, first_here=False)
    tasks = iter([(0, path, 0, 36), (0, path, 36, 72), (0, path, 72, 127)])
    lines = sum(len(chunk.lines) for _, chunk in extractor.run(tasks))
    # A worker the tasks never reached may not have run its start yet (a busy machine).
    assert all(begun.acquire(timeout=60) for _ in ahead)
    nice = {os.getpriority(os.PRIO_PROCESS, pid) - os.nice(0) for pid in ahead}
    seen.append(({p.pid for p in extractor.workers} == ahead, lines, *nice))
    extractor.close()

thread = threading.Thread(target=load)
thread.start()
thread.join()
print(len(ahead), *seen[0], len(multiprocessing.active_children()))
"""


def test_workers_forked_ahead_are_the_ones_a_later_read_uses(tmp_path: Path) -> None:
    """A process that will read from a thread (the inspector) forks its workers first,
    while it has one thread, each starting with the caller's own start (here: 2 steps of
    niceness): the read, from its thread, takes those (it starts no new interpreter), gets
    every line, and leaves none running once closed. A fresh interpreter: a test process
    may have threads, where nothing may fork."""
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"a": 1}\n' * 13 + b'{"b": 22}\n')  # 127 bytes: three chunks at line ends
    out = subprocess.run([sys.executable, "-c", _FORKED_AHEAD, str(path)],
                         capture_output=True, text=True, timeout=120, check=True)
    # (Below the highest niceness, 19, which a caller's own may already be near.)
    assert out.stdout.split() == ["2", "True", "14", str(min(2, 19 - os.nice(0))), "0"]


def test_nothing_is_forked_ahead_where_forking_is_unsafe(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With threads alive (or one worker asked for) no worker is forked ahead: the read
    starts its own, as it would without the call."""
    import multiprocessing

    before = multiprocessing.active_children()
    monkeypatch.setattr(pool, "fork_safe", lambda: False)
    assert not pool.fork_ahead(2)
    monkeypatch.setattr(pool, "fork_safe", lambda: True)
    assert not pool.fork_ahead(1)
    assert multiprocessing.active_children() == before and pool._ahead == []


def test_workers_forked_ahead_for_a_larger_read_are_stopped_by_a_small_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A read that needs no workers (the capture was smaller than it looked) stops those
    forked ahead instead of leaving them waiting until the process exits."""
    stopped: list[object] = []
    monkeypatch.setattr(pool, "stop", lambda workers, started: stopped.append(workers))
    monkeypatch.setattr(pool, "_ahead", [(2, "pool", set())])
    tasks = iter([(0, SAMPLE, 0, Path(SAMPLE).stat().st_size)])
    assert len(list(parallel.Extractor(1).run(tasks))) == 1
    assert stopped == ["pool"] and pool._ahead == []


_ASIDE = r"""
import multiprocessing, os
from traceview.capture import pool

main = os.getpid()
big = list(range(100_000))  # made before the fork: the worker reads its own copy
where = lambda tag: (tag, "worker" if os.getpid() != main else "here", sum(big))
with pool.aside(where, "aside") as made:
    beside = where("beside")  # this process goes on meanwhile
    print(*made(), *beside)
print(len(multiprocessing.active_children()))
with pool.aside(where, "asked", fork=False) as made:
    print(*made())

def dies():
    if os.getpid() != main:
        os._exit(3)
    return "made here"

with pool.aside(dies) as made:
    print(made())

import tempfile

def no_file():
    raise OSError("no room for the answer")

tempfile.TemporaryFile = no_file
with pool.aside(where, "no file") as made:
    print(*made())
"""


def test_a_task_aside_is_made_in_a_worker_beside_this_process() -> None:
    """`aside` runs a function (a lambda: nothing of it is pickled) in a worker forked for
    it while the caller goes on, and hands its answer back; none is left once the block
    ends. With `fork` false it runs here when asked, and here too when its worker dies or
    no file can take its answer.
    A fresh interpreter: a test process may have threads, where nothing may fork."""
    out = subprocess.run([sys.executable, "-c", _ASIDE], capture_output=True, text=True,
                         timeout=120, check=True)
    total = str(sum(range(100_000)))
    assert out.stdout.split("\n") == [
        f"aside worker {total} beside here {total}", "0", f"asked here {total}",
        "made here", f"no file here {total}", ""]


_ABANDONED = r"""
import multiprocessing, os
from traceview.capture import pool

r, w = os.pipe()
try:
    with pool.aside(os.read, r, 1):  # in the worker: waits for a byte never written
        raise KeyboardInterrupt
except KeyboardInterrupt:
    print("interrupted", len(multiprocessing.active_children()))
"""


def test_a_block_left_by_ctrl_c_ends_its_worker_at_once() -> None:
    """Ctrl-C (any exception) in the block: the worker is ended, not waited for (its task
    would never end here), and none is left."""
    proc = subprocess.Popen([sys.executable, "-c", _ABANDONED], stdout=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=60)
    finally:  # a worker waited for would wait forever: its group goes with the test
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert out == "interrupted 0\n"
