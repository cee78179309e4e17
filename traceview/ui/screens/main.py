"""The turns view: header, turns table, chart, legend, the selected turn's account (its
title and legend say what they say in turns_title.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Input, Static

from traceview.ui import format as fmt
from traceview.ui.messages import BodyMatches
from traceview.ui.safe_text import safe
from traceview.ui.screens.base import InspectorScreen
from traceview.ui.screens.turns_find import LIVE_LIMIT, TurnsFind
from traceview.ui.screens.turns_output import TurnsOutput
from traceview.ui.screens.turns_title import TurnsTitle
from traceview.ui.search import matches
from traceview.ui.state import ALL
from traceview.ui.widgets.account import account_text
from traceview.ui.widgets.chart import TurnChart
from traceview.ui.widgets.footer import KeyFooter
from traceview.ui.widgets.legend_box import LegendBox
from traceview.ui.widgets.row_table import RowHeader, RowTable
from traceview.ui.widgets.text_scroll import TextScroll
from traceview.ui.widgets.title_bar import TitleBar
from traceview.ui.widgets.turns_table import make_turns_table

if TYPE_CHECKING:
    from traceview.analysis.seams import TurnRow


# TurnsTitle after the screen: its `query_one` stub is for its own type checking, and
# the screen's own (Textual's) is the one this screen's code is checked against.
class MainScreen(TurnsFind, TurnsOutput, InspectorScreen, TurnsTitle):
    """One conversation's turns at a time, with the selected turn explained below."""

    VIEW = "turns"

    BINDINGS = [
        Binding("m", "next_marked(1)", "Next marked", id="turns.next_marked"),
        Binding("M", "next_marked(-1)", "Prev marked", id="turns.previous_marked"),
        Binding("slash", "search", "Search", id="turns.search"),
        Binding("n", "next_match(1)", "Next match", show=False, id="turns.next_match"),
        Binding("N", "next_match(-1)", "Prev match", show=False, id="turns.previous_match"),
        Binding("ampersand", "filter", "Filter", show=False, id="turns.filter"),
        Binding("r", "raw", "Raw bodies", id="turns.raw"),
        Binding("escape", "clear_filter", "Clear search", show=False,
                id="turns.clear_filter"),
        Binding("colon", "goto", "Go to", show=False, id="turns.goto"),
        Binding("S", "sort", "Sort", show=False, id="turns.sort"),
        Binding("y", "copy", "Copy id", show=False, id="turns.copy"),
        Binding("Y", "copy_json", "Copy row JSON", show=False, id="turns.copy_json"),
        Binding("E", "export", "Export CSV", show=False, id="turns.export"),
        Binding("L", "chart_scale", "Chart log/linear", show=False, id="turns.chart_scale"),
    ]

    #: Sort keys, cycled by S: (column title, TurnReport attribute). None: file order.
    SORTS: list[tuple[str, str | None]] = [
        ("#", None), ("billed in", "input_tokens"), ("unexpl.≈", "unexplained_tokens"),
        ("sent", "request_bytes"), ("cached", "cached_tokens"), ("out", "output_tokens"),
        ("ms", "caller_elapsed_ms"),  # the latency the column shows (attempts included)
    ]

    def __init__(self) -> None:
        super().__init__(id="main")
        self.key: str | None = None
        self.filter_text = ""
        #: `/`: the query, and the positions in `rows` of the turns it matches.
        self.search_text = ""
        self.hits: list[int] = []
        self.body_hits: set[int] = set()
        self.body_progress: tuple[int, int] | None = None
        self.rows: list[TurnRow] = []
        self.sort_at = 0  # index into SORTS
        #: (key, the state's by_key it was found in, its 1-based position there)
        self._position_of: tuple[str | None, Any, int] | None = None
        #: The newest conversation when turns last arrived (follow mode tails into a newer).
        self._newest: str | None = None

    def compose(self) -> ComposeResult:
        yield TitleBar(id="title")
        table = make_turns_table()
        yield RowHeader(table, id="turns-header")
        yield table
        yield TurnChart(id="chart")
        yield LegendBox(id="legend")
        with TextScroll(id="summary"):
            yield Static(id="summary-text")
        yield Input(placeholder="filter: text, marker or hosted tool (deposit, ⊕, file_search, ✗)",
                    id="filter")
        yield Input(placeholder="search: id, model, tool, marker or text (n/N next/prev)",
                    id="search")
        yield Input(placeholder="go to: turn number, resp_…/conv_…/call_… id, or L123 (line)",
                    id="goto")
        yield KeyFooter()

    @property
    def table(self) -> RowTable:
        return self.query_one("#turns", RowTable)

    def on_mount(self) -> None:
        from dataclasses import replace

        table = self.table
        # `#` counts within the conversation shown; across the capture in "all turns".
        table.columns = [replace(table.columns[0], cell=lambda t: fmt.num(self.number(t)),
                                 value=self.number),
                         *table.columns[1:]]
        self.query_one(TurnChart).number = self.number
        self._recall_settings()
        table.focus()
        self.refresh_title()

    def _recall_settings(self) -> None:
        """Hidden columns and the sort the user chose last time (traceview/config.py)."""
        if not self.inspector.remember_theme:
            return
        from traceview.config import load_settings

        settings = load_settings()
        titles = {c.title for c in self.table.columns[1:]}
        for title in settings.get("turns_hidden", []):
            if title in titles and title not in self.table.hidden:
                self.table.toggle_column(title)
        sorts = [t for t, _ in self.SORTS]
        if settings.get("turns_sort") in sorts:
            self.sort_at = sorts.index(settings["turns_sort"])
            if self.key is not None:  # turns that arrived before this screen mounted
                self._rebuild()

    def remember(self, key: str, value: Any) -> None:
        if self.inspector.remember_theme:
            from traceview.config import save_setting

            if save_setting(key, value) is None:
                self.notify("could not save the setting to the config file", markup=False)

    def number(self, turn: TurnRow) -> int:
        """The number `#` shows: per conversation when one is shown (the detail and the
        report keep the capture-wide index)."""
        if self.key == ALL:
            return turn.index
        return self.inspector.state.position(turn) or turn.index

    def on_resize(self) -> None:
        self.set_class(self.size.height <= 30, "-short")

    # -- data -----------------------------------------------------------------------------
    def show_conversation(self, key: str, turn_index: int | None = None) -> None:
        self.key = key
        self._rebuild(turn_index)

    def _rebuild(self, turn_index: int | None = None) -> None:
        state = self.inspector.state
        source = state.rows_for(self.key) if self.key is not None else []
        query = self.filter_text
        self.rows = [t for t in source if matches(t, query)] if query else source
        attr = self.SORTS[self.sort_at][1]
        if attr is not None:
            # Descending, unknown values last: the biggest bill or deposit on top.
            self.rows = sorted(self.rows, key=lambda t: (getattr(t, attr) is None,
                                                         -(getattr(t, attr) or 0)))
        cursor = 0
        if turn_index is not None:
            for i, turn in enumerate(self.rows):
                if turn.index == turn_index:
                    cursor = i
                    break
        self.table.set_rows(self.rows, cursor)
        self._find_hits()
        self._fit_table()
        self.refresh_title()
        self.show_current()

    def reset(self) -> None:
        """Forget the shown conversation (the capture is being read again)."""
        self.key = None
        self.rows = []
        self.table.set_rows(self.rows)
        self.show_current()
        self.refresh_title()

    def turns_added(self, turns: list[TurnRow], touched: set[str]) -> None:
        """New turns arrived: grow the visible list only if they belong to it.

        The cursor stays on its turn, unless it was on the last row: then it follows the
        newest turn (like ``tail -f``)."""
        table = self.table
        on_last = bool(self.rows) and table.cursor == table.virtual_size.height - 1
        by_key = self.inspector.state.by_key
        newest = self._newest
        self._newest = now = next(reversed(by_key), None)
        if self.key is None and touched:
            # Following a capture that was empty, the newest conversation is shown (as
            # below); reading one, its first.
            tail = self.inspector.follow.on and self.inspector.state.done
            self.key = next(reversed(by_key)) if tail else next(iter(by_key))
            self._rebuild(by_key[self.key][-1].index if tail else None)
            return
        if on_last and self.inspector.follow.on and now is not None and self.key == newest != now:
            # On the newest conversation's last turn, a newer conversation is followed into,
            # as a newer turn is (a proxy of stateless calls makes each call one).
            self.show_conversation(now, by_key[now][-1].index)
            return
        if self.key == ALL or self.key in touched:
            if self.SORTS[self.sort_at][1] is not None:
                current = self.table.current()
                self._rebuild(current.index if current else None)
                return
            if self.filter_text:
                self.rows.extend(
                    t for t in turns if self._in_view(t) and matches(t, self.filter_text)
                )
            was_empty = self.table.virtual_size.height == 0
            self.table.rows_grew()
            self._fit_table()
            if on_last and self.inspector.follow.on and len(self.rows) > table.cursor + 1:
                table.move_to(len(self.rows) - 1)
            elif was_empty:
                self.show_current()
            else:
                self.query_one(TurnChart).show(self.rows, self.table.cursor, self.empty_text())
        self.refresh_title()

    def _fit_table(self) -> None:
        """A short conversation's table takes only its rows: the account gets the room;
        `#` is as wide as the largest number it shows (never `2,8…`)."""
        state = self.inspector.state
        if self.key == ALL:
            biggest = max((t.index for t in state.turns[-1:]), default=0)
        else:
            biggest = len(state.by_key.get(self.key or "", ()))
        width = max(4, len(fmt.num(max(biggest, len(self.rows)))))
        table = self.table
        if table.columns[0].width != width:
            from dataclasses import replace

            table.set_column(0, replace(table.columns[0], width=width))
        self.table.styles.max_height = max(3, len(self.rows)) if len(self.rows) < 200 else None

    def _in_view(self, turn: TurnRow) -> bool:
        from traceview.ui.state import conversation_key

        return self.key == ALL or conversation_key(turn) == self.key

    # -- selection ------------------------------------------------------------------------
    @on(RowTable.Highlighted, "#turns")
    def _highlighted(self, event: RowTable.Highlighted) -> None:
        self.show_current()
        if self.search_text:
            self.refresh_title()

    @on(RowTable.Selected, "#turns")
    def _selected(self, event: RowTable.Selected) -> None:
        self.inspector.action_detail()

    def empty_text(self) -> str:
        if self.filter_text:
            return f"no turns match /{self.filter_text}"
        state = self.inspector.state
        if not state.done:
            return "no turns yet"
        from traceview.report.problems import not_captures

        foreign = not_captures(state.problems, read_anything=False)
        if foreign:  # a package.json, a text file: why it is not a capture
            return foreign[0] if len(foreign) == 1 else (
                f"none of the {len(foreign)} files is a capture (p lists why)")
        n = len(state.problems)  # read to the end: say why nothing is shown
        return (f"no turns in this capture: {n:,} problem{'' if n == 1 else 's'} (p lists them)"
                if n else "no turns in this capture")

    def show_current(self) -> None:
        turn = self.table.current()
        self.query_one(TurnChart).show(self.rows, self.table.cursor, self.empty_text())
        summary = self.query_one("#summary-text", Static)
        if turn is None:
            summary.update(safe(self.empty_text() if self.filter_text else "no turn selected"))
        else:
            # A short screen gets the finding and a line of the user's message, not a page.
            limit = 2000 if self.size.height > 30 else max(40, self.size.width - 12)
            summary.update(account_text(turn, user_limit=limit), layout=False)
            # Lay the screen out again only if the account's height changed: the layout
            # pass is most of a key's cost, and consecutive turns' accounts are mostly
            # of one height.
            width = summary.content_size.width
            parent = summary.parent
            if not width or summary.get_content_height(
                    parent.size if isinstance(parent, Widget) else summary.size,
                    self.size, width) != summary.content_size.height:
                summary.refresh(layout=True)
        self.show_legend()

    def current_turn(self) -> TurnRow | None:
        return self.table.current()

    # -- actions --------------------------------------------------------------------------
    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.add_class("visible")
        box.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.apply_filter(event.value)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.table.focus()
        if not event.value:
            self.query_one("#filter", Input).remove_class("visible")

    def on_body_matches(self, message: BodyMatches) -> None:
        self.body_matches(message)

    def apply_filter(self, query: str) -> None:
        current = self.table.current()
        self.filter_text = query.strip()
        self._rebuild(current.index if current is not None else None)

    def action_clear_filter(self) -> None:
        """esc: close the go-to prompt, else the search, then the filter."""
        goto = self.query_one("#goto", Input)
        if goto.has_class("visible"):
            goto.remove_class("visible")
            self.table.focus()
            return
        search = self.query_one("#search", Input)
        if self.search_text or search.has_class("visible"):
            search.value = ""
            search.remove_class("visible")
            self.apply_search("")
            self.table.focus()
            return
        box = self.query_one("#filter", Input)
        if self.filter_text or box.has_class("visible"):
            box.value = ""
            box.remove_class("visible")
            self.apply_filter("")
            self.table.focus()

    # -- search: every row stays, the cursor goes to the matches (like less, lnav) -------
    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        # Live while typing where one pass is quick; on a big view, at enter only.
        if len(self.rows) <= LIVE_LIMIT:
            self.apply_search(event.value)

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        self.apply_search(event.value, bodies=True)  # enter: the bodies on disk as well
        # The line closes; the search stays (the title shows `/query` and the count,
        # n / N step through the matches, esc clears them, `/` edits the query).
        self.query_one("#search", Input).remove_class("visible")
        self.table.focus()

    def action_raw(self) -> None:
        self.inspector.action_detail(raw=True)

    # -- habits from other apps: go to, sort, copy, export, columns ------------------------
    @on(Input.Submitted, "#goto")
    def _goto_submitted(self, event: Input.Submitted) -> None:
        box = self.query_one("#goto", Input)
        box.remove_class("visible")
        self.table.focus()
        self.go_to(event.value)

    def action_sort(self) -> None:
        """S: the next sort; the view starts at its top, the cursor on the first row."""
        self.sort_at = (self.sort_at + 1) % len(self.SORTS)
        self._rebuild()
        self.remember("turns_sort", self.SORTS[self.sort_at][0])
        title, attr = self.SORTS[self.sort_at]
        self.notify("in file order" if attr is None else f"sorted by {title}, largest first",
                    markup=False, timeout=2)

    def action_chart_scale(self) -> None:
        self.query_one(TurnChart).toggle_log()

    def toggle_column(self, title: str) -> None:
        shown = self.table.toggle_column(title)
        self.remember("turns_hidden", sorted(self.table.hidden))
        self.notify(f"column {title} {'shown' if shown else 'hidden'}", markup=False, timeout=2)
