"""Fixtures and paths shared by every test package (registered by tests/conftest.py).

`ROOT`, `SAMPLES` and `REAL` name the checkout, the bundled samples and the real-traffic
fixtures once; `sim` is a fresh loopback simulator per test, on a port the OS picked, so
tests run side by side under pytest-xdist; `run_cli` runs a headless command in this process.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from traceview.cli import main
from traceview.sim import SimServer

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_traces"
REAL = ROOT / "tests" / "fixtures" / "real"


@pytest.fixture
def sim() -> Iterator[SimServer]:
    with SimServer() as server:
        yield server


def run_cli(*args: str, env: Mapping[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """`traceview ARGS` through its `main()` in this process, with what a process would give
    back: stdout and stderr bytes, and the exit code (1 and the traceback on stderr for an
    uncaught exception). For tests about what a headless command writes rather than about
    the process around it: a fresh interpreter costs 0.3 s of CPU, 1.3 s with the SDK.
    Environment, working directory and standard streams are put back afterwards."""
    out, err = io.BytesIO(), io.BytesIO()
    streams = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8"),
               io.TextIOWrapper(out, encoding="utf-8", write_through=True),
               io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace",
                                write_through=True))
    saved = sys.stdin, sys.stdout, sys.stderr, os.getcwd(), dict(os.environ)
    sys.stdin, sys.stdout, sys.stderr = streams
    os.environ.update(env or {})
    os.chdir(cwd or ROOT)
    try:
        try:
            code: object = main(list(args))
        except SystemExit as exc:
            code = exc.code
            if isinstance(code, str):
                print(code, file=sys.stderr)
        except Exception:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr, cwd_before, env_before = saved
        os.chdir(cwd_before)
        os.environ.clear()
        os.environ.update(env_before)
        for stream in streams:
            stream.detach()
    rc = code if isinstance(code, int) else (0 if code is None else 1)
    return subprocess.CompletedProcess(["traceview", *args], rc, out.getvalue(),
                                       err.getvalue())
