"""The compare screen: both arms side by side, latency per arm, the cost waterfall.

It renders a ``traceview.compare/1`` document (``analysis/compare.py`` computes it; the
same document is ``traceview compare --format json``): every number on screen is a
value of that document, laid out. Text from captures (labels, model names, warnings)
goes through ``safe`` and is never parsed as markup.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Static

from traceview.report.compare_output import component_name, rows
from traceview.ui.safe_text import safe
from traceview.ui.widgets.footer import KeyFooter
from traceview.ui.widgets.text_scroll import TextScroll

BARS = " ▁▂▃▄▅▆▇█"


def header(doc: dict[str, Any]) -> Text:
    out = Text()
    out.append("A (owned) ", style="bold")
    out.append(safe(doc["arms"]["A"]["label"]))
    out.append("   vs   B (hosted) ", style="bold")
    out.append(safe(doc["arms"]["B"]["label"]))
    if doc["latency_source"] == "simulated":
        out.append("\nlatencies are SIMULATED by the simulator's latency model, not measured",
                   style="bold reverse")
    for w in doc["warnings"]:
        out.append("\n⚠ ", style="bold")
        out.append(safe(w))
    return out


#: Below this many columns the table wraps its cells instead of cutting B and B − A.
NARROW = 120


def side_by_side(doc: dict[str, Any], narrow: bool = False) -> Table:
    """Rows of the document, A | B | B − A. Narrow: every column shares the width and a
    long value wraps inside its cell, so B and B − A stay on screen at 80 columns."""
    table = Table(expand=True, show_edge=False, pad_edge=False)
    for name, justify in (("", "left"), ("A (owned)", "right"), ("B (hosted)", "right"),
                          ("B − A", "right")):
        if narrow:
            table.add_column(name, justify=justify, overflow="fold",  # type: ignore[arg-type]
                             ratio=3 if name in ("A (owned)", "B (hosted)") else 2)
        else:
            table.add_column(name, justify=justify, no_wrap=True,  # type: ignore[arg-type]
                             min_width=30 if not name else None)
    for r in rows(doc):
        table.add_row(*(safe(c) for c in r))
    return table


def sparkline(counts: list[int], top: int) -> str:
    if not counts:
        return ""
    return "".join(BARS[0 if not c else max(1, round(c / top * (len(BARS) - 1)))]
                   for c in counts)


def distribution(doc: dict[str, Any]) -> Text:
    """Per arm, one row per split: turns binned by latency on a shared axis."""
    hist = doc["histogram"]
    edges = hist["edges_ms"]
    out = Text()
    out.append("latency at the caller, per turn (shared axis)\n", style="bold")
    if not edges:
        out.append("no latencies recorded")
        return out
    top = max([max(v) for arm in ("A", "B") for v in hist[arm].values() if v] + [1])
    for arm in ("A", "B"):
        for split, label in (("without", "no hosted"), ("with_hosted", "hosted")):
            counts = hist[arm][split]
            out.append(f"{arm} {label:<10}", style="bold")
            out.append(f"▕{sparkline(counts, top)}▏ n={sum(counts)}\n")
    out.append(" " * 13 + f"0 ms{'':<{max(len(edges) - 10, 1)}}{edges[-1]:,.0f} ms", style="dim")
    return out


def waterfall(doc: dict[str, Any], width: int = 24) -> Text:
    """A total, each component's step at its own sign, B total: bars on one scale."""
    cost = doc["difference"]["cost"]
    a_total = doc["arms"]["A"]["cost"]["total_usd"]
    b_total = doc["arms"]["B"]["cost"]["total_usd"]
    steps = cost["decomposition"]
    levels = [a_total, b_total] + [s["start_usd"] for s in steps] + [s["end_usd"] for s in steps]
    hi = max(levels + [1e-12])
    scale = width / hi

    def bar(start: float, end: float, style: str, label: str, value: str) -> None:
        lo, up = sorted((start, end))
        a, b = round(lo * scale), max(round(up * scale), round(lo * scale) + 1)
        out.append(f"{label:<22}", style="bold" if style == "total" else "")
        out.append(" " * a)
        out.append("█" * (b - a), style={"total": "", "up": "red", "down": "green",
                                         "none": "dim"}[style])
        out.append(" " * (width - b + 1) + value + "\n")

    out = Text()
    out.append("cost change, decomposed (USD)\n", style="bold")
    bar(0, a_total, "total", "A total", f"${a_total:,.6f}")
    for s in steps:
        style = {"increase": "up", "reduction": "down"}.get(s["sign"], "none")
        bar(s["start_usd"], s["end_usd"], style, component_name(s["component"]),
            f"{s['usd']:+,.6f}")
    bar(0, b_total, "total", "B total", f"${b_total:,.6f}")
    out.append(f"{'net (B − A)':<22}{'':<{width + 1}}{cost['net_usd']:+,.6f}", style="bold")
    if cost["sums_to_net"]:
        out.append("  = Σ components", style="dim")
    return out


