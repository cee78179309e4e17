"""The headless core must never pull in the UI or the network."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("textual", "openai", "httpx", "httpx2", "uvicorn")


def test_core_imports_neither_textual_nor_network() -> None:
    code = (
        "import sys\n"
        "import traceview.capture, traceview.analysis, traceview.report.text\n"
        "import traceview.report.markdown, traceview.report.json_out\n"
        "from traceview.analysis import analyze\n"
        "import traceview.capture.formats, traceview.capture.formats.describe\n"
        "import traceview.analysis.compare, traceview.analysis.compare_arms\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
