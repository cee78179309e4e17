"""Shared helpers: run `traceview` in-process and read its outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main

# The top-level samples (sample_traces/ab/ holds an experiment's arms, not used here).
SAMPLE_FILES = sorted(str(p) for p in SAMPLES.glob("*.jsonl"))


class Run:
    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *args: str) -> tuple[int, str, str]:
        rc = main([str(a) for a in args])
        out = self.capsys.readouterr()
        return rc, out.out, out.err


@pytest.fixture
def tv(capsys: pytest.CaptureFixture[str]) -> Run:
    return Run(capsys)


@pytest.fixture(scope="session")
def samples_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The samples exported to Parquet once for the session."""
    out = tmp_path_factory.mktemp("export") / "samples"
    rc = main(["export", *SAMPLE_FILES, "--to", "parquet", "-o", str(out)])
    assert rc == 1  # damaged.jsonl has problems: reported, not fatal
    return out
