"""Shared fixtures for the inspector tests: sample paths and a fixed environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
