"""traceview installed as a tool runs without the source tree.

The wheel is built here (offline, no build isolation) and run from an unpacked copy in an
empty directory, so nothing can come from the checkout: the pricing table, the styles, the
simulator's data and the bundled claims sample must all be package data.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(site dir holding the unpacked wheel, an empty working directory)."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "-o", str(out),
                    str(ROOT)], check=True, capture_output=True, timeout=300)
    wheel = next(out.glob("traceview-*.whl"))
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    return site, tmp_path_factory.mktemp("elsewhere")


def run(installed: tuple[Path, Path], *argv: str) -> subprocess.CompletedProcess[str]:
    site, cwd = installed
    env = {**os.environ, "PYTHONPATH": str(site), "TERM": "dumb"}
    return subprocess.run([sys.executable, "-m", "traceview", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_wheel_is_imported_not_the_checkout(installed):
    site, cwd = installed
    done = subprocess.run([sys.executable, "-c", "import traceview; print(traceview.__file__)"],
                          cwd=cwd, env={**os.environ, "PYTHONPATH": str(site)},
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip().startswith(str(site))


def test_version_and_the_bundled_sample(installed):
    site, _ = installed
    assert run(installed, "--version").stdout.startswith("traceview ")
    where = Path(run(installed, "sample", "--path").stdout.strip())
    assert where.is_relative_to(site) and where.name == "claims.jsonl"
    assert where.read_bytes() == (ROOT / "sample_traces" / "claims.jsonl").read_bytes()
    report = run(installed, "report", str(where), "--format", "json")
    assert report.returncode == 0, report.stderr
    doc = orjson.loads(report.stdout)
    assert len(doc["turns"]) == 4
    assert doc["totals"]["cost_usd"] is not None  # the pricing table shipped


def test_demo_records_and_reads_back_without_the_source_tree(installed):
    _, cwd = installed
    done = run(installed, "demo", "--no-open", "--out", "demo.jsonl")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert len((cwd / "demo.jsonl").read_bytes().splitlines()) >= 8


def test_the_inspector_draws_from_the_wheel(installed):
    """The stylesheet is package data: the turns screen renders the sample's numbers."""
    site, cwd = installed
    sample = run(installed, "sample", "--path").stdout.strip()
    done = run(installed, "screenshot", sample, "-o", "turns.svg", "--size", "120x30")
    assert done.returncode == 0, done.stderr
    svg = (cwd / "turns.svg").read_text()
    assert "6,110" in svg or "6110" in svg.replace("\u00a0", "")
