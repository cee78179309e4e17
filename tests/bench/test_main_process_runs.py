"""bench/main_process.py runs on both generated shapes and prints its three figures."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_main_process_figures_are_printed(small_capture: Path) -> None:
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "main_process.py"),
                          str(small_capture), "--repeat", "1"], cwd=ROOT, check=True,
                         capture_output=True, text=True, timeout=120).stdout
    assert "120 turns" in out
    for label in ("workers (main)", "one process", "analyzer"):
        row = next(line for line in out.splitlines() if line.strip().startswith(label))
        assert float(re.findall(r"[\d.]+", row)[0]) > 0, row
