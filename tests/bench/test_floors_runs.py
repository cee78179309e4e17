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
                  "5 hosted: objects", "5 hosted: ledger", "5 hosted: fidelity",
                  "6 writer: rows", "6 writer: explanations", "6 writer: lists"):
        row = next(line for line in text.splitlines() if line.startswith(label))
        assert "verified (" in row, row
    # The fidelity hashes the writer settles are floored, and their digests compared.
    lists = next(line for line in text.splitlines() if line.startswith("6 writer: lists"))
    assert "digests equal" in lists, lists
    for line in ("report json, one process", "report json, 2-core critical path",
                 "inspector full load, one process",
                 "inspector full load, 2-core critical path"):
        assert line in text, line
    assert code == 0


def test_a_floor_that_breaks_is_its_row_not_a_traceback(tmp_path: Path, monkeypatch) -> None:
    """Other work moves the internals a floor reads: that floor's row says so, every other
    stage is still measured, and the exit code is not 0."""
    path = tmp_path / "capture.jsonl"
    gen_hosted.generate(path, 10**12, lines=40)

    def broken(*_: object) -> None:
        raise KeyError("quoted_ids")

    monkeypatch.setattr(floors, "floor_objects", broken)
    out = io.StringIO()
    code = floors.main(["--path", str(path), "--repeat", "1", "--no-cli"], out)
    rows = {line.split("  ")[0]: line for line in out.getvalue().splitlines()}
    objects = next(v for k, v in rows.items() if k.startswith("5 hosted: objects"))
    assert "FLOOR FAILED (KeyError: 'quoted_ids')" in objects
    ledger = next(v for k, v in rows.items() if k.startswith("5 hosted: ledger"))
    assert "verified (" in ledger
    assert code == 1


def test_the_profile_gives_each_stage_its_functions(tmp_path: Path) -> None:
    """--profile: each stage's top functions by own time, the seams' own functions under
    their stage (line_facts' helpers under decode+facts, the analyzer's under it)."""
    path = tmp_path / "capture.jsonl"
    gen_hosted.generate(path, 10**12, lines=40)
    out = io.StringIO()
    floors.main(["--path", str(path), "--repeat", "1", "--no-cli", "--profile", "--top",
                 "40"], out)
    text = out.getvalue().split("profile by stage", 1)[1]
    blocks: dict[str, str] = {}
    head = ""
    for line in text.splitlines()[1:]:
        if line.startswith("    "):
            blocks[head] += line + "\n"
        elif line.startswith("  "):
            head = line.strip().split(":")[0]
            blocks[head] = ""
    facts = blocks["1 decode+facts (line_facts)"]
    assert "traceview/capture/reader.py" in facts and "(line_facts)" in facts
    assert "(add_all)" in blocks["4 analyzer (Analyzer.add)"]
    assert "(line_facts)" not in blocks["4 analyzer (Analyzer.add)"]


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
