"""The text report's note wrapping: a line at a time gives the lines a word at a time gave.

`_fill` finds each line's words with one rfind; `_fill_words` is the word-by-word wrap it
replaced (kept for text holding other kinds of space). Random texts with empty words,
leading and trailing spaces, words longer than the width and non-ASCII letters, at widths
from 1 to past the text, must wrap the same.
"""

from __future__ import annotations

import random

from traceview.report.text import _fill, _fill_words

WORDS = ["", "a", "ab", "word", "≈", "x" * 30, "y" * 120, "turn", "12,345", " ", "—",
         "\u00a0", "z\u3000z"]


def test_fill_wraps_like_the_word_by_word_wrap() -> None:
    rnd = random.Random(11)
    for _ in range(20_000):
        text = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(0, 40)))
        text = (" " if rnd.random() < 0.1 else "") + text + ("  " if rnd.random() < 0.1 else "")
        width = rnd.randint(1, 110)
        assert _fill(text, width) == _fill_words(text, width), (text, width)


def test_a_note_wraps_at_the_width_with_a_hanging_indent() -> None:
    text = "turn 7: " + " ".join(["tokens"] * 30)
    lines = _fill(text, 60).split("\n")
    assert lines[0].startswith("  turn 7: ") and all(x.startswith("    ") for x in lines[1:])
    assert max(map(len, lines)) <= 60 and len(lines) == 4
