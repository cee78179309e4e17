"""bench/facts_ab.py still imports another checkout beside this one and prints both.

Run against this checkout itself: the copy under another name must import and read the
same lines. No figure is asserted beyond being measured.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import facts_ab
import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_both_checkouts_are_timed_side_by_side(small_capture: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    try:
        facts_ab.main([str(small_capture), "--against", str(ROOT), "--rounds", "2"])
    finally:
        for name in [m for m in sys.modules if m.startswith(facts_ab.OTHER)]:
            del sys.modules[name]
        sys.path[:] = [p for p in sys.path if "facts-ab-" not in p]
    out = capsys.readouterr().out
    for case in ("keep=True", "rows"):
        row = next(line for line in out.splitlines() if line.strip().startswith(case))
        ratio = float(re.findall(r"[\d.]+", row)[-1])
        assert 0.2 < ratio < 5, row  # both sides ran the same code on the same lines
    assert "orjson" in out and "120 turns" in out
