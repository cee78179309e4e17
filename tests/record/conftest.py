"""Fixtures: a loopback simulator and a helper to read a capture back."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import openai
import pytest

API_KEY = "sk-proj-TESTKEYdoNotLeak0123456789abcdefXYZ"


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    return tmp_path / "trace" / "capture.jsonl"


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every line must be a whole JSON object; fails loudly otherwise."""
    raw = path.read_bytes()
    assert raw.endswith(b"\n"), "capture must end with a complete line"
    return [json.loads(line) for line in raw.splitlines()]


@contextmanager
def proxy_process(out: Path, upstream: str,
                  stop: int) -> Iterator[tuple[subprocess.Popen[str], openai.OpenAI]]:
    """`traceview proxy` as a user runs it, in its own process: it and an SDK client pointed
    at it (from the banner it prints once bound); sent `stop` (a signal) on the way out."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "traceview", "proxy", "--port", "0", "-o", str(out),
         "--upstream", upstream], stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        banner = "".join(proc.stderr.readline() for _ in range(2))
        base = re.search(r"OPENAI_BASE_URL=(\S+)", banner)
        assert base, banner
        client = openai.OpenAI(base_url=base.group(1), api_key=API_KEY, max_retries=0)
        try:
            yield proc, client
        finally:
            client.close()
    finally:
        proc.send_signal(stop)
