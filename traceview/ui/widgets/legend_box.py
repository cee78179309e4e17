"""The turns view's legend: whole entries laid out for the width the box has.

An entry (a marker and its meaning, `m / M …`, the hosted note) is never cut: lines break
between entries (ui/legend.py), and when the entries need more lines than the box may
take, the last ones give way to a pointer to `?`, which lists every marker."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.geometry import Size
from textual.widgets import Static

from traceview.ui.legend import joined, pack

MORE = Text("… ? lists every marker and key", style="dim")  # a whole entry, never cut


class LegendBox(Static):
    """A Static (tests and screenshots read it as one) that lays out its own entries."""

    #: The most lines it takes (the table and the account keep the rest of the screen).
    MAX_LINES = 6

    def __init__(self, id: str | None = None, max_lines: int | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[Text] = []
        if max_lines is not None:
            self.MAX_LINES = max_lines

    def show(self, entries: Sequence[Text]) -> None:
        if list(entries) != self.entries:  # the same within a conversation: no redraw
            self.entries = list(entries)
            self._content_height_cache = (None, 0)
            self.refresh(layout=True)

    def layout_text(self, width: int) -> Text:
        """The entries that fit in MAX_LINES at ``width``, whole; MORE if some did not."""
        if width <= 0 or not self.entries:
            return Text()
        console = self.app.console
        for keep in range(len(self.entries), -1, -1):
            shown = self.entries[:keep] + ([MORE] if keep < len(self.entries) else [])
            text = joined(pack(shown, width))
            if len(text.wrap(console, width)) <= self.MAX_LINES:
                return text
        return MORE.copy()

    def render(self) -> Text:
        return self.layout_text(self.size.width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        text = self.layout_text(width)
        return len(text.wrap(self.app.console, width)) if text.plain else 0
