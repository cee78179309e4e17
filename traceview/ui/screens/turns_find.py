"""The turns view's finding: `/` search with n/N, `:` go to (a turn number, a line, an
id), and m/M to the next marked turn. The screen owns the prompts' widgets; this holds
what they do (ui/search.py the rule).

Search runs in two passes: the turn reports at once, then (on enter) the bodies on disk,
re-read and redacted in a thread worker that posts what it found every quarter second —
a key is never kept waiting for the disk."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import Input

from traceview.ui.messages import BodyMatches
from traceview.ui.search import matches
from traceview.ui.state import ALL
from traceview.ui.widgets.turns_table import is_marked

if TYPE_CHECKING:
    from traceview.analysis.seams import TurnRow
    from traceview.ui.inspector import Inspector
    from traceview.ui.widgets.row_table import RowTable


#: Views up to this many rows are searched as the user types; larger ones on enter.
LIVE_LIMIT = 2_000


class TurnsFind:
    """Search and go-to for the turns view (mixed into MainScreen)."""

    rows: list[TurnRow]
    key: str | None
    filter_text: str
    search_text: str
    hits: list[int]
    #: Turn indices the body pass found for `search_text`, and how far it got (None: idle).
    body_hits: set[int]
    body_progress: tuple[int, int] | None
    inspector: Inspector

    if TYPE_CHECKING:  # the screen's own, declared for the type checker only
        @property
        def table(self) -> RowTable: ...
        def notify(self, message: str, **kwargs: Any) -> None: ...
        def refresh_title(self) -> None: ...
        def _rebuild(self, turn_index: int | None = None) -> None: ...
        def action_clear_filter(self) -> None: ...

    def action_search(self) -> None:
        """/: the search line, opened."""
        self._prompt("#search")

    def action_goto(self) -> None:
        """:: the go-to line, opened empty."""
        self._prompt("#goto").value = ""

    def _prompt(self, selector: str) -> Input:
        screen: Any = self  # the prompts are the screen's this is mixed into
        box: Input = screen.query_one(selector, Input)
        box.add_class("visible")
        box.focus()
        return box

    def action_next_marked(self, direction: int) -> None:
        """m/M: the cursor to the next marked turn below (above)."""
        start = self.table.cursor + direction
        indices = range(start, len(self.rows)) if direction > 0 else range(start, -1, -1)
        for i in indices:
            if is_marked(self.rows[i]):
                self.table.move_to(i)
                return
        where = "below" if direction > 0 else "above"
        self.notify(f"no more marked turns {where}", markup=False)

    def apply_search(self, query: str, bodies: bool = False) -> None:
        """Find ``query`` in the rows shown and move to the first match at or below the
        cursor (wrapping to the top); ``bodies``: then search the bodies on disk too.

        A view of up to LIVE_LIMIT rows is searched here, as the user types; a bigger one
        at enter, in the worker, so no key waits for a pass over every turn."""
        query = query.strip()
        if query != self.search_text:
            screen: Any = self  # the worker belongs to the screen this is mixed into
            screen.workers.cancel_group(screen, "body-search")
            self.body_hits = set()
            self.body_progress = None
        self.search_text = query
        self._find_hits()
        if self.hits:
            self._move_to_first_hit()
        if bodies and query:
            self._search_bodies(query, reports=len(self.rows) > LIVE_LIMIT)
        self.refresh_title()

    def _move_to_first_hit(self) -> None:
        here = self.table.cursor
        self.table.move_to(next((h for h in self.hits if h >= here), self.hits[0]))

    def _find_hits(self) -> None:
        """``hits``: positions in ``rows`` of the matching turns (the turn reports searched
        here on a small view; what the worker found, by turn index, on any view)."""
        query = self.search_text
        if not query:
            self.hits = []
            return
        found = self.body_hits
        small = len(self.rows) <= LIVE_LIMIT
        self.hits = [i for i, t in enumerate(self.rows)
                     if t.index in found or (small and matches(t, query))]

    def _search_bodies(self, query: str, reports: bool) -> None:
        """The worker: (``reports``: first the turn reports, on a big view) then the bodies
        of every shown turn not yet matched, re-read from the capture and redacted;
        results arrive as BodyMatches messages every quarter second."""
        from traceview.ui.loader import read_bodies

        screen: Any = self  # the screen this is mixed into: it owns the worker
        session = self.inspector.session
        hit = {self.rows[h].index for h in self.hits}
        todo = [t for t in self.rows if t.index not in hit]
        needle = query.lower()
        self.body_progress = (0, len(todo))

        def work() -> None:
            import json
            import time

            from textual.worker import get_current_worker

            worker = get_current_worker()
            found: list[int] = []
            last = time.monotonic()

            def hit_by(turn: Any) -> bool:
                if reports and matches(turn, query):
                    return True
                loaded = read_bodies(session, turn)
                return needle in json.dumps([loaded.request, loaded.response],
                                            ensure_ascii=False, default=str).lower()

            for n, turn in enumerate(todo, 1):
                if worker.is_cancelled:
                    return
                if hit_by(turn):
                    found.append(turn.index)
                if time.monotonic() - last >= 0.25:
                    screen.post_message(BodyMatches(query, found, n, len(todo), False))
                    found, last = [], time.monotonic()
            screen.post_message(BodyMatches(query, found, len(todo), len(todo), True))

        screen.run_worker(work, thread=True, group="body-search", exclusive=True,
                          name="search the bodies")

    def body_matches(self, message: BodyMatches) -> None:
        """The worker found more: add them to the matches (the cursor stays put, unless
        nothing had matched before)."""
        if message.query != self.search_text:
            return
        self.body_hits.update(message.indices)
        self.body_progress = None if message.done else (message.read, message.total)
        had = bool(self.hits)
        if message.indices:
            new = set(message.indices)
            self.hits = sorted({*self.hits,
                                *(i for i, t in enumerate(self.rows) if t.index in new)})
        if self.hits and not had:
            self._move_to_first_hit()
        self.refresh_title()

    def search_label(self) -> str:
        """`` · match 2 of 12 /resp_9``: where the cursor is among the matches."""
        reading = ""
        if getattr(self, "body_progress", None):
            read, total = self.body_progress  # type: ignore[misc]
            reading = f" (searching bodies {read / max(total, 1):.0%})"
        if not self.hits:
            return f" · no match for /{self.search_text}{reading}"
        at = next((n for n, h in enumerate(self.hits, 1) if h == self.table.cursor), None)
        where = f"match {at:,} of {len(self.hits):,}" if at else f"{len(self.hits):,} matches"
        return f" · {where} /{self.search_text}{reading}"

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
