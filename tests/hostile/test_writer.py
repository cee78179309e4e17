"""The recorder on a full disk or a size limit: whole lines only, and the application's
billed call still succeeds (one warning), unless recording failures are asked to be fatal."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import orjson

from tests.fixtures_shared import ROOT

# A child process with a file size limit: writes past it fail with EFBIG (SIGXFSZ ignored),
# which is what a full disk (ENOSPC) looks like to the writer.
_CHILD = textwrap.dedent("""
    import resource, signal, sys, warnings
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    import openai
    import traceview.record
    from traceview.record import Recorder
    from traceview.sim import SimServer

    capture, limit, strict = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "strict"
    with SimServer() as sim:
        recorder = Recorder(capture, strict=strict)
        client = traceview.record.client(recorder, base_url=sim.base_url,
                                         api_key="sk-sim-test-000000000000", max_retries=0)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        ok = 0
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for i in range(6):
                try:
                    r = client.responses.create(model="gpt-4.1", input=f"question {i} " * 20)
                    ok += r.output_text is not None
                except Exception as exc:
                    print("raised", type(exc).__name__)
        print("ok", ok, "warnings", sum(1 for w in caught if "cannot record" in str(w.message)))
""")


def _run(tmp_path: Path, limit: int, mode: str) -> tuple[str, Path]:
    capture = tmp_path / "cap.jsonl"
    out = subprocess.run([sys.executable, "-c", _CHILD, str(capture), str(limit), mode],
                         capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    assert "Traceback" not in out.stderr, out.stderr
    return out.stdout, capture


def test_a_full_disk_never_leaves_a_partial_line_nor_fails_the_call(tmp_path: Path) -> None:
    stdout, capture = _run(tmp_path, 3000, "lenient")
    assert "ok 6 warnings 1" in stdout, stdout  # every billed call returned; warned once
    raw = capture.read_bytes()
    assert 0 < len(raw) <= 3000
    assert raw.endswith(b"\n")
    for line in raw.splitlines():
        orjson.loads(line)  # whole records only


def test_strict_recording_makes_the_failure_the_applications(tmp_path: Path) -> None:
    stdout, capture = _run(tmp_path, 3000, "strict")
    assert "raised" in stdout, stdout
    for line in capture.read_bytes().splitlines():
        orjson.loads(line)
