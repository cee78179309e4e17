"""Shared fixtures for the inspector tests: sample paths and a fixed environment."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

os.environ["TEXTUAL_ANIMATIONS"] = "none"

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"


def sample(name: str) -> str:
    path = SAMPLES / f"{name}.jsonl"
    assert path.exists(), f"sample capture {path} is missing (sample_traces/ is checked in)"
    return str(path)


@pytest.fixture
def claims() -> str:
    return sample("claims")


@asynccontextmanager
async def opened(path: str | Path, size: tuple[int, int],
                 *keys: str) -> AsyncIterator[tuple[Any, Pilot[Any]]]:
    """The inspector on `path` at `size`, read to the end, after `keys` are pressed: the
    start every screen test shares (app, pilot)."""
    from traceview.ui.app import make_app

    app = make_app([str(path)])
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
            await pilot.pause()
        yield app, pilot
