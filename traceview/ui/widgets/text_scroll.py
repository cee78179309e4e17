"""A scrollable page of text that moves with the keys the lists use: j k, g G.

Textual's VerticalScroll takes the arrows, pgup/pgdn and home/end; the inspector's key
table (README, `?`) promises k j / g / G for moving everywhere, so every text page (help,
ledger, latency, what the model was shown, an account, bodies) is one of these."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll


class TextScroll(VerticalScroll):
    """A VerticalScroll that also scrolls with j / k and jumps with g / G."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Down", show=False, id="text.down"),
        Binding("k", "scroll_up", "Up", show=False, id="text.up"),
        Binding("g", "scroll_home", "Top", show=False, id="text.top"),
        Binding("G", "scroll_end", "Bottom", show=False, id="text.bottom"),
    ]
