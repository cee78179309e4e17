"""A row table's columns: what each shows and how wide it is, and how they share a
terminal's width (which stay, which shrink, which move past the right edge)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from traceview.ui.safe_text import safe, visible


@dataclass(frozen=True)
class Column:
    """One column: a title, a width (0 = takes the free space) and a cell renderer."""

    title: str
    width: int
    cell: Callable[[Any], str | Text]
    align: str = "right"
    min_width: int = 8
    #: 0: always on screen; higher numbers leave the screen first when it is narrow.
    priority: int = 0
    #: The narrowest a fixed column may get before anything else moves (None: its width).
    shrink: int | None = None
    #: Renders the cell for a given width (e.g. abbreviate a name, keep a symbol).
    fit: Callable[[Any, int], Text] | None = None
    #: The raw value behind the cell, for exports (None: the cell's text).
    value: Callable[[Any], Any] | None = None
    #: Widens to a cell that does not fit (a number is never cut: `1,234,…` reads as
    #: nothing); it stays that wide.
    grow: bool = False

    @property
    def least(self) -> int:
        if not self.width:
            return self.min_width
        return self.shrink if self.shrink is not None else self.width


def fit_cell(value: str | Text, width: int, align: str) -> Text:
    """One cell, made safe here whatever the column's renderer built (the table boundary)."""
    if isinstance(value, Text):
        plain = value.plain
        text = value.copy() if visible(plain) == plain else safe(plain, style=value.style)
    else:
        text = safe(value)
    text.no_wrap = True
    text.truncate(width, overflow="ellipsis")
    text.align("left" if align == "left" else "right", width)
    return text


def lay_out(cols: list[Column], total: int) -> list[tuple[Column, int]]:
    """The columns in screen order with their widths: those that fit ``total`` cells
    first (by priority), then the rest at their natural width, past the right edge."""
    shown = list(cols)
    def need(group: list[Column], natural: bool = False) -> int:
        widths = (c.width if natural and c.width and not c.priority else c.least
                  for c in group)
        return sum(widths) + len(group) - 1 + 1
    # Optional columns leave before a signal column has to shrink.
    for column in sorted((c for c in cols if c.priority), key=lambda c: -c.priority):
        if need(shown, natural=True) <= total:
            break
        shown.remove(column)
    spare = max(0, total - need(shown))
    widths: dict[int, int] = {}
    for c in sorted(shown, key=lambda c: c.priority):
        w = c.least
        if c.width and spare:
            grow = min(spare, c.width - w)
            w += grow
            spare -= grow
        widths[id(c)] = w
    for c in shown:
        if not c.width:
            widths[id(c)] += spare
            break
    out = [(c, widths[id(c)]) for c in shown]
    out += [(c, c.width or max(c.min_width, 24)) for c in cols if c not in shown]
    return out
