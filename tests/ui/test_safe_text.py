"""Capture text reaches the terminal only as visible, literal characters."""

from traceview.ui.safe_text import clip, safe, visible


def test_escape_sequences_and_controls_become_visible():
    shown = visible("a\x1b[31mred\x1b]8;;http://x\x07b\x00\x7f\x9bc\r\n\t")
    assert "\x1b" not in shown and "\x07" not in shown and "\x00" not in shown
    assert "\x9b" not in shown and "\x7f" not in shown and "\r" not in shown
    assert "\\x1b[31mred" in shown and "\\x07" in shown and "\\x9b" in shown


def test_bidi_overrides_are_shown_not_obeyed():
    assert visible("rtl\u202eoverride") == "rtl\\u202eoverride"


def test_multiline_keeps_newlines_only():
    assert visible("a\nb\x1b", multiline=True) == "a\nb\\x1b"
    assert visible("a\nb") == "a\\nb"


def test_markup_is_literal():
    text = safe("[bold red]pwned[/] [link=https://evil.example]x[/link]")
    assert text.plain == "[bold red]pwned[/] [link=https://evil.example]x[/link]"
    assert not text.spans


def test_clip_says_how_much_was_cut():
    assert clip("x" * 10, 4) == "xxxx… (+6 chars)"
    assert clip("short", 10) == "short"
