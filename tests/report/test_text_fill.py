"""The text report's note wrapping: greedy, at the width, with a hanging indent."""

from __future__ import annotations

from traceview.report.text import _fill


def test_a_note_wraps_at_the_width_with_a_hanging_indent() -> None:
    text = "turn 7: " + " ".join(["tokens"] * 30)
    lines = _fill(text, 60).split("\n")
    assert lines[0].startswith("  turn 7: ") and all(x.startswith("    ") for x in lines[1:])
    assert max(map(len, lines)) <= 60 and len(lines) == 4


def test_a_word_longer_than_the_width_stands_on_its_own_line() -> None:
    lines = _fill("a " + "x" * 80 + " b", 40).split("\n")
    assert lines == ["  a", "    " + "x" * 80, "    b"]


def test_the_text_report_has_no_trailing_spaces_where_rich_wraps_a_line(capsys) -> None:
    """A line Rich wraps at a space kept the space at its end: noise in every diff of two
    reports and every file an editor strips. The words and the breaks stay Rich's."""
    from pathlib import Path

    from traceview.cli import main

    claims = Path(__file__).resolve().parents[2] / "sample_traces" / "claims.jsonl"
    main(["report", str(claims), "--width", "80"])
    lines = capsys.readouterr().out.split("\n")
    assert [line for line in lines if line.endswith(" ")] == []
    assert "conversation conv_fb7345419a50a3d7b98beffebfac51c5819645f9216963a0 · 4 turns ·" \
        in lines
