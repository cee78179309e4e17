"""The turns view: header, turns table, chart, legend, the selected turn's account."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Input, Static

from traceview.ui import format as fmt
from traceview.ui.inspector_screen import InspectorScreen
from traceview.ui.row_table import RowTable
from traceview.ui.safe_text import clip, safe
from traceview.ui.state import ALL, matches
from traceview.ui.turns import RowHeader, TurnChart, is_marked, make_turns_table


def plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def capture_name(sources: list[str]) -> str:
    if not sources:
        return "(no capture)"
    name = Path(sources[0]).name or sources[0]
    return name if len(sources) == 1 else f"{name} +{len(sources) - 1} more"


def account_text(turn: Any) -> Text:
    """The turn's explanation sentences (composed by the core) and its hosted calls."""
    out = Text()
    out.append(f"turn {turn.index}", style="bold")
    out.append_text(safe(f"  line {turn.line}  {turn.api}  {turn.status}", style="dim"))
    if getattr(turn, "model", None):
        out.append_text(safe(f"  {turn.model}", style="dim"))
    out.append("\n")
    if turn.user_text:
        out.append("user: ", style="dim")
        out.append_text(safe(clip(turn.user_text, 2000), style="italic", multiline=True))
        out.append("\n")
    for sentence in getattr(turn, "explanation", None) or []:
        out.append_text(safe(sentence, multiline=True))
        out.append("\n")
    if turn.unexplained_tokens is not None:
        out.append("(unexplained tokens are an estimate: billed − expected input)\n", style="dim")
    for call in turn.hosted_calls or []:
        out.append_text(hosted_line(call))
        out.append("\n")
    return out


def hosted_line(call: dict[str, Any]) -> Text:
    evidence = call.get("evidence")
    symbol = fmt.EVIDENCE_SYMBOLS.get(evidence, "?")
    line = Text("  ")
    line.append_text(safe(f"{fmt.hosted_type(call.get('type'))} {symbol} ", style="bold"))
    line.append_text(safe(f"{call.get('status') or fmt.DASH}  "))
    line.append_text(safe(fmt.EVIDENCE_MEANING.get(evidence, str(evidence))))
    if evidence == "missing" and call.get("include"):
        line.append_text(safe(f" — needs include=[\"{call['include']}\"]", style="italic"))
    queries = call.get("queries") or []
    if queries:
        line.append_text(safe("  queries: " + "; ".join(f"“{q}”" for q in queries)))
    if call.get("detail"):
        line.append_text(safe(f"  {call['detail']}", style="dim"))
    if call.get("id"):
        line.append_text(safe(f"  {call['id']}", style="dim"))
    return line


