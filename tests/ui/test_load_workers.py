"""The inspector loads through worker processes too (issue #11): forked when the app is
made, before its threads start, or (a reload, with threads alive) spawned from its loading
thread under Textual, whose stderr has no file descriptor for them to inherit."""

from __future__ import annotations

import os

import pytest

from traceview.analysis.session import analyze
from traceview.ui.app import make_app

from .conftest import sample


@pytest.mark.parametrize("name", ["service_day", "damaged"])
async def test_inspector_loads_with_workers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    want = analyze(sample(name))
    monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "4000")
    app = make_app([sample(name)])
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.state.error is None
        got = app.state.analysis
        assert [t.to_dict() for t in got.turns] == [t.to_dict() for t in want.turns]
        assert [p.to_dict() for p in got.problems] == [p.to_dict() for p in want.problems]
        assert len(app.main.rows) > 0


_FORKED_FIRST = """
import asyncio, json, multiprocessing, os, sys
os.environ["TRACEVIEW_WORKERS"] = "1"
from traceview.analysis.session import analyze
from traceview.capture import parallel
from traceview.ui.app import make_app

path = sys.argv[1]
want = [t.to_dict() for t in analyze(path).turns]
os.environ.update(TRACEVIEW_WORKERS="2", TRACEVIEW_PARALLEL_MIN_BYTES="0",
                  TRACEVIEW_CHUNK_BYTES="4000", TEXTUAL_ANIMATIONS="none")

def no_start(*_, **__):
    raise AssertionError("a worker started while the app ran")

used, nice = [], set()
base = os.nice(0)  # this thread's: the load thread's is lowered once its first rows are out
close = parallel.Extractor.close
def closed(extractor):
    used.append({p.pid for p in extractor.workers})
    nice.update(os.getpriority(os.PRIO_PROCESS, p.pid) - base for p in extractor.workers)
    close(extractor)
parallel.Extractor.close = closed

async def main():
    app = make_app([path])
    forked = {p.pid for p in multiprocessing.active_children()}
    for method in ("spawn", "fork"):
        multiprocessing.get_context(method).Process.start = no_start
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        got = [t.to_dict() for t in app.state.analysis.turns]
        print(len(forked), used == [forked], got == want, len(app.main.rows) > 0,
              app.state.error, len(multiprocessing.active_children()), *nice)

asyncio.run(main())
"""


def test_the_inspector_forks_its_workers_before_it_runs() -> None:
    """The app forks its load's workers when it is made, while it has one thread: its
    load (from a thread, where they could only be new interpreters importing traceview)
    uses those and starts none, reads what a headless read does, and leaves none running.
    The workers yield the CPU as the load thread does once the first rows are out (below
    the event loop, level with the thread they feed). A fresh interpreter: a test process
    may have threads, where nothing may fork."""
    import subprocess
    import sys

    from traceview.ui.tuning import load_nice

    out = subprocess.run([sys.executable, "-c", _FORKED_FIRST, sample("service_day")],
                         capture_output=True, text=True, timeout=300, check=True)
    lower = str(min(load_nice(), 19 - os.nice(0)))  # 19: the lowest priority there is
    assert out.stdout.split() == ["2", "True", "True", "True", "None", "0", lower], \
        out.stderr[-2000:]


_QUIT_EARLY = """
import asyncio, multiprocessing, os, sys
os.environ.update(TRACEVIEW_WORKERS="2", TRACEVIEW_PARALLEL_MIN_BYTES="0",
                  TRACEVIEW_CHUNK_BYTES="1000", TEXTUAL_ANIMATIONS="none")
from traceview.ui.app import make_app

async def main():
    app = make_app([sys.argv[1]])
    print(*(p.pid for p in multiprocessing.active_children()), flush=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("q")

asyncio.run(main())
"""


def test_quitting_as_the_load_starts_leaves_no_worker_running() -> None:
    """`q` as soon as the app runs, its load just begun (or not yet taken its workers
    forked ahead): once the process has exited, none of them is left running."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _QUIT_EARLY, sample("claims_owned_state")],
                         capture_output=True, text=True, timeout=300, check=True)
    pids = [int(pid) for pid in out.stdout.split()]
    assert len(pids) == 2, out.stderr[-2000:]
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


_RELOADED = """
import asyncio, os, sys
from traceview.capture import parallel
from traceview.ui.app import make_app

os.environ.update(TRACEVIEW_WORKERS="2", TRACEVIEW_PARALLEL_MIN_BYTES="0",
                  TRACEVIEW_CHUNK_BYTES="4000", TEXTUAL_ANIMATIONS="none")
base = os.nice(0)
nice = []
close = parallel.Extractor.close
def closed(extractor):
    nice.append(sorted({os.getpriority(os.PRIO_PROCESS, p.pid) - base
                        for p in extractor.workers}))
    close(extractor)
parallel.Extractor.close = closed

async def main():
    app = make_app([sys.argv[1]])
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("R")
        await app.workers.wait_for_complete()
        await pilot.pause()
        print(app.state.error, len(app.state.turns), *(",".join(map(str, ns)) for ns in nice))

asyncio.run(main())
"""


def test_workers_started_for_a_reload_yield_the_cpu_too() -> None:
    """After `R` the load's workers are spawned (the app has threads now, nothing may
    fork): they start at the same lowered priority as those forked at start-up (they
    ran at the event loop's, taking the CPU it needs to stay responsive)."""
    import subprocess
    import sys

    from traceview.ui.tuning import load_nice

    out = subprocess.run([sys.executable, "-c", _RELOADED, sample("service_day")],
                         capture_output=True, text=True, timeout=300, check=True)
    lower = str(min(load_nice(), 19 - os.nice(0)))
    error, turns, *reads = out.stdout.split()
    assert error == "None" and int(turns) > 0, out.stderr[-2000:]
    # Each read's workers that took its chunks ran their start first; on a busy machine
    # one may still be starting (not yet lowered) when the other has read every chunk.
    assert len(reads) == 2 and all(lower in read.split(",") for read in reads), reads
