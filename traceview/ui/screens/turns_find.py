"""The turns view's finding: `/` search with n/N, and `:` go to (a turn number, a line,
an id). The screen owns the prompts; this holds what they do (ui/search.py the rule)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from traceview.ui.search import matches
from traceview.ui.state import ALL

if TYPE_CHECKING:
    from traceview.analysis.seams import TurnRow
    from traceview.ui.app import InspectorApp
    from traceview.ui.widgets.row_table import RowTable


class TurnsFind:
    """Search and go-to for the turns view (mixed into MainScreen)."""

    rows: list[TurnRow]
    key: str | None
    filter_text: str
    search_text: str
    hits: list[int]
    inspector: InspectorApp

    if TYPE_CHECKING:  # the screen's own, declared for the type checker only
        @property
        def table(self) -> RowTable: ...
        def notify(self, message: str, **kwargs: Any) -> None: ...
        def refresh_title(self) -> None: ...
        def _rebuild(self, turn_index: int | None = None) -> None: ...
        def action_clear_filter(self) -> None: ...

    def apply_search(self, query: str) -> None:
        """Find ``query`` in the rows shown and move to the first match at or below the
        cursor (wrapping to the top)."""
        self.search_text = query.strip()
        self._find_hits()
        if self.hits:
            here = self.table.cursor
            self.table.move_to(next((h for h in self.hits if h >= here), self.hits[0]))
        self.refresh_title()

    def _find_hits(self) -> None:
        query = self.search_text
        self.hits = [i for i, t in enumerate(self.rows) if matches(t, query)] if query else []

    def search_label(self) -> str:
        """`` · match 2 of 12 /resp_9``: where the cursor is among the matches."""
        if not self.hits:
            return f" · no match for /{self.search_text}"
        at = next((n for n, h in enumerate(self.hits, 1) if h == self.table.cursor), None)
        where = f"match {at:,} of {len(self.hits):,}" if at else f"{len(self.hits):,} matches"
        return f" · {where} /{self.search_text}"

    def action_next_match(self, direction: int) -> None:
        """n / N: the next (previous) matching row, wrapping around."""
        if not self.search_text:
            self.notify("no search: / searches ids, models, tools, markers and text",
                        markup=False, timeout=2)
            return
        if not self.hits:
            self.notify(f"no turn matches /{self.search_text}", markup=False, timeout=2)
            return
        here = self.table.cursor
        if direction > 0:
            target = next((h for h in self.hits if h > here), self.hits[0])
        else:
            target = next((h for h in reversed(self.hits) if h < here), self.hits[-1])
        self.table.move_to(target)
        self.refresh_title()

    def go_to(self, value: str) -> bool:
        """`:` takes a turn number (as `#` shows it), a line of the capture (``L123`` or
        ``line 123``), or an id the turn report holds (``resp_…``, ``conv_…``, ``call_…``)."""
        from traceview.ui.search import LINE_RE, find_id, find_line

        text = value.strip().replace(",", "")
        if text.isdigit():
            return self.go_to_turn(int(text))
        state = self.inspector.state
        line = LINE_RE.match(text)
        turn = (find_line(state.turns, int(line.group(1))) if line
                else find_id(state.turns, text) if text else None)
        if turn is None:
            what = f"line {line.group(1)}" if line else f"turn or id {text!r}"
            self.notify(f"no {what} in this capture (: takes a turn number, L123 or an id)",
                        markup=False)
            return False
        return self.go_to_turn(turn.index, capture_wide=True)

    def go_to_turn(self, number: int, capture_wide: bool = False) -> bool:
        """Select turn ``number`` as `#` shows it: within the conversation shown, else the
        capture-wide index (switching conversation if needed)."""
        from traceview.ui.state import conversation_key

        state = self.inspector.state
        group = state.by_key.get(self.key or "") if self.key != ALL else None
        turn: TurnRow | None
        if group is not None and 0 < number <= len(group) and not capture_wide:
            turn = group[number - 1]
            number = turn.index
        else:
            turn = state.by_index.get(number)
        if turn is None:
            self.notify(f"no turn {number:,} in this capture", markup=False)
            return False
        if not any(t is turn for t in self.rows):
            if self.filter_text:
                self.action_clear_filter()
            if self.key != ALL:
                self.key = conversation_key(turn)
        self._rebuild(number)
        return True
