"""A large capture's conversations, rows, provider objects and fidelity verdicts are written
in forked workers, all by one pool, each writing its parts to the output in turn
(report/json_out.py `write_json` through capture/handoff.py `written`): the document must
be the one a single process writes, byte for byte, and the workers must all be gone
afterwards.

Each case runs `traceview report` in a fresh process (a test process may have threads,
and then nothing forks), with the row threshold at 0 and parts of 2 rows, so a sample of
a dozen turns is cut into several parts.
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
import os, sys
LOG, PATH = sys.argv[1:3]
from traceview.report import json_out
json_out.ROWS_A_PART = 2
real = json_out._part
with open(LOG, "a") as f:
    f.write(f"main {os.getpid()}\n")

def part(task):
    marker, start, _ = task
    with open(LOG, "a") as f:
        listed = json_out._WRITERS[marker].args[0]  # the list a part is cut from: name its items
        f.write(f"{os.getpid()} {type(listed[0]).__name__} {start}\n")
    return real(task)

json_out._part = part
from traceview.cli import main
rc = main(["report", "--format", "json", "--explain", PATH])
sys.stdout.flush()
try:
    os.waitpid(-1, os.WNOHANG)
    print("child left", file=sys.stderr)
except ChildProcessError:
    pass
if "hashlib" in sys.modules:
    print("hashlib loaded", file=sys.stderr)
raise SystemExit(rc)
"""


def _report(tmp_path: Path, sample: str, workers: str) -> tuple[bytes, bytes, list[str]]:
    log = tmp_path / f"log-{workers}"
    env = dict(os.environ, TRACEVIEW_WORKERS=workers, TRACEVIEW_PARALLEL_MIN_ROWS="0")
    out = subprocess.run([sys.executable, "-c", RUN, str(log), sample], capture_output=True,
                         cwd=ROOT, env=env, check=False)
    return out.stdout, out.stderr, log.read_text().split("\n")[:-1] if log.exists() else []


@pytest.mark.parametrize("sample", ["service_day.jsonl", "long_conversation.jsonl"])
def test_rows_written_by_workers_are_the_one_process_document(tmp_path: Path,
                                                              sample: str) -> None:
    path = str(ROOT / "sample_traces" / sample)
    alone, _, alone_log = _report(tmp_path, path, "1")
    shared, err, log = _report(tmp_path, path, "2")
    assert alone and shared == alone
    assert b"child left" not in err
    assert [line for line in alone_log if not line.startswith("main ")] == []  # one go
    main_pid = next(line.split()[1] for line in log if line.startswith("main "))
    parts = [line for line in log if not line.startswith("main ")]
    writers = {line.split()[0] for line in parts if "TurnReport" in line}
    # Written by the worker processes, not the main one (how many of the workers took a
    # part is the scheduler's business: one may take them all on a busy machine).
    assert writers and main_pid not in writers
    assert main_pid not in {line.split()[0] for line in parts}  # every list's parts
    for written in ("ConversationReport", "TurnReport", "ProviderObject", "Verdict"):
        starts = sorted(int(line.split()[2]) for line in parts if line.split()[1] == written)
        assert starts and starts == list(range(0, 2 * len(starts), 2))  # every part once


def test_verdicts_hashed_in_workers_leave_openssl_out_of_the_main_process(
        tmp_path: Path) -> None:
    """A hosted conversation's verdict hashes its rebuilt input when written (hashlib:
    OpenSSL, megabytes resident): in the workers, so the main process of a large capture's
    report never loads it; one process does. Three copies of the hostile sample under
    other response ids: three such verdicts, two parts."""
    text = (ROOT / "sample_traces" / "hostile.jsonl").read_text()
    path = tmp_path / "three.jsonl"
    path.write_text("".join(text.replace("resp_68ac88", f"resp_{k}8ac88") for k in range(3)))
    alone, alone_err, _ = _report(tmp_path, str(path), "1")
    shared, err, log = _report(tmp_path, str(path), "2")
    assert shared == alone and shared.count(b'"rebuilt_sha256": "') == 3
    assert b"hashlib loaded" in alone_err and b"hashlib loaded" not in err
    main_pid = next(line.split()[1] for line in log if line.startswith("main "))
    verdicts = [line.split() for line in log if "Verdict" in line]
    assert sorted(start for _, _, start in verdicts) == ["0", "2"]
    assert main_pid not in {pid for pid, _, _ in verdicts}


def _big_capture(tmp_path: Path) -> Path:
    """4,000 turns: a document of megabytes, far more than a pipe holds."""
    path = tmp_path / "big.jsonl"
    with path.open("w") as f:
        for i in range(4000):
            f.write(f'{{"dir": "req", "id": "r{i}", "body": {{"model": "gpt-4o", '
                    f'"input": "question {i}"}}}}\n')
            f.write(f'{{"dir": "res", "id": "r{i}", "body": {{"object": "response", '
                    f'"id": "resp_{i}", "status": "completed", "output": [], '
                    f'"usage": {{"input_tokens": 7, "output_tokens": 1}}}}}}\n')
    return path


def _forked_report(path: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, TRACEVIEW_WORKERS="2", TRACEVIEW_PARALLEL_MIN_ROWS="0")
    return subprocess.Popen([sys.executable, "-m", "traceview", "report", str(path),
                             "--format", "json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=env, start_new_session=True)


def test_forked_writers_into_a_closed_pipe_exit_quietly(tmp_path: Path) -> None:
    """`report | head -1` while the workers write: exit 0, nothing on stderr."""
    proc = _forked_report(_big_capture(tmp_path))
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b"{\n"
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0, err
    assert err == b"", err


def test_ctrl_c_while_the_forked_writers_write_exits_130_and_leaves_no_worker(
        tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the terminal's process group) while the workers are blocked on a
    full pipe: one line, exit 130, and every process of the group gone."""
    import signal

    proc = _forked_report(_big_capture(tmp_path))
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b"{\n"  # the workers are writing; the pipe fills
    os.killpg(proc.pid, signal.SIGINT)
    proc.stdout.read()  # to its end: every writer has closed it
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 130, err
    assert b"Traceback" not in err and err.strip().count(b"\n") == 0, err
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)