class MainScreen(InspectorScreen):
    """One conversation's turns at a time, with the selected turn explained below."""

    BINDINGS = [
        Binding("m", "next_marked(1)", "Next marked", id="turns.next_marked"),
        Binding("M", "next_marked(-1)", "Prev marked", id="turns.previous_marked"),
        Binding("slash", "filter", "Filter", id="turns.filter"),
        Binding("r", "raw", "Raw bodies", id="turns.raw"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="turns.clear_filter"),
    ]

    def __init__(self) -> None:
        super().__init__(id="main")
        self.key: str | None = None
        self.filter_text = ""
        self.rows: list[Any] = []


    def compose(self) -> ComposeResult:
        yield Static(id="title")
        table = make_turns_table()
        yield RowHeader(table, id="turns-header")
        yield table
        yield TurnChart(id="chart")
        yield Static(id="legend")
        with VerticalScroll(id="summary"):
            yield Static(id="summary-text")
        yield Input(placeholder="filter: text or marker (e.g. deposit, ⊕)", id="filter")
        yield Footer()

    @property
    def table(self) -> RowTable:
        return self.query_one("#turns", RowTable)

    def on_mount(self) -> None:
        self.table.focus()
        self.refresh_title()

    # -- data -----------------------------------------------------------------------------
    def show_conversation(self, key: str, turn_index: int | None = None) -> None:
        self.key = key
        self._rebuild(turn_index)

    def _rebuild(self, turn_index: int | None = None) -> None:
        state = self.inspector.state
        source = state.rows_for(self.key) if self.key is not None else []
        query = self.filter_text
        self.rows = [t for t in source if matches(t, query)] if query else source
        cursor = 0
        if turn_index is not None:
            for i, turn in enumerate(self.rows):
                if turn.index == turn_index:
                    cursor = i
                    break
        self.table.set_rows(self.rows, cursor)
        self.refresh_title()
        self._show_current()

    def turns_added(self, turns: list[Any], touched: set[str]) -> None:
        """New turns arrived: grow the visible list only if they belong to it."""
        if self.key is None and touched:
            self.key = next(iter(self.inspector.state.by_key))
            self._rebuild()
            return
        if self.key == ALL or self.key in touched:
            if self.filter_text:
                self.rows.extend(
                    t for t in turns if self._in_view(t) and matches(t, self.filter_text)
                )
            was_empty = self.table.virtual_size.height == 0
            self.table.rows_grew()
            if was_empty:
                self._show_current()
            else:
                self.query_one(TurnChart).show(self.rows, self.table.cursor)
        self.refresh_title()

    def _in_view(self, turn: Any) -> bool:
        from traceview.ui.state import conversation_key

        return self.key == ALL or conversation_key(turn) == self.key

    def refresh_title(self) -> None:
        state = self.inspector.state
        title = Text("traceview", style="bold")
        title.append(" · ")
        title.append_text(safe(capture_name(self.inspector.sources)))
        title.append(" · ")
        title.append_text(safe(self.conversation_label()))
        title.append(f" · {plural(len(self.rows), 'turn')}")
        if self.filter_text:
            title.append_text(safe(f" matching “{self.filter_text}”", style="italic"))
        counts = self.marker_counts()
        total = sum(counts.values())
        title.append(f" · {plural(total, 'marker')}")
        if counts:
            title.append(
                " (" + " ".join(f"{fmt.marker_symbol(m)}{n}" for m, n in counts.items()) + ")"
            )
        if state.problems:
            title.append(f" · {plural(len(state.problems), 'problem')} (p)", style="bold")
        if not state.done:
            frac = state.fraction
            bar = f"{frac:.0%}" if frac is not None else f"{state.lines:,} lines"
            title.append(f"  ⟳ loading {bar}", style="italic")
        elif state.error:
            title.append_text(safe(f"  load stopped: {state.error}", style="bold"))
        self.query_one("#title", Static).update(title)

    def conversation_label(self) -> str:
        state = self.inspector.state
        if self.key is None:
            return "no turns yet"
        if self.key == ALL:
            return f"all {len(state.by_key):,} conversations"
        conv = state.conversations.get(self.key)
        name = (getattr(conv, "id", None) if conv else None) or self.key
        kind = f"{conv.kind} " if conv is not None and getattr(conv, "kind", None) else ""
        label = f"{kind}{fmt.short_id(name, 24)}"
        if len(state.by_key) > 1:
            position = list(state.by_key).index(self.key) + 1 if self.key in state.by_key else 0
            label += f" ({position:,} of {len(state.by_key):,}, c to pick)"
        return label

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

    # -- selection ------------------------------------------------------------------------
    @on(RowTable.Highlighted, "#turns")
    def _highlighted(self, event: RowTable.Highlighted) -> None:
        self._show_current()

    @on(RowTable.Selected, "#turns")
    def _selected(self, event: RowTable.Selected) -> None:
        self.inspector.action_detail()

    def _show_current(self) -> None:
        turn = self.table.current()
        self.query_one(TurnChart).show(self.rows, self.table.cursor)
        summary = self.query_one("#summary-text", Static)
        summary.update(account_text(turn) if turn is not None else Text("no turn selected"))
        self._show_legend()

    def _show_legend(self) -> None:
        present: list[str] = []
        for marker in self.marker_counts():
            if marker not in present:
                present.append(marker)
        legend = Text()
        for marker in present:
            legend.append(f"{fmt.marker_symbol(marker)} ", style="bold")
            legend.append_text(safe(f"{fmt.marker_meaning(marker)}   "))
        legend.append("hosted: ✓ captured ∅ empty ✗ missing · unexpl.≈ is an estimate", style="dim")
        self.query_one("#legend", Static).update(legend)

    def current_turn(self) -> Any | None:
        return self.table.current()

    # -- actions --------------------------------------------------------------------------
    def action_next_marked(self, direction: int) -> None:
        start = self.table.cursor + direction
        indices = range(start, len(self.rows)) if direction > 0 else range(start, -1, -1)
        for i in indices:
            if is_marked(self.rows[i]):
                self.table.move_to(i)
                return
        where = "below" if direction > 0 else "above"
        self.notify(f"no more marked turns {where}", markup=False)

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

    def apply_filter(self, query: str) -> None:
        current = self.table.current()
        self.filter_text = query.strip()
        self._rebuild(current.index if current is not None else None)

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        if self.filter_text or box.has_class("visible"):
            box.value = ""
            box.remove_class("visible")
            self.apply_filter("")
            self.table.focus()

    def action_raw(self) -> None:
        self.inspector.action_detail(raw=True)
