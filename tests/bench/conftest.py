"""The bench scripts are run as `python bench/x.py`, so they import each other by bare
name; their tests see them the same way. `small_capture` is a 240-line capture of each
generated shape (hosted: many small turns; bench: bigger ones)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent.parent / "bench"))
import gen_capture  # noqa: E402
import gen_hosted  # noqa: E402


@pytest.fixture(params=[gen_hosted.generate, gen_capture.generate], ids=["hosted", "bench"])
def small_capture(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    path = tmp_path / "capture.jsonl"
    request.param(path, 10**12, lines=240)
    return path
