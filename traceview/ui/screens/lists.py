"""Conversations and problems: bounded-cost lists over the core's reports."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from traceview.ui import format as fmt
from traceview.ui.safe_text import safe
from traceview.ui.screens.base import InspectorScreen
from traceview.ui.state import ALL
from traceview.ui.widgets.footer import KeyFooter
from traceview.ui.widgets.row_table import Column, RowHeader, RowTable
from traceview.ui.widgets.text_scroll import TextScroll

if TYPE_CHECKING:
    from traceview.ui.inspector import Inspector


@dataclass(frozen=True)
class ConversationRow:
    """One pickable line: a ConversationReport's totals, or what is known while loading."""

    key: str
    number: str
    name: str
    kind: str
    turns: int | None
    input_tokens: int | None
    cost_usd: float | None
    markers: dict[str, int]
    carried: int | None = None  # carried-context tokens (analysis/ledger.py)
    replay: str = fmt.DASH  # replay fidelity verdict (analysis/fidelity.py)
    replay_line: str = ""
    usage_turns: int | None = None  # turns whose usage was recorded (None: all of them)
    cost_unknown_turns: int = 0  # turns that could not be priced


def _floor(value: str, partial: bool) -> str:
    """A sum over only some of the turns (the others have no usage, or no price) is a
    floor, as the report's "(over 10 of 12 turns with usage)" says: ≥."""
    return f"≥ {value}" if partial and value != fmt.DASH else value


def _input_cell(r: ConversationRow) -> str:
    partial = None not in (r.usage_turns, r.turns) and r.usage_turns != r.turns
    return _floor(fmt.num(r.input_tokens), partial)


def _markers(counts: dict[str, int]) -> str:
    return " ".join(f"{fmt.marker_symbol(m)}{n}" for m, n in counts.items()) or fmt.DASH


CONVERSATION_COLUMNS = [
    Column("#", 6, lambda r: r.number),
    Column("conversation", 0, lambda r: r.name, align="left", min_width=16),
    Column("kind", 13, lambda r: r.kind, align="left"),
    Column("turns", 8, lambda r: fmt.num(r.turns)),
    Column("billed input", 14, _input_cell),
    Column("cost", 12, lambda r: _floor(fmt.cost(r.cost_usd), r.cost_unknown_turns > 0)),
    # At 80 columns these wait past the right edge, whole (→ reaches them): a number cut
    # at the edge reads as another number (8,002 as `8,`).
    Column("carried", 9, lambda r: fmt.num(r.carried) if r.carried else fmt.DASH, priority=1),
    Column("replay", 12, lambda r: r.replay, align="left", priority=2),
    Column("markers", 24, lambda r: _markers(r.markers), align="left", priority=3, shrink=16),
]


def conversation_rows(app: Inspector) -> list[ConversationRow]:
    state = app.state
    totals = getattr(state.analysis, "totals", None) or {}
    rows = [
        ConversationRow(
            ALL,
            "all",
            "every turn in the capture",
            "",
            totals.get("turns") if state.done else None,
            totals.get("input_tokens") if state.done else None,
            totals.get("cost_usd") if state.done else None,
            {},
            usage_turns=totals.get("usage_turns"),
            cost_unknown_turns=totals.get("cost_unknown_turns") or 0,
        )
    ]
    fidelity = getattr(state.analysis, "fidelity", None)
    for n, key in enumerate(state.by_key, start=1):
        conv = state.conversations.get(key)
        verdict = fidelity.verdict(key) if fidelity is not None else None
        carried = getattr(conv, "carried", None)
        if conv is None:
            rows.append(ConversationRow(key, str(n), key, "loading…", None, None, None, {}))
            continue
        rows.append(
            ConversationRow(
                key,
                str(n),
                conv.id or key,
                conv.kind,
                len(conv.turns),
                conv.input_tokens,
                conv.cost_usd,
                dict(conv.markers or {}),
                carried.tokens if carried is not None else None,
                _replay_cell(verdict),
                verdict.line() if verdict is not None else "",
                getattr(conv, "usage_turns", None),
                getattr(conv, "cost_unknown_turns", 0) or 0,
            )
        )
    return rows


