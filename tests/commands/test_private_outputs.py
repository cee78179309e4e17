"""Every file a command writes holds captured text or what is derived from it, so each is
0600 (folders 0700) as captures are: ab's manifest.json was 0644 beside its 0600 captures,
and exports, the sql cache and screenshots took the user's umask (0644)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main
from traceview.experiment import manifest
from traceview.sim import SimServer

CAPTURE = str(SAMPLES / "claims.jsonl")


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    before = os.umask(0o022)
    yield
    os.umask(before)


def _modes(root: Path) -> dict[str, int]:
    paths = [root, *root.rglob("*")] if root.is_dir() else [root]
    return {str(p.relative_to(root.parent)): stat.S_IMODE(p.stat().st_mode) for p in paths}


def _private(root: Path) -> None:
    modes = _modes(root)
    assert modes
    assert {p: m for p, m in modes.items() if m & 0o077} == {}
    assert os.umask(0o022) == 0o022  # the caller's umask is back once the command ends


@pytest.mark.parametrize("to", ["parquet", "csv", "duckdb", "otlp"])
def test_exports_are_private(to: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["export", CAPTURE, "--to", to, "-o", str(out)]) == 0
    _private(out)


def test_the_sql_cache_is_private(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sql", "SELECT count(*) FROM turns", CAPTURE, "--cache",
                 str(tmp_path / "cache")]) == 0
    _private(tmp_path / "cache")


def test_ab_results_folder_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-sim-test-000000000000")
    out = tmp_path / "r"
    with SimServer(seed="private") as sim:
        assert main(["ab", str(SAMPLES / "ab" / "source.jsonl"), "-o", str(out), "--model",
                     "gpt-4.1-2025-04-14", "--sample", "1", "--runs", "1", "--base-url",
                     sim.base_url, "--max-retries", "0"]) == 0
    assert {"manifest.json", "A.jsonl", "B.jsonl"} <= {p.name for p in out.iterdir()}
    _private(out)


def test_the_manifest_is_private_when_written_by_the_library(tmp_path: Path) -> None:
    manifest.write(tmp_path, {"schema": 1})
    assert stat.S_IMODE((tmp_path / manifest.NAME).stat().st_mode) == 0o600


def test_a_stricter_umask_is_kept(tmp_path: Path) -> None:
    os.umask(0o277)
    assert main(["export", CAPTURE, "--to", "otlp", "-o", str(tmp_path / "s.json")]) == 0
    assert stat.S_IMODE((tmp_path / "s.json").stat().st_mode) == 0o400
    assert os.umask(0o022) == 0o277
