"""Legends laid out for the width they get: an entry (`⊕ deposit …`, `░ backoff`) is never
split from its term, lines break between entries, and a meaning that needs more than one
line continues under itself (a hanging indent), not under the symbol.

Pure layout of Rich ``Text``: the words are the callers'."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from rich.text import Text


def _words(meaning: str, room: int) -> list[str]:
    """``meaning`` in lines of at most ``room`` cells, broken at spaces (a word longer
    than the room gets a line of its own)."""
    lines: list[str] = []
    line = ""
    for word in meaning.split():
        if line and cell_len(line) + 1 + cell_len(word) > room:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line or not lines:
        lines.append(line)
    return lines


def hanging(lead: Text, meaning: str, width: int | None, style: str = "") -> Text:
    """``lead`` (a symbol and a name, padded) then ``meaning``; when ``width`` is given
    and the meaning does not fit beside the lead, it wraps under its own first word."""
    out = lead.copy()
    indent = lead.cell_len
    room = (width or 0) - indent
    if width is None or room < 16:  # no width known, or too narrow to indent: one line
        out.append(meaning, style=style)
        return out
    for n, line in enumerate(_words(meaning, room)):
        if n:
            out.append("\n" + " " * indent)
        out.append(line, style=style)
    return out


def pack(entries: Iterable[Text], width: int | None, *, gap: int = 3,
         indent: int = 0) -> list[Text]:
    """Entries on as few lines as ``width`` allows, ``gap`` spaces apart, each whole on
    one line where it fits (one wider than a line gets lines of its own, broken at its
    spaces by the renderer). No width: every entry on one line."""
    lines: list[Text] = []
    line: Text | None = None
    for entry in entries:
        if line is None:
            line = Text(" " * indent) + entry
        elif width is not None and line.cell_len + gap + entry.cell_len > width:
            lines.append(line)
            line = Text(" " * indent) + entry
        else:
            line.append(" " * gap)
            line.append_text(entry)
    if line is not None:
        lines.append(line)
    return lines


def joined(lines: Sequence[Text]) -> Text:
    return Text("\n").join(lines)
