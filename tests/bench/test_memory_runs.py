"""bench/memory.py still runs against today's pipeline and prints every row.

The script measures the heap each stage of `traceview report --format json` holds, its
floor (the same values at their tightest) and RSS at each point, plus the CLI's peak.
Other work moves the stages' seams (capture.load, session.attach_hosted_state, the
hosted-state passes); this keeps the instrument from rotting silently. No figure is
asserted beyond being measured.
"""

from __future__ import annotations

import io
from pathlib import Path

import memory


def test_every_stage_row_prints(small_capture: Path) -> None:
    path = small_capture
    out = io.StringIO()
    assert memory.main(["--repeat", "1", str(path)], out) == 0
    lines = out.getvalue().splitlines()
    for _, label in memory.STAGES:
        row = next(line for line in lines if line.startswith(label))
        cells = row[len(label):].split()
        assert len(cells) == 5, row  # held, floor, held/floor, RSS, peak RSS
        assert float(cells[-1]) > 0, row  # a peak RSS was read
    # Every stage that keeps data found some to floor (the passes were hit, not skipped).
    for label in ("after reading (table)", "after the analyzer", "after hosted: objects",
                  "after hosted: ledger", "after hosted: fidelity"):
        row = next(line for line in lines if line.startswith(label))
        assert float(row[len(label):].split()[1].replace(",", "")) > 0, row
    text = out.getvalue()
    assert "interpreter + imports baseline:" in text
    assert "RSS after analysis − imports RSS − held:" in text
    assert "CLI peak RSS, one process:" in text and "CLI peak RSS, 2 workers:" in text
    assert "% of the file" in text and "B/turn" in text


def test_the_floor_counts_values_at_their_tightest() -> None:
    from array import array

    floor = memory.Floor()
    shared = "gpt-4o"
    # Three rows naming one model: the string once (6 bytes + a 4-byte offset); small
    # numbers a byte each; the array's items at the width its range needs (2 bytes).
    rows = [[shared, 1, 2] for _ in range(3)]
    assert floor.walk(rows) == 4 + 3 * 4 + (6 + 4) + 3 * 2
    assert floor.walk(array("q", [0, 1000, 5])) == 3 * 2
    assert floor.walk(rows) == 0  # already counted: a later stage is not charged again
