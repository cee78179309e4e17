"""A Line-API table: renders only the visible rows of an indexable sequence.

Stock DataTable measures every cell up front and freezes for seconds at 100k rows; this
widget asks each column to render a cell only when its row scrolls into view, so a
million rows cost the same as ten. Columns are fixed-width except one flexible column.

Narrow terminals: each column has a priority. Columns that do not fit (highest priority
number first) move past the right edge, where →/← scroll to them; the first column stays
pinned so a scrolled row still says which turn it is. Some columns shrink before any
column moves (``shrink``), and may render themselves for the width they got (``fit``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from rich.cells import cell_len
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
from textual.widget import Widget

from traceview.ui.widgets.columns import Column, fit_cell, lay_out

__all__ = ["Column", "RowHeader", "RowTable"]


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
        Binding("right", "scroll_columns(1)", "Columns →", show=False, id="rows.right"),
        Binding("left", "scroll_columns(-1)", "Columns ←", show=False, id="rows.left"),
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
        self.hidden: set[str] = set()
        self._layout_generation = 0
        self._columns_cache: tuple[tuple[int, int, int], list[tuple[Column, int]]] | None = None
        self._need: dict[str, int] = {}  # growing columns' widest cell not yet fitted
        self.header: Any = None  # a RowHeader that repaints when the view scrolls sideways

    # -- data ---------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[Any], cursor: int = 0) -> None:
        """Show a new sequence (may keep growing; call rows_grew after appends)."""
        self.rows = rows
        self._generation += 1
        self._strips.clear()
        self._update_virtual()
        self.cursor = max(0, min(cursor, len(rows) - 1))
        self.scroll_to_cursor(animate=False)
        self.refresh()

    def rows_grew(self) -> None:
        """The sequence got longer: extend the scroll range, repaint only if visible."""
        old = self.virtual_size.height
        self._update_virtual()
        if old <= self.scroll_offset.y + self.size.height:
            self.refresh()
        if old == 0 and self.rows:
            self.cursor = 0

    def current(self) -> Any | None:
        if 0 <= self.cursor < len(self.rows):
            return self.rows[self.cursor]
        return None

    # -- layout -------------------------------------------------------------------------
    def fit_columns(self, total: int) -> list[tuple[Column, int]]:
        """Columns in screen order with their widths (columns.py `lay_out`), kept until
        the width, the hidden columns or a column changes."""
        cache_key = (total, len(self.hidden), self._layout_generation)
        if self._columns_cache is not None and self._columns_cache[0] == cache_key:
            return self._columns_cache[1]
        out = lay_out([c for c in self.columns if c.title not in self.hidden], total)
        self._columns_cache = (cache_key, out)
        return out

    def widths(self, total: int) -> list[int]:
        return [w for _, w in self.fit_columns(total)]

    def full_width(self, total: int) -> int:
        parts = self.fit_columns(total)
        return sum(w for _, w in parts) + len(parts) - 1 + 1

    def _line(self, parts: list[Text]) -> Text:
        return Text(" ").join(parts)

    def header_text(self, total: int) -> Text:
        return self._line([fit_cell(c.title, w, c.align) for c, w in self.fit_columns(total)])

    def row_text(self, row: Any, total: int) -> Text:
        parts = []
        for c, w in self.fit_columns(total):
            cell = c.fit(row, w) if c.fit is not None else c.cell(row)
            if c.grow and cell_len(cell.plain if isinstance(cell, Text) else cell) > w:
                self._wider(c, cell)
            parts.append(fit_cell(cell, w, c.align))
        return self._line(parts)

    def _wider(self, column: Column, cell: str | Text) -> None:
        """A growing column's cell did not fit: the column is widened after this paint
        (a row is drawn cut for one frame, then whole)."""
        need = cell_len(cell.plain if isinstance(cell, Text) else cell)
        if need > self._need.get(column.title, 0):
            if not self._need:
                self.call_after_refresh(self._widen)
            self._need[column.title] = need

    def _widen(self) -> None:
        need, self._need = self._need, {}
        for at, column in enumerate(self.columns):
            if need.get(column.title, 0) > column.width:
                self.set_column(at, replace(column, width=need[column.title]))

    def pinned_width(self, total: int) -> int:
        parts = self.fit_columns(total)
        return parts[0][1] + 1 if len(parts) > 1 else 0

    def scrolled(self, line: Strip, width: int) -> Strip:
        """The visible part of a full-width line: the pinned first column, then the rest
        from the horizontal scroll offset."""
        x = int(self.scroll_offset.x)
        if not x:
            return line.crop(0, width)
        pin = min(self.pinned_width(width), width)
        return Strip.join([line.crop(0, pin), line.crop(pin + x, pin + x + width - pin)])

    def hidden_right(self) -> bool:
        return self.scroll_offset.x + self.size.width < self.virtual_size.width

    def on_resize(self) -> None:
        self._strips.clear()
        self._update_virtual()

    def _update_virtual(self) -> None:
        width = self.size.width
        rows_before = self.virtual_size.height
        self.virtual_size = Size(max(self.full_width(width), self._reach(width) + width),
                                 len(self.rows))
        height = self.styles.height
        if height is not None and height.is_auto and len(self.rows) != rows_before:
            self.refresh(layout=True)  # a table sized to its rows grows with them
        if self.header is not None:
            self.header.refresh()

    def _column_starts(self, width: int) -> list[int]:
        """Where each scrollable column starts, counted from the end of the pinned one."""
        starts, x = [], 0
        for _, w in self.fit_columns(width)[1:]:
            starts.append(x)
            x += w + 1
        return starts

    def _reach(self, width: int) -> int:
        """The furthest horizontal offset: the first column start that shows the last
        column whole (the scroll range is padded to it, so no stop cuts a column)."""
        limit = max(0, self.full_width(width) - width)
        return next((s for s in self._column_starts(width) if s >= limit), limit)

    def watch_scroll_x(self, old: float, new: float) -> None:
        super().watch_scroll_x(old, new)
        if self.header is not None:
            self.header.refresh()
        self.refresh()

    def action_scroll_columns(self, direction: int) -> None:
        """→/←: move the view by a group of whole columns, as a page: → brings the first
        column not wholly shown to the left edge (beside the pinned one), so every column
        that was cut or hidden next is shown whole; ← shows the columns before the left
        edge, as many as fit. A column is never half shown at the left."""
        width = self.size.width
        reach = self._reach(width)
        span = max(1, width - self.pinned_width(width))  # cells the scrolled columns get
        current = int(self.scroll_offset.x)
        columns = [(s, w) for s, (_, w) in zip(self._column_starts(width),
                                                self.fit_columns(width)[1:], strict=True)]
        starts = [s for s, _ in columns if s <= reach]
        if direction > 0:
            cut = next((s for s, w in columns if s + w > current + span), None)
            if cut is None or cut <= current:  # all shown, or one column wider than the view
                target = next((s for s in starts if s > current), current)
            else:
                target = min(cut, reach)
        else:
            target = next((s for s in starts if current - span <= s < current),
                          next((s for s in reversed(starts) if s < current), 0))
        self.scroll_to(x=target, animate=False, immediate=True)

    def restyle(self) -> None:
        """The theme changed: drop every cached row so all of them repaint at once."""
        self._generation += 1
        self._strips.clear()
        self.refresh()
        if self.header is not None:
            self.header.refresh()

    def set_column(self, at: int, column: Column) -> None:
        """Replace one column (e.g. `#` widened for four-digit turn numbers)."""
        self.columns = [*self.columns[:at], column, *self.columns[at + 1:]]
        self._layout_generation += 1
        self._generation += 1
        self._strips.clear()
        self._update_virtual()
        self.refresh()

    def toggle_column(self, title: str) -> bool:
        """Hide or show a column by title; True if it is now shown."""
        if title in self.hidden:
            self.hidden.discard(title)
        elif title != self.columns[0].title:
            self.hidden.add(title)
        self._layout_generation += 1
        self._generation += 1
        self._strips.clear()
        self._update_virtual()
        if self.header is not None:
            self.header.refresh()
        self.refresh()
        return title not in self.hidden

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
        return self.scrolled(strip, width)

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
        full = max(width, self.virtual_size.width)
        return Strip(segments).extend_cell_length(full, base).crop(0, full)

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
            Region(int(self.scroll_offset.x), self.cursor, 1, 1), animate=animate, force=True,
            immediate=True,
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


class RowHeader(Widget):
    """The column titles of a RowTable, kept aligned with its columns."""

    def __init__(self, table: RowTable, id: str | None = None) -> None:
        super().__init__(id=id)
        self.table = table

    def on_mount(self) -> None:
        self.table.header = self

    def render(self) -> Text:
        """The titles, scrolled with the table; arrows say that columns lie beyond."""
        table = self.table
        width = table.size.width or self.size.width
        full = table.header_text(width)
        x = int(table.scroll_offset.x)
        pin = min(table.pinned_width(width), width)
        text = full[:pin] + full[pin + x : pin + x + width - pin] if x else full[:width]
        if x:
            text = text[: max(0, pin - 1)] + Text("←", style="bold") + text[pin:]
        if table.hidden_right():
            text = text[: max(0, width - 1)] + Text("→", style="bold")
        return text
