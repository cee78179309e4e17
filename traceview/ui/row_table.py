"""A Line-API table: renders only the visible rows of an indexable sequence.

Stock DataTable measures every cell up front and freezes for seconds at 100k rows; this
widget asks each column to render a cell only when its row scrolls into view, so a
million rows cost the same as ten. Columns are fixed-width except one flexible column.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from traceview.ui.safe_text import safe, visible


@dataclass(frozen=True)
class Column:
    """One column: a title, a width (0 = takes the free space) and a cell renderer."""

    title: str
    width: int
    cell: Callable[[Any], str | Text]
    align: str = "right"
    min_width: int = 8


def _fit(value: str | Text, width: int, align: str) -> Text:
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


class RowTable(ScrollView, can_focus=True):
    """Rows of an external sequence with a cursor; posts Highlighted/Selected."""

    COMPONENT_CLASSES = {"row-table--cursor", "row-table--header", "row-table--marked"}
    BINDINGS = [
        Binding("down,j", "cursor(1)", "Down", show=False, id="rows.down"),
        Binding("up,k", "cursor(-1)", "Up", show=False, id="rows.up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="rows.page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="rows.page_up"),
        Binding("home,g", "jump(0)", "First row", show=False, id="rows.first"),
        Binding("end,G", "jump(-1)", "Last row", show=False, id="rows.last"),
        Binding("enter", "select", "Open", show=True, id="rows.select"),
    ]

    cursor: reactive[int] = reactive(0, always_update=True, repaint=False)

    class Highlighted(Message):
        def __init__(self, table: RowTable, row: int) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> RowTable:
            return self.table

    class Selected(Highlighted):
        pass

    def __init__(
        self,
        columns: list[Column],
        *,
        marked: Callable[[Any], bool] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns = columns
        self.rows: Sequence[Any] = ()
        self._marked = marked
        self._strips: LRUCache[tuple[int, int, int, bool], Strip] = LRUCache(1024)
        self._generation = 0

    # -- data ---------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[Any], cursor: int = 0) -> None:
        """Show a new sequence (may keep growing; call rows_grew after appends)."""
        self.rows = rows
        self._generation += 1
        self._strips.clear()
        self.virtual_size = Size(self.size.width, len(rows))
        self.cursor = max(0, min(cursor, len(rows) - 1))
        self.scroll_to_cursor(animate=False)
        self.refresh()

    def rows_grew(self) -> None:
        """The sequence got longer: extend the scroll range, repaint only if visible."""
        old = self.virtual_size.height
        self.virtual_size = Size(self.size.width, len(self.rows))
        if old <= self.scroll_offset.y + self.size.height:
            self.refresh()
        if old == 0 and self.rows:
            self.cursor = 0

    def current(self) -> Any | None:
        if 0 <= self.cursor < len(self.rows):
            return self.rows[self.cursor]
        return None

    # -- layout -------------------------------------------------------------------------
    def widths(self, total: int) -> list[int]:
        fixed = sum(c.width for c in self.columns if c.width) + len(self.columns) - 1
        flex = max(0, total - fixed - 1)
        return [c.width or max(c.min_width, flex) for c in self.columns]

    def header_text(self, total: int) -> Text:
        parts = [
            _fit(c.title, w, c.align) for c, w in zip(self.columns, self.widths(total), strict=True)
        ]
        return Text(" ").join(parts)

    def row_text(self, row: Any, total: int) -> Text:
        parts = [
            _fit(c.cell(row), w, c.align)
            for c, w in zip(self.columns, self.widths(total), strict=True)
        ]
        return Text(" ").join(parts)

    def on_resize(self) -> None:
        self._strips.clear()
        self.virtual_size = Size(self.size.width, len(self.rows))

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.size.width
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        is_cursor = index == self.cursor
        key = (self._generation, index, width, is_cursor and self.has_focus)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._render_row(index, width, is_cursor)
            self._strips[key] = strip
        return strip

    def _render_row(self, index: int, width: int, is_cursor: bool) -> Strip:
        row = self.rows[index]
        text = self.row_text(row, width)
        base = self.rich_style
        if self._marked is not None and self._marked(row):
            base += self.get_component_rich_style("row-table--marked", partial=True)
        if is_cursor:
            cursor_style = self.get_component_rich_style("row-table--cursor")
            if not self.has_focus:
                cursor_style = Style(bgcolor=cursor_style.bgcolor, dim=False)
            base += cursor_style
        segments = [Segment(s.text, base + s.style if s.style else base) for s in
                    text.render(self.app.console)]
        return Strip(segments).extend_cell_length(width, base).crop(0, width)

    # -- cursor -------------------------------------------------------------------------
    def watch_cursor(self, old: int, new: int) -> None:
        self._refresh_row(old)
        self._refresh_row(new)
        self.scroll_to_cursor()
        if self.rows:
            self.post_message(self.Highlighted(self, new))

    def _refresh_row(self, index: int) -> None:
        y = index - self.scroll_offset.y
        if 0 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def scroll_to_cursor(self, animate: bool = False) -> None:
        self.scroll_to_region(
            Region(0, self.cursor, 1, 1), animate=animate, force=True, immediate=True
        )

    def on_focus(self) -> None:
        self._refresh_row(self.cursor)

    def on_blur(self) -> None:
        self._refresh_row(self.cursor)

    def move_to(self, index: int) -> None:
        if self.rows:
            self.cursor = max(0, min(index, len(self.rows) - 1))

    def action_cursor(self, delta: int) -> None:
        self.move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self.move_to(self.cursor + direction * max(1, self.size.height - 1))

    def action_jump(self, where: int) -> None:
        self.move_to(len(self.rows) - 1 if where < 0 else 0)

    def action_select(self) -> None:
        if self.rows:
            self.post_message(self.Selected(self, self.cursor))

    def on_click(self, event: events.Click) -> None:
        index = self.scroll_offset.y + event.y
        if 0 <= index < len(self.rows):
            if index == self.cursor and event.chain >= 2:
                self.action_select()
            self.cursor = index
