"""bench/floors.py still runs against today's pipeline, and its floors still verify.

The script times the real report stage by stage at public seams (line_facts, the table's
add, Analyzer.add, the hosted-state passes, TurnReport.row, explain, redact_json, …) and
checks each floor's output against the real stage's. Other work moves those internals;
this keeps the instrument from rotting silently. No timing is asserted.
"""

from __future__ import annotations

import io
from pathlib import Path

import floors
import gen_hosted
import pytest


def test_every_stage_row_prints_and_every_floor_verifies(small_capture: Path) -> None:
    path = small_capture
    out = io.StringIO()
    code = floors.main(["--path", str(path), "--repeat", "1", "--no-cli"], out)
    text = out.getvalue()
    for _, label in floors.STAGES:
        assert label in text, label
    assert "SEAM NOT HIT" not in text
    assert "UNVERIFIED" not in text
    # The floors that compare outputs say so on their row.
    for label in ("1 decode+facts", "2 store in table", "3 pairing", "4 analyzer",
                  "5 hosted: ledger", "6 writer: rows", "6 writer: explanations",
                  "6 writer: lists"):
        row = next(line for line in text.splitlines() if line.startswith(label))
        assert "verified (" in row, row
    assert "one process: actual" in text and "all " in text and "cores" in text
    assert code == 0


def test_a_moved_seam_is_a_message_not_a_traceback(tmp_path: Path, monkeypatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "capture.jsonl"
    gen_hosted.generate(path, 10**12, lines=40)
    monkeypatch.setattr(floors, "SEAMS", [*floors.SEAMS,
                                          ("facts", "traceview.capture.reader", "gone", "call")])
    assert floors.main(["--path", str(path), "--repeat", "1", "--no-cli"], io.StringIO()) == 2
    assert "traceview.capture.reader.gone is gone" in capsys.readouterr().err


def test_a_wrong_path_is_a_message_not_a_traceback(capsys):
    """A path typed by hand that names no file: argparse's message and exit 2."""
    with pytest.raises(SystemExit) as stop:
        floors.main(["--path", "/nonexistent/trace.jsonl"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "no such capture: '/nonexistent/trace.jsonl'" in err and "Traceback" not in err
