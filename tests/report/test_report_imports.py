"""`traceview report --format json` imports only what it uses: Rich (the text report's
console), OpenSSL (through hashlib or secrets) and multiprocessing (worker processes) are
each megabytes of resident memory that a one-process JSON report never needs; so are the
worker pool's futures and logging, and the forked writer's tempfile (~1 MB together)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent
# concurrent.futures pulls logging; tempfile and signal serve only a forked writer.
UNUSED = ("rich", "_hashlib", "multiprocessing", "concurrent.futures", "logging", "tempfile",
          "signal")
# The fixtures' replay fidelity hashes their owned conversations' inputs (hashlib's sha256).
HASHED = tuple(m for m in UNUSED if m != "_hashlib")


def test_the_json_report_in_one_process_imports_no_console_openssl_or_multiprocessing(
        tmp_path: Path) -> None:
    code = (
        "import io, sys\n"
        "from traceview.cli import main\n"
        "out = sys.stdout = io.TextIOWrapper(io.BytesIO())\n"
        f"main(['report', '--format', 'json', {str(ROOT / 'sample_traces/claims.jsonl')!r}])\n"
        "sys.stdout = sys.__stdout__\n"
        "assert out.buffer.getvalue().startswith(b'{'), 'no report written'\n"
        f"print(','.join(m for m in {UNUSED!r} if m in sys.modules))\n"
    )
    env = {"TRACEVIEW_WORKERS": "1", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env, cwd=tmp_path)
    assert out.stdout.strip() == ""


def test_a_report_written_by_forked_children_imports_no_tempfile(tmp_path: Path) -> None:
    """A forked report's peak is the parent's: the children's directory is made without
    `tempfile` (random, math, weakref: ~270 kB), and nothing else of the list comes in."""
    code = (
        "import io, os, sys\n"
        "forks = [0]\n"
        "real = os.fork\n"
        "def fork():\n"
        "    forks[0] += 1\n"
        "    return real()\n"
        "os.fork = fork\n"
        "from traceview.cli import main\n"
        "out = sys.stdout = io.TextIOWrapper(io.BytesIO())\n"
        f"main(['report', '--format', 'json', {str(ROOT / 'tests/fixtures/real')!r}])\n"
        "sys.stdout = sys.__stdout__\n"
        "assert forks[0] >= 1, 'no range was forked'\n"
        f"print(','.join(m for m in {HASHED!r} if m in sys.modules))\n"
    )
    env = {"TRACEVIEW_WORKERS": "2", "TRACEVIEW_FORK_MIN_ROWS": "2", "PATH": "/usr/bin:/bin",
           "TMPDIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env, cwd=tmp_path)
    assert out.stdout.strip() == ""
