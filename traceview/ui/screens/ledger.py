"""The carried-context ledger of one conversation (`l`): what context that arrived without a
request has cost on every later turn, turn by turn, and where the input is heading.

Renders the core's `carried_context` (analysis/ledger.py) of the conversation the turns
view shows; every number here is in `traceview report --format json` too.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from traceview.ui import format as fmt
from traceview.ui.safe_text import safe
from traceview.ui.screens.base import InspectorScreen
from traceview.ui.state import ALL
from traceview.ui.widgets.footer import KeyFooter
from traceview.ui.widgets.text_scroll import TextScroll


def _pct(share: float | None) -> str:
    return fmt.DASH if share is None else f"{share * 100:.1f} %"


def sources_table(ledger: dict[str, Any]) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold", expand=False)
    for name, justify in (("source", "left"), ("arrived", "right"), ("from", "left"),
                          ("tokens/turn", "right"), ("turns", "right"), ("billed", "right"),
                          ("re-billed", "right"), ("cost ≈", "right"), ("ended", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for s in ledger.get("sources") or []:
        kinds = ", ".join(fmt.hosted_type(t) for t in s.get("types") or []) or "unattributed"
        origin = ", ".join(str(t) for t in s.get("origin_turns") or [])
        evidence = " ✗ not captured" if s.get("evidence_missing") else ""
        ended = s.get("ended_by")
        table.add_row(
            safe(s["id"]), fmt.num(s.get("arrived_turn")),
            safe(f"{kinds}{' on ' + origin if origin else ''}{evidence}"),
            fmt.num(s.get("tokens_per_turn")), fmt.num(s.get("turns_carried")),
            fmt.num(s.get("tokens_billed")), fmt.num(s.get("tokens_rebilled")),
            fmt.cost(s.get("cost_usd")),
            Text(f"{ended['kind'].replace('_', ' ')} on turn {ended['turn']}" if ended
                 else "still carried"))
    return table


def sources_list(ledger: dict[str, Any]) -> Text:
    """The sources for a narrow screen: two lines each instead of nine columns that wrap
    every cell onto four lines at 80 columns."""
    out = Text()
    for s in ledger.get("sources") or []:
        kinds = ", ".join(fmt.hosted_type(t) for t in s.get("types") or []) or "unattributed"
        origin = ", ".join(str(t) for t in s.get("origin_turns") or [])
        ended = s.get("ended_by")
        out.append_text(safe(s["id"], style="bold"))
        out.append(f" arrived on turn {fmt.num(s.get('arrived_turn'))}: ")
        out.append_text(safe(f"{kinds}{' on ' + origin if origin else ''}"))
        if s.get("evidence_missing"):
            out.append(" ✗ not captured")
        out.append(f"\n  {fmt.num(s.get('tokens_per_turn'))} tokens/turn × "
                   f"{fmt.num(s.get('turns_carried'))} turns = {fmt.num(s.get('tokens_billed'))}"
                   f" billed ({fmt.num(s.get('tokens_rebilled'))} re-billed), cost ≈ "
                   f"{fmt.cost(s.get('cost_usd'))}, ")
        out.append(f"{ended['kind'].replace('_', ' ')} on turn {ended['turn']}" if ended
                   else "still carried")
        out.append("\n")
    out.rstrip()
    return out


def turns_table(turns: list[Any]) -> Table:
    """One row per turn: its billed input, the carried share, cumulative input and the
    owned-state equivalent bytes — all numbers of the turn's report."""
    table = Table(box=None, pad_edge=False, header_style="bold", expand=False)
    for name in ("turn", "billed in", "carried", "carried cost ≈", "cumulative in",
                 "owned-state bytes", "outlived tool config"):
        table.add_column(name, justify="left" if name.startswith("outlived") else "right")
    for t in turns:
        carry = getattr(t, "carried_context", None) or {}
        outlived = "; ".join(o["reason"] for o in carry.get("outlived_tools") or [])
        table.add_row(
            fmt.num(t.index), fmt.num(t.input_tokens),
            fmt.num(carry.get("tokens")) if carry.get("tokens") else fmt.DASH,
            fmt.cost(carry.get("cost_usd")) if carry.get("tokens") else fmt.DASH,
            fmt.num(getattr(t, "cumulative_input_tokens", None)),
            fmt.size(getattr(t, "owned_state_bytes", None)),
            safe(outlived) if outlived else Text(fmt.DASH))
    return table


