"""bench/worker_instructions.py counts a stage's instructions under callgrind, here and in
another checkout (this one again): both counts are made and printed. Skipped where valgrind
is not installed; one stage over a few lines of the hosted shape, as a run under valgrind
is slow (four runs: a setup-only run and the stage, in each checkout)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import gen_hosted
import pytest
import worker_instructions

ROOT = Path(__file__).resolve().parents[2]
needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None,
                                    reason="valgrind is not installed")


@pytest.fixture
def hosted(tmp_path: Path) -> Path:
    path = tmp_path / "capture.jsonl"
    gen_hosted.generate(path, 10**12, lines=240)
    return path


@needs_valgrind
def test_a_stage_is_counted_here_and_in_the_other_checkout(
        hosted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    worker_instructions.main([str(hosted), "--lines", "40", "--stages", "res",
                              "--against", str(ROOT)])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.strip().startswith("res"))
    counts = re.findall(r"(?:this|other)\s+([\d,]+)", row)[:2]  # then "this/other <ratio>"
    this, other = (float(n.replace(",", "")) for n in counts)
    assert this > 0 and other > 0
    assert 0.9 < this / other < 1.1, row  # the same code, counted twice


@needs_valgrind
def test_an_unknown_stage_is_refused(hosted: Path) -> None:
    with pytest.raises(SystemExit, match="unknown stage"):
        worker_instructions.main([str(hosted), "--stages", "nope"])
