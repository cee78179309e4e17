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
