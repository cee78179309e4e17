"""Make untrusted capture text safe to print: no escape sequences, no control characters.

Everything a capture holds was written by someone else: a prompt can contain Rich
markup, ANSI/OSC escape sequences or bidi overrides. Renderers only ever build
``rich.text.Text`` objects (never markup strings) and pass every string through
:func:`visible` first, which swaps control and format characters for visible stand-ins
so nothing can style, link, move the cursor or reach the terminal raw. One table serves
the report and the inspector, so the same text reads the same in both.
"""

from __future__ import annotations

# Bidi embeddings/overrides/isolates and other invisible format characters that can
# reorder or hide text on screen.
_FORMAT_CHARS = "\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"


_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


def _stand_in(code: int) -> str:
    """The visible replacement for one control or format character: its escaped repr.

    Escapes (``\\x1b[31m``) read the same in every font and are what a developer
    recognises; the "Control Pictures" block is missing from many monospace fonts.
    """
    if code in _NAMED:
        return _NAMED[code]
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"  # bidi overrides and other format characters


def _build_table(keep_newlines: bool) -> dict[int, str]:
    table = {c: _stand_in(c) for c in range(0x20)}
    table[0x7F] = _stand_in(0x7F)
    for c in range(0x80, 0xA0):
        table[c] = _stand_in(c)
    for ch in _FORMAT_CHARS:
        table[ord(ch)] = _stand_in(ord(ch))
    if keep_newlines:
        del table[0x0A]
        table[0x09] = "    "
    return table


_ONE_LINE = _build_table(keep_newlines=False)
_MULTI_LINE = _build_table(keep_newlines=True)


def visible(value: object, *, multiline: bool = False) -> str:
    """Return ``value`` as a string with every control/format character made visible.

    ``multiline`` keeps line feeds (for wrapped prose); otherwise a newline becomes ``\\n``
    so a table cell stays on one line.
    """
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():  # the common case; translate() walks every character
        return text
    return text.translate(_MULTI_LINE if multiline else _ONE_LINE)



def plain(text: str) -> str:
    """One-line form of :func:`visible`, for table cells and report lines."""
    return visible(text)