class CompareScreen(Screen[None]):
    """Both arms on one scrollable page; at 80 columns the table wraps, the plots stack."""

    BINDINGS = [
        Binding("q", "app.quit", "Quit", id="compare.quit"),
        Binding("question_mark", "help", "Help", id="compare.help"),
        Binding("j", "scroll(1)", "Down", show=False, id="compare.down"),
        Binding("k", "scroll(-1)", "Up", show=False, id="compare.up"),
    ]

    def __init__(self, doc: dict[str, Any]) -> None:
        super().__init__()
        self.doc = doc
        self._narrow: bool | None = None

    def compose(self) -> ComposeResult:
        doc = self.doc
        with TextScroll(id="cmp-page"):
            yield Static(header(doc), id="cmp-header")
            yield Static(id="cmp-table")
            yield Static(safe(doc["difference"]["latency_median_ms"]["claim"], "bold"),
                         id="cmp-claim")
            with Horizontal(id="cmp-plots"):
                yield Static(distribution(doc), id="cmp-latency")
                yield Static(waterfall(doc), id="cmp-waterfall")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#cmp-page", TextScroll).focus()
        self._layout()

    def on_resize(self) -> None:
        self._layout()

    def _layout(self) -> None:
        narrow = self.app.size.width < NARROW
        if narrow != self._narrow:
            self._narrow = narrow
            self.set_class(narrow, "-narrow")
            self.query_one("#cmp-table", Static).update(side_by_side(self.doc, narrow))

    def action_scroll(self, lines: int) -> None:
        self.query_one("#cmp-page", TextScroll).scroll_relative(y=lines, animate=False)

    def action_help(self) -> None:
        self.app.push_screen(CompareHelp())


class CompareHelp(Screen[None]):
    """`?` on the compare screen: its keys and what its parts mean."""

    BINDINGS = [Binding("escape,q,question_mark", "back", "Back", id="compare_help.back")]

    def compose(self) -> ComposeResult:
        text = Text()
        text.append("compare keys\n", style="bold underline")
        for key, what in (("↑ ↓ / k j", "scroll"),
                          ("pgup pgdn, home end / g G", "scroll by a page, to the top / bottom"),
                          ("?", "this help"), ("q", "quit"), ("^p", "command palette")):
            text.append(f"  {key:<22}", style="bold")
            text.append(f"{what}\n")
        text.append("\nwhat it shows\n", style="bold underline")
        text.append(
            "  A (owned) resends its own transcript; B (hosted) passes a conversation handle.\n"
            "  B − A is B's value minus A's (a latency claim only when the 95% interval\n"
            "  excludes 0). The waterfall takes A's total cost to B's, one component at a\n"
            "  time; its steps sum to the net. The latency plot bins every turn on one axis,\n"
            "  split by whether the turn made hosted calls. Every number is in\n"
            "  `traceview compare --format json`.\n")
        with TextScroll(id="cmp-help"):
            yield Static(text)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#cmp-help", TextScroll).focus()

    def action_back(self) -> None:
        self.app.pop_screen()