GROUP_PREFIX = "group:"  # a row key that names a group, not a conversation


def group_keys(app: Inspector) -> list[str]:
    """The attribution keys the core grouped the capture by (report `cost.attribution`)."""
    section = getattr(app.state.analysis, "cost", None) or {}
    return list((section.get("attribution") or {}).get("keys") or ())


def group_rows(app: Inspector, key: str) -> list[ConversationRow]:
    """One row per value of `key` (tenant, case_id, user, …): its conversations, turns,
    billed input, carried context and cost, as the report's `cost.attribution` has them."""
    section = getattr(app.state.analysis, "cost", None) or {}
    groups = ((section.get("attribution") or {}).get("groups") or {}).get(key) or []
    rows = []
    for n, g in enumerate(groups, start=1):
        value = g["value"]
        rows.append(ConversationRow(
            f"{GROUP_PREFIX}{key}={'' if value is None else value}", str(n),
            f"{key}={'(none)' if value is None else value}",
            f"{g['conversations']:,} conv.", g["turns"], g["input_tokens"], g["cost_usd"],
            {}, g["carried_tokens"]))
    return rows


def _replay_cell(verdict: Any) -> str:
    if verdict is None:
        return fmt.DASH
    if verdict.replays:
        return "✓ replays"
    short = {"evidence_missing": "no evidence", "compaction": "compaction",
             "encrypted_reasoning": "encrypted", "outside_capture": "outside",
             "edited_history": "edited", "no_provider_copy": "unverified", "deleted": "deleted",
             "expired": "expired", "differs": "differs"}
    return f"✗ {short.get(verdict.reason, verdict.reason)}" if verdict.status == "fails" \
        else f"? {short.get(verdict.reason, verdict.reason)}"


class ConversationsScreen(InspectorScreen):
    """Pick the conversation the turns view shows."""

    VIEW = "conversations"

    BINDINGS = [Binding("escape,q", "back", "Back", id="conversations.back"),
                Binding("b", "group", "Group by", id="conversations.group",
                        tooltip="group by tenant, case, user… (conversation and request "
                                "metadata); again for the next key, then none")]

    group_by: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="conversations-title")
        table = RowTable(CONVERSATION_COLUMNS, marked=lambda r: bool(r.markers), id="conv-table")
        yield RowHeader(table)
        yield table
        with TextScroll(id="conversation-explain"):
            yield Static(id="conversation-fidelity")
        yield KeyFooter()


    def on_mount(self) -> None:
        self.refresh_data()
        table = self.query_one(RowTable)
        key = self.inspector.main.key
        for i, row in enumerate(table.rows):
            if row.key == key:
                table.move_to(i)
        table.focus()

    def refresh_data(self) -> None:
        table = self.query_one(RowTable)
        key = self.group_by
        rows = group_rows(self.inspector, key) if key else conversation_rows(self.inspector)
        table.set_rows(rows, min(table.cursor, max(len(rows) - 1, 0)))
        state = self.inspector.state
        title = Text("conversations", style="bold")
        if key:
            title.append_text(safe(f" by {key}"))
            title.append(" · enter filters the turns to it · b next key", style="dim")
            self.query_one("#conversations-title", Static).update(title)
            self._fidelity(None)
            return
        title.append(f" · {len(state.by_key):,} in ")
        from traceview.ui.widgets.account import capture_name

        title.append_text(safe(capture_name(self.inspector.sources)))
        if not state.done:
            title.append(" · loading, totals follow when the capture is read", style="italic")
        title.append(" · enter shows its turns", style="dim")
        self.query_one("#conversations-title", Static).update(title)
        self._fidelity(table.current())

    @on(RowTable.Highlighted)
    def _highlighted(self, event: RowTable.Highlighted) -> None:
        self._fidelity(event.table.current())

    def _fidelity(self, row: ConversationRow | None) -> None:
        """The highlighted conversation's replay-fidelity line (from the capture alone)."""
        text = Text()
        if row is not None and row.replay_line:
            text.append("replay fidelity: ", style="bold")
            text.append_text(safe(row.replay_line))
        elif row is not None and row.key == ALL:
            fidelity = getattr(self.inspector.state.analysis, "fidelity", None)
            if fidelity is not None and fidelity.score is not None:
                text.append("replay fidelity: ", style="bold")
                text.append(f"{fidelity.score:g} % of conversations replay from the capture "
                            "alone (hosted ones need `traceview fidelity --live` or --items)")
        self.query_one("#conversation-fidelity", Static).update(text)

    @on(RowTable.Selected)
    def _picked(self, event: RowTable.Selected) -> None:
        row = event.table.rows[event.row]
        self.app.pop_screen()
        if row.key.startswith(GROUP_PREFIX):  # a group: every turn, filtered to it
            self.inspector.main.show_conversation(ALL)
            self.inspector.main.apply_filter(row.key[len(GROUP_PREFIX):])
            return
        self.inspector.main.show_conversation(row.key)

    def action_group(self) -> None:
        """b: group by the next attribution key the capture has, then back to none."""
        keys = group_keys(self.inspector)
        if not keys:
            self.notify("no conversation or request metadata, user or safety_identifier "
                        "in this capture to group by", timeout=3)
            return
        now = self.group_by
        self.group_by = keys[keys.index(now) + 1] if now in keys[:-1] else (
            None if now else keys[0])
        self.refresh_data()

    def action_back(self) -> None:
        self.app.pop_screen()


