"""The report, byte for byte, pinned: a performance change must not change what it says.

sha256 of `traceview report --format json --explain` (the whole document, every turn's
sentences included), of the text report (width 100) and of the default JSON report (no
prose) for every
real fixture, every sample and a 2,400-line slice of each generated shape (tests/shapes,
deterministically; with workers, its rows are written in forked parts as a large capture's
are). A digest that changes means the report changed: if that was meant
(a new key, a fixed number), re-pin in one process with
`TRACEVIEW_GOLDEN_UPDATE=1 pytest -p no:xdist tests/report/test_golden_report.py`
and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.shapes import big_turns, hosted
from traceview.cli import main

ROOT = Path(__file__).parent.parent.parent

SLICE_LINES = 2_400
SLICES = {"bench_slice.jsonl": big_turns.generate, "hosted_slice.jsonl": hosted.generate}


def captures() -> list[str]:
    """Relative paths (the report names its sources as given)."""
    real = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests/fixtures/real").glob("*.jsonl"))
    samples = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "sample_traces").glob("*.jsonl"))
    return real + samples


def make_slices(where: Path) -> None:
    for name, gen in SLICES.items():
        if not (where / name).exists():
            gen(where / name, 10**12, lines=SLICE_LINES)


def digest(capsysbinary: pytest.CaptureFixture[bytes], *argv: str) -> str:
    main(["report", *argv])
    return hashlib.sha256(capsysbinary.readouterr().out).hexdigest()


def compute(capsysbinary: pytest.CaptureFixture[bytes], path: str) -> tuple[str, str, str]:
    return (digest(capsysbinary, path, "--format", "json", "--explain"),
            digest(capsysbinary, path, "--format", "text", "--width", "100"),
            digest(capsysbinary, path, "--format", "json"))


PINNED = Path(__file__).with_name("golden_reports.json")
GOLDEN: dict[str, list[str]] = json.loads(PINNED.read_text()) if PINNED.exists() else {}
UPDATE = os.environ.get("TRACEVIEW_GOLDEN_UPDATE") == "1"


def check(name: str, got: tuple[str, str, str]) -> None:
    if UPDATE and os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.fail("re-pin in one process (-p no:xdist): workers overwrite each other's pins")
    if UPDATE:  # re-pin (module docstring)
        GOLDEN[name] = list(got)
        PINNED.write_text(json.dumps(dict(sorted(GOLDEN.items())), indent=1) + "\n")
    assert list(got) == GOLDEN.get(name), f"{name}: report changed (json --explain, text, json)"


@pytest.fixture(scope="module")
def slice_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("golden")
    make_slices(where)
    return where


@pytest.fixture(params=["one process", "workers"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """One process, or facts made in 2 worker processes over chunks of a few kB (so every
    capture is cut in many places, mid-conversation and mid-stream)."""
    if request.param == "workers":
        monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
        monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
        monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "5000")
    else:
        monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    return str(request.param)


@pytest.mark.parametrize("path", captures())
def test_report_is_byte_identical(path: str, mode: str,
                                  capsysbinary: pytest.CaptureFixture[bytes],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    check(path, compute(capsysbinary, path))


@pytest.mark.parametrize("name", sorted(SLICES))
def test_bench_slice_report_is_byte_identical(name: str, mode: str, slice_dir: Path,
                                              capsysbinary: pytest.CaptureFixture[bytes],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    if mode == "workers":
        monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", str(1 << 20))
        # Past this many turns the rows are made in forked workers: the slice crosses it.
        monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_ROWS", "1000")
    monkeypatch.chdir(slice_dir)
    check(name, compute(capsysbinary, name))


def test_a_directory_reads_the_same_with_workers(capsysbinary: pytest.CaptureFixture[bytes],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file of a directory goes to a worker whole (and in chunks when large)."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    one = compute(capsysbinary, "tests/fixtures/real")
    monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "20000")
    assert compute(capsysbinary, "tests/fixtures/real") == one


def test_every_capture_is_pinned() -> None:
    assert set(GOLDEN) == set(captures()) | set(SLICES)
