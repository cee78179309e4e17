"""The text report's evidence glyphs, read without colour: a hosted call that ran and found
nothing (`results: []`) is `∅` — not `✓` captured, not `✗` missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders import conv_turn, file_search, message, write
from traceview.cli import main


def text_report(path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["report", "--format", "text", "--width", "160", str(path)]) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(("results", "glyph"), [([], "∅"), (None, "✗"),
                                                 ([{"file_id": "f", "text": "x"}], "✓")])
def test_each_evidence_has_its_glyph_in_the_turn_row(tmp_path, capsys, results, glyph):
    output = [file_search("fs_1", results), message("The excess is £250.")]
    path = write(tmp_path / "c.jsonl", conv_turn("conv_1", "What's the excess?", "r1", 1200,
                                                 40, tools=True, output=output))
    [row] = [line for line in text_report(path, capsys) if line.startswith("1  What")]
    assert f"file_search {glyph}" in row


def test_a_long_tool_name_keeps_its_glyph_in_the_narrow_hosted_column(tmp_path, capsys):
    """The hosted column is 14 wide: a code_interpreter call (or three) is abbreviated, its
    evidence glyph and the count of the others kept, as the inspector's column does —
    never `code_interpre…` with the ✗ cut off."""
    call = {"id": "ci_1", "type": "code_interpreter_call", "status": "completed",
            "code": "print(2 ** 10)", "container_id": "cntr_1", "outputs": None}
    for n, cell in ((1, "code_interp… ✗"), (3, "code_int… ✗ +2")):
        output = [{**call, "id": f"ci_{i}"} for i in range(n)] + [message("1024")]
        path = write(tmp_path / f"ci{n}.jsonl", conv_turn("conv_1", "What's 2**10?", "r1", 900,
                                                          40, output=output))
        [row] = [line for line in text_report(path, capsys) if line.startswith("1  What")]
        assert cell in row
