"""The turns view's title and legend: which capture and conversation are shown, how many
turns and markers, the load and follow state; and what each shown marker means.

Apart from the screen (main.py), which lays the view out and answers its keys: these
say what is shown, from the rows and the load state, whenever either changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from rich.text import Text
from textual.css.query import NoMatches

from traceview.ui import format as fmt
from traceview.ui.safe_text import safe
from traceview.ui.state import ALL
from traceview.ui.widgets.account import capture_name, plural
from traceview.ui.widgets.title_bar import Part, TitleBar
from traceview.ui.widgets.turns_table import INFORMATIONAL

if TYPE_CHECKING:
    from textual.widget import Widget

    from traceview.analysis.seams import TurnRow
    from traceview.ui.inspector import Inspector

    W = TypeVar("W", bound=Widget)


class TurnsTitle:
    """The title bar and legend of the turns view (mixed into MainScreen)."""

    SORTS: list[tuple[str, str | None]]
    rows: list[TurnRow]
    key: str | None
    filter_text: str
    search_text: str
    sort_at: int
    inspector: Inspector
    #: (key, the state's by_key it was found in, its 1-based position there)
    _position_of: tuple[str | None, Any, int] | None

    if TYPE_CHECKING:  # the screen's own, declared for the type checker only
        def query_one(self, selector: str, expect_type: type[W]) -> W: ...
        def search_label(self) -> str: ...

    def refresh_title(self) -> None:
        state = self.inspector.state
        name = capture_name(self.inspector.sources)
        parts = [
            Part(4, [Text("traceview", style="bold")]),
            Part(2, [safe(name), safe(fmt.short_id(name, 16))]),
            Part(3, [safe(self.conversation_label()), safe(self.conversation_label(short=True))]),
        ]
        turns = Text(plural(len(self.rows), "turn"))
        if self.filter_text:
            turns.append_text(safe(f" matching “{self.filter_text}”", style="italic"))
        if self.search_text:
            turns.append_text(safe(self.search_label(), style="italic"))
        if self.SORTS[self.sort_at][1] is not None:
            turns.append(f" by {self.SORTS[self.sort_at][0]} ↓", style="italic")
        parts.append(Part(0, [turns]))
        counts = self.marker_counts()
        markers = Text(plural(sum(counts.values()), "marker"))
        if counts:
            markers.append(
                " (" + " ".join(f"{fmt.marker_symbol(m)}{n}" for m, n in counts.items()) + ")"
            )
        parts.append(Part(0, [markers]))
        if set(counts) - INFORMATIONAL:
            # How to reach them, on the first screen too (the legend is hidden when short).
            parts.append(Part(2, [Text("m: next marked", style="italic"),
                                  Text("m →", style="italic")]))
        if self.inspector.follow.gone is not None:
            # Until a file is there again: the rows shown are the last ones read.
            parts.append(Part(0, [Text(f"⚠ file {self.inspector.follow.gone}", style="bold"),
                                  Text("⚠ file gone", style="bold")]))
        elif self.inspector.follow.told_replaced:
            # Until R: the rows shown are the old file's, whatever follow mode says.
            parts.append(Part(0, [Text("⚠ file replaced or truncated: R reads it again",
                                       style="bold"),
                                  Text("⚠ replaced: R reloads", style="bold")]))
        if self.inspector.follow_label():
            parts.append(Part(1, [Text(self.inspector.follow_label(), style="italic")]))
        if state.problems:
            parts.append(
                Part(0, [Text(f"{plural(len(state.problems), 'problem')} (p)", style="bold")])
            )
        if not state.done:
            frac = state.fraction
            bar = f"{frac:.0%}" if frac is not None else f"{state.lines:,} lines"
            parts.append(Part(1, [Text(f"⟳ loading {bar}", style="italic")], separator="  "))
        elif state.error:
            parts.append(Part(0, [safe(f"load stopped: {state.error}", style="bold")],
                              separator="  "))
        try:
            title = self.query_one("#title", TitleBar)
        except NoMatches:  # the screen is gone (a load's last message after it closed)
            return
        title.set_parts(parts)

    def conversation_label(self, short: bool = False) -> str:
        state = self.inspector.state
        if self.key is None:
            return "no turns" if state.done else "no turns yet"
        if self.key == ALL:
            return f"all {len(state.by_key):,} conversations"
        conv = state.conversations.get(self.key)
        name = (getattr(conv, "id", None) if conv else None) or self.key
        kind = f"{conv.kind} " if conv is not None and getattr(conv, "kind", None) else ""
        label = f"{kind}{fmt.short_id(name, 24)}"
        if short:
            return fmt.short_id(name, 12)
        if len(state.by_key) > 1:
            label += f" ({self._key_position():,} of {len(state.by_key):,}, c to pick)"
        return label

    def _key_position(self) -> int:
        """Where the shown conversation is among the capture's (1-based; 0: not there).

        The title asks on every batch of a load, and a conversation keeps its place once
        it has one (keys are in order of their first turn): looked up once per key, not by
        listing some 20,000 keys each time."""
        state = self.inspector.state
        cached = self._position_of
        if cached is not None and cached[0] == self.key and cached[1] is state.by_key:
            return cached[2]
        position = list(state.by_key).index(self.key) + 1 if self.key in state.by_key else 0
        if position:
            self._position_of = (self.key, state.by_key, position)
        return position

    def marker_counts(self) -> dict[str, int]:
        """From the ConversationReport once loaded; while loading, a tally of the rows."""
        conv = self.inspector.state.conversations.get(self.key or "")
        if conv is not None and not self.filter_text:
            counts = dict(conv.markers or {})
        else:
            counts = {}
            for turn in self.rows:
                for marker in turn.markers or ():
                    counts[marker] = counts.get(marker, 0) + 1
        order = {m: i for i, m in enumerate(fmt.known_markers())}
        return dict(sorted(counts.items(), key=lambda kv: order.get(kv[0], len(order))))

    def show_legend(self) -> None:
        """The legend's entries, each whole (the box lays them out for its width)."""
        from traceview.ui.widgets.legend_box import LegendBox

        present: list[str] = []
        for marker in self.marker_counts():
            if marker not in present:
                present.append(marker)
        entries: list[Text] = []
        for marker in present:
            entry = Text(f"{fmt.marker_symbol(marker)} ", style="bold")
            entry.append_text(safe(fmt.marker_meaning(marker)))
            entries.append(entry)
        if set(present) - INFORMATIONAL:
            entry = Text("m", style="bold")
            entry.append(" / ")
            entry.append("M", style="bold")
            entry.append(" next / previous marked turn")
            entries.append(entry)
        entries.append(Text("hosted: ✓ captured ∅ empty ✗ missing · unexpl.≈ is an estimate",
                            style="dim"))
        self.query_one("#legend", LegendBox).show(entries)
