"""Facts extracted by forked workers in the CLI (capture/parallel.py).

Each case runs `traceview report` in a fresh process (a test process may have threads, which
makes the pool spawn new interpreters instead), with workers forced on for a small capture,
and a wrapped `parallel.extract` that logs which process read each chunk and can misbehave
in a worker. The report must be byte-identical to one process's whatever the workers do,
and the main process must end with no worker left, no thread but its own and no fd leaked.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from traceview.capture import parallel

ROOT = Path(__file__).parent.parent.parent
SAMPLE = str(ROOT / "sample_traces" / "service_day.jsonl")

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not Path("/proc/self/fd").is_dir(),
                                reason="forked children: POSIX with fork (and /proc to count fds)")

RUN = r"""
import json, os, signal, sys
MODE, LOG, TOKEN, DIAG = sys.argv[1:5]
# Ctrl-C as at a terminal: a suite started in the background (`pytest &`) runs with SIGINT
# ignored, which this process would inherit and the interrupt below would do nothing.
signal.signal(signal.SIGINT, signal.default_int_handler)
from traceview.capture import parallel
MAIN = os.getpid()
real = parallel.extract
mine, current = [0], [-1]

def first_to_claim():  # exactly one child misbehaves
    try:
        os.close(os.open(TOKEN, os.O_CREAT | os.O_EXCL))
        return True
    except FileExistsError:
        return False

def extract(path, start, end, *along):
    if os.getpid() != MAIN:
        mine[0] += 1
        current[0] = start
        with open(LOG, "a") as f:
            f.write(f"{os.getpid()} {start}\n")
        print("child noise on stdout")
        print("child noise on stderr", file=sys.stderr)
        if mine[0] == 2 and MODE == "kill" and first_to_claim():
            os.kill(os.getpid(), signal.SIGKILL)  # more tasks are sent to it after this
        if start == LAST and MODE == "kill_last" and first_to_claim():
            os.kill(os.getpid(), signal.SIGKILL)  # none is: found dead reading its answer
        if mine[0] == 2 and MODE == "interrupt" and first_to_claim():
            os.killpg(0, signal.SIGINT)  # Ctrl-C: the whole foreground group
        if start == LAST and MODE == "fail" and first_to_claim():
            raise RuntimeError("a child that breaks")
    return real(path, start, end, *along)

parallel.extract = extract
PATH = sys.argv[5]
LAST = list(parallel.split(PATH, os.path.getsize(PATH), parallel.chunk_bytes()))[-1][0]
fds = sorted(os.listdir("/proc/self/fd"))
from traceview.cli import main
try:
    rc = main(["report", "--format", "json", PATH])
finally:
    sys.stdout.flush()
    try:
        os.waitpid(-1, os.WNOHANG)
        left = True
    except ChildProcessError:
        left = False
    import threading
    diag = {"children_left": left, "threads": threading.active_count(),
            "fds_leaked": sorted(os.listdir("/proc/self/fd")) != fds}
    with open(DIAG, "w") as f:
        json.dump(diag, f)
raise SystemExit(rc)
"""


def _run(tmp_path: Path, mode: str, workers: str = "2",
         path: str = SAMPLE) -> tuple[subprocess.CompletedProcess[bytes], dict, list[str]]:
    log, token, diag = tmp_path / "log", tmp_path / "token", tmp_path / "diag.json"
    env = dict(os.environ, TRACEVIEW_WORKERS=workers, TRACEVIEW_PARALLEL_MIN_BYTES="0",
               TRACEVIEW_CHUNK_BYTES="3000")
    out = subprocess.run([sys.executable, "-c", RUN, mode, str(log), str(token), str(diag),
                          path], capture_output=True, cwd=ROOT, env=env, check=False,
                         start_new_session=True)  # its own group: Ctrl-C reaches it alone
    lines = log.read_text().splitlines() if log.exists() else []
    return out, json.loads(diag.read_text()), lines


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out, _, lines = _run(tmp_path_factory.mktemp("one"), "plain", workers="1")
    assert out.returncode == 0 and not lines  # no child read anything
    return out.stdout


def _clean(diag: dict) -> None:
    assert diag == {"children_left": False, "threads": 1, "fds_leaked": False}


def test_children_read_the_chunks_and_the_report_is_the_same(
        tmp_path: Path, one_process: bytes) -> None:
    out, diag, lines = _run(tmp_path, "plain")
    assert out.returncode == 0, out.stderr
    assert out.stdout == one_process
    pids = {line.split()[0] for line in lines}
    assert len(pids) == 2  # both children read chunks (they are not the main process)
    chunks = list(parallel.split(SAMPLE, Path(SAMPLE).stat().st_size, 3000))
    assert len(chunks) > 5
    # A headless report has no first rows to show early: every chunk goes to the workers.
    assert sorted(int(line.split()[1]) for line in lines) == [s for s, _ in chunks]
    assert b"child noise" not in out.stdout + out.stderr
    _clean(diag)


@pytest.mark.parametrize("mode", ["kill", "kill_last", "fail"])
def test_a_child_that_dies_has_its_chunks_read_by_the_main_process(
        tmp_path: Path, one_process: bytes, mode: str) -> None:
    """Killed (as by the OOM killer) mid-load or on the last chunk, or broken by an
    exception: the load goes on, the tasks the pool cannot answer read in the main process,
    the report unchanged."""
    out, diag, lines = _run(tmp_path, mode)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "token").exists()  # one child did misbehave
    assert out.stdout == one_process
    assert lines  # workers read chunks before it broke
    assert b"child noise" not in out.stderr and b"Traceback" not in out.stderr
    _clean(diag)


def test_ctrl_c_ends_the_load_and_leaves_no_child(tmp_path: Path) -> None:
    out, diag, lines = _run(tmp_path, "interrupt")
    assert (tmp_path / "token").exists()
    assert out.returncode != 0
    assert out.stderr.count(b"KeyboardInterrupt") <= 1  # the main's, none from children
    assert b"child noise" not in out.stderr
    assert not diag["children_left"] and not diag["fds_leaked"]
    for pid in {int(line.split()[0]) for line in lines}:
        with pytest.raises(ProcessLookupError):  # reaped by the main process, not orphaned
            os.kill(pid, signal.SIGCONT)
