"""The proxy's upstream pool uses the SDK's own connection limits without importing the SDK."""

from __future__ import annotations

import subprocess
import sys


def test_limits_without_the_sdk_loaded_equal_the_sdks() -> None:
    code = ("import sys; from traceview.record.transport import _default_limits; "
            "lim = _default_limits(); assert 'openai' not in sys.modules; "
            "from openai._constants import DEFAULT_CONNECTION_LIMITS as d; "
            "assert lim == d, (lim, d); print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    assert out.stdout.strip() == "ok", out.stderr
