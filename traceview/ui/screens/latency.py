"""Latency (`t`): time as the caller saw it — p50/p95 of caller latency and time to first
token, split by whether a hosted tool ran, and one bar per turn with its provider,
network/queue and backoff shares.

Renders the report's totals (`caller_latency_ms`, `ttft_ms`) and each turn's `timing`
(analysis/timing.py); nothing is computed here.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from traceview.ui.legend import joined, pack
from traceview.ui.screens.base import InspectorScreen
from traceview.ui.widgets.footer import KeyFooter
from traceview.ui.widgets.text_scroll import TextScroll
from traceview.ui.widgets.timing import latency_bars, legend_entries, percentile_panel

MOST_BARS = 2000  # bars drawn; the percentiles are over every turn
HEADER = "    # H    caller ms   ttft  bar (scaled to the slowest turn shown)"


def latency_renderable(name: str, totals: dict[str, Any] | None, turns: list[Any],
                       width: int, cursor: int | None = None) -> Group:
    head = Text("latency at the caller", style="bold")
    head.append(f" · {name}")
    return Group(head, percentile_panel(totals), Text(""),
                 Text(HEADER, style="underline"), latency_bars(turns, width, cursor),
                 Text(""), joined(pack(legend_entries("dim"), width, gap=2)))


class LatencyScreen(InspectorScreen):
    """Caller latency and TTFT percentiles, and per-turn latency bars."""

    VIEW = "latency"

    BINDINGS = [
        Binding("escape,t", "back", "Back", id="latency.back"),
        Binding("j", "scroll(1)", "Down", show=False, id="latency.down"),
        Binding("k", "scroll(-1)", "Up", show=False, id="latency.up"),
    ]

    def compose(self) -> ComposeResult:
        with TextScroll(id="latency"):
            yield Static(id="latency-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.refresh_data()
        self.query_one("#latency", TextScroll).focus()

    def on_resize(self) -> None:
        self.refresh_data()

    def action_scroll(self, lines: int) -> None:
        self.query_one("#latency", TextScroll).scroll_relative(y=lines, animate=False)

    def refresh_data(self) -> None:
        app = self.inspector
        analysis = app.state.analysis
        totals = getattr(analysis, "totals", None) if analysis is not None else None
        turns = app.state.turns
        shown = list(turns[:MOST_BARS])
        name = f"all {len(turns):,} turns" if len(turns) <= MOST_BARS else \
            f"the first {MOST_BARS:,} of {len(turns):,} turns"
        body = latency_renderable(name, totals, shown, self.app.size.width - 4)
        self.query_one("#latency-body", Static).update(body)

    def action_back(self) -> None:
        self.app.pop_screen()