PROBLEM_COLUMNS = [
    Column("source", 24, lambda p: Path(str(p.source)).name, align="left"),
    Column("line", 8, lambda p: fmt.num(p.line)),
    Column("kind", 20, lambda p: p.kind, align="left"),
    Column("message", 0, lambda p: p.message, align="left", min_width=20),
]


class ProblemsScreen(InspectorScreen):
    """Everything the load could not read as intended, with line numbers."""

    VIEW = "problems"

    BINDINGS = [Binding("escape,q", "back", "Back", id="problems.back")]

    def compose(self) -> ComposeResult:
        yield Static(id="problems-title")
        table = RowTable(PROBLEM_COLUMNS, id="problem-table")
        yield RowHeader(table)
        yield table
        with TextScroll(id="problem-explain"):
            yield Static(id="problem-detail")
        yield KeyFooter()


    def on_mount(self) -> None:
        self.refresh_data()
        self.query_one(RowTable).focus()

    def refresh_data(self) -> None:
        state = self.inspector.state
        table = self.query_one(RowTable)
        table.set_rows(list(state.problems), table.cursor)
        title = Text("problems", style="bold")
        title.append(f" · {len(state.problems):,} found while loading")
        if state.error:
            title.append_text(safe(f" · load stopped: {state.error}", style="bold"))
        if not state.problems:
            title.append(" · none: every line was read", style="dim")
        self.query_one("#problems-title", Static).update(title)
        self._show(table.current())

    @on(RowTable.Highlighted)
    def _highlighted(self, event: RowTable.Highlighted) -> None:
        self._show(event.table.current())

    @on(RowTable.Selected)
    def _opened(self, event: RowTable.Selected) -> None:
        from traceview.ui.screens.problem_line import ProblemLineScreen

        problem = event.table.current()
        if problem is not None:
            self.app.push_screen(ProblemLineScreen(problem))

    def _show(self, problem: Any | None) -> None:
        text = Text()
        if problem is not None:
            text.append_text(safe(f"{problem.source}:{problem.line} ", style="bold"))
            text.append_text(safe(f"{problem.kind}\n{problem.message}", multiline=True))
        self.query_one("#problem-detail", Static).update(text)

    def action_back(self) -> None:
        self.app.pop_screen()
