"""Start-up: each command imports what it uses. ``--version`` loads no package of traceview
(not even the output boundary's patterns); ``report`` loads neither Textual nor the SDK."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _modules_after(argv: list[str]) -> set[str]:
    code = (
        "import io, sys\n"
        "from traceview.cli import main\n"
        "out = sys.stdout = io.TextIOWrapper(io.BytesIO())\n"
        f"status = main({argv!r})\n"
        "sys.stdout = sys.__stdout__\n"
        "print(status, ' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT, env={"TRACEVIEW_WORKERS": "1",
                                                     "PATH": "/usr/bin:/bin"})
    status, *names = done.stdout.split()
    assert status in ("0", "1"), done.stderr
    return set(names)


def test_version_loads_only_the_entry_point() -> None:
    loaded = {m for m in _modules_after(["--version"]) if m.startswith("traceview")}
    assert loaded == {"traceview", "traceview.cli", "traceview.commands"}


def test_report_loads_neither_the_inspector_nor_the_sdk() -> None:
    loaded = _modules_after(["report", "--format", "json",
                             str(ROOT / "sample_traces" / "claims.jsonl")])
    tops = {m.split(".")[0] for m in loaded}
    assert not tops & {"textual", "openai", "httpx", "httpx2", "uvicorn"}
    # The provider's limits are constants the report's --live flags show as defaults
    # (provider/limits.py imports nothing); the client itself is loaded only with --live.
    allowed = {"traceview.provider", "traceview.provider.limits"}
    assert not {m for m in loaded - allowed
                if m.startswith(("traceview.ui", "traceview.provider", "traceview.experiment",
                                 "traceview.sim"))}