def projection_text(ledger: dict[str, Any]) -> Text:
    p = (ledger.get("growth") or {}).get("projection")
    if not p:
        return Text("projection: fewer than 2 turns with usage since the last compaction: "
                    "no growth line to fit", style="dim")  # analysis/hosted/growth.py
    nxt = ", ".join(f"+{n['turn_offset']}: {fmt.num(n['input_tokens'])}" for n in p["next"])
    out = Text("PROJECTION ", style="bold italic")
    out.append(f"(not a measurement) next turns' billed input ≈ {nxt}; cumulative ≈ "
               f"{fmt.num(p['next'][-1]['cumulative_input_tokens'])} "
               f"({p['tokens_per_turn_growth']:+,.0f} tokens per turn, fitted on "
               f"{p['fitted_turns']} turns since the last compaction)")
    return out


def ledger_renderable(name: str, ledger: dict[str, Any] | None,
                      turns: list[Any], narrow: bool = False) -> Group | Text:
    if ledger is None:
        return Text("the ledger is computed once the whole capture is read", style="italic")
    head = Text()
    head.append_text(safe(name, style="bold"))
    head.append(f" · carried context {fmt.num(ledger.get('tokens'))} tokens, "
                f"{fmt.cost(ledger.get('cost_usd'))} = {_pct(ledger.get('share_of_cost'))} "
                "of the conversation's bill")
    note = Text(f"cost is apportioned: {ledger.get('apportioned')}", style="dim")
    parts: list[Any] = [head, note, Text("")]
    if ledger.get("sources"):
        parts += [Text("sources (context that arrived without a request)", style="underline"),
                  sources_list(ledger) if narrow else sources_table(ledger), Text("")]
    else:
        parts += [Text("no context arrived without a request in this conversation",
                       style="dim"), Text("")]
    parts += [Text("turn by turn", style="underline"), turns_table(turns), Text(""),
              projection_text(ledger)]
    return Group(*parts)


class LedgerScreen(InspectorScreen):
    """Carried context of the conversation the turns view shows."""

    VIEW = "ledger"

    BINDINGS = [
        Binding("escape,l", "back", "Back", id="ledger.back"),
        Binding("j", "scroll(1)", "Down", show=False, id="ledger.down"),
        Binding("k", "scroll(-1)", "Up", show=False, id="ledger.up"),
    ]
    #: Below this many columns the sources are listed, not tabled.
    NARROW = 120

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._narrow: bool | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="ledger-title")
        with TextScroll(id="ledger"):
            yield Static(id="ledger-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.refresh_data()
        self.query_one("#ledger", TextScroll).focus()

    def on_resize(self) -> None:
        if (self.app.size.width < self.NARROW) != self._narrow:
            self.refresh_data()

    def action_scroll(self, lines: int) -> None:
        self.query_one("#ledger", TextScroll).scroll_relative(y=lines, animate=False)

    def refresh_data(self) -> None:
        app = self.inspector
        self._narrow = narrow = self.app.size.width < self.NARROW
        key = app.main.key
        title = Text("carried-context ledger", style="bold")
        conv = app.state.conversations.get(key) if key and key != ALL else None
        if key == ALL or key is None:
            title.append(" · pick one conversation (c) to see its ledger", style="dim")
            body: Any = Text("")
        else:
            name = (conv.id or conv.key) if conv is not None else key
            ledger = conv.to_dict().get("carried_context") if conv is not None else None
            body = ledger_renderable(name, ledger, list(app.state.rows_for(key)), narrow)
        self.query_one("#ledger-title", Static).update(title)
        self.query_one("#ledger-body", Static).update(body)

    def action_back(self) -> None:
        self.app.pop_screen()
