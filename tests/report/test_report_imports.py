"""`traceview report --format json` imports only what it uses: Rich (the text report's
console), OpenSSL (through hashlib or secrets) and multiprocessing (worker processes) are
each megabytes of resident memory that a one-process JSON report never needs; so are the
worker pool's futures and logging (~1 MB together)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent
# concurrent.futures pulls logging.
UNUSED = ("rich", "_hashlib", "multiprocessing", "concurrent.futures", "logging", "tempfile",
          "signal")


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

