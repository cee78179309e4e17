"""Fixtures and paths shared by every test package (registered by tests/conftest.py).

`ROOT`, `SAMPLES` and `REAL` name the checkout, the bundled samples and the real-traffic
fixtures once; `sim` is a fresh loopback simulator per test, on a port the OS picked, so
tests run side by side under pytest-xdist.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from traceview.sim import SimServer

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_traces"
REAL = ROOT / "tests" / "fixtures" / "real"


@pytest.fixture
def sim() -> Iterator[SimServer]:
    with SimServer() as server:
        yield server
