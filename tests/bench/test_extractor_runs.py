"""bench/extractor.py still runs the Extractor both ways and prints each way's row.

No figure is asserted beyond being measured, but the rows say which kind of worker ran, and
neither imports multiprocessing in the main process: the forked children (the CLI's) and
the spawned ones (a load from a thread, the inspector's).
"""

from __future__ import annotations

import io
from pathlib import Path

import extractor
import pytest


def test_both_ways_print_a_row(small_capture: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "20000")  # several chunks, so workers work
    out = io.StringIO()
    assert extractor.main(["--repeat", "1", str(small_capture)], out) == 0
    rows = {line.split()[0]: line.split() for line in out.getvalue().splitlines()[2:]}
    assert set(rows) == {"fork", "spawn"}
    assert rows["fork"][-1] == "False" and rows["spawn"][-1] == "False"
    assert all(float(row[1]) > 0 for row in rows.values())  # main CPU was measured
    assert "orjson loop" in out.getvalue()
