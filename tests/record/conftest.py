"""Fixtures: a loopback simulator and a helper to read a capture back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
