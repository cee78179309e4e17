"""The turns table's columns, its header line and the per-turn chart.

Every cell is a TurnReport attribute, formatted; nothing is derived here except the
log-scaled height of a chart block (a drawing transform, not a number shown).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.widget import Widget

from traceview.ui import format as fmt
from traceview.ui.row_table import Column, RowTable
from traceview.ui.safe_text import safe

BLOCKS = "▁▂▃▄▅▆▇█"


def _unexplained(turn: Any) -> Text:
    value = turn.unexplained_tokens
    text = Text(fmt.signed(value))
    if "deposit" in (turn.markers or ()):
        text.stylize("bold")
    return text


TURN_COLUMNS: list[Column] = [
    Column("#", 5, lambda t: fmt.num(t.index)),
    Column("user", 0, lambda t: t.user_text or fmt.DASH, align="left", min_width=12),
    Column("sent", 9, lambda t: fmt.size(t.request_bytes)),
    Column("billed in", 10, lambda t: fmt.num(t.input_tokens)),
    Column("unexpl.≈", 10, _unexplained),
    Column("cached", 8, lambda t: fmt.num(t.cached_tokens)),
    Column("out", 7, lambda t: fmt.num(t.output_tokens)),
    Column("reason", 7, lambda t: fmt.num(t.reasoning_tokens)),
    Column("hosted", 17, lambda t: fmt.hosted_cell(t.hosted_calls,
                                                    getattr(t, "unknown_items", None)),
           align="left"),
    Column("ms", 7, lambda t: fmt.latency_cell(t)),
    Column("markers", 7, lambda t: fmt.markers_cell(t.markers or ()), align="left"),
]


def make_turns_table(id: str = "turns") -> RowTable:
    return RowTable(TURN_COLUMNS, marked=is_marked, id=id)


#: Markers that inform rather than warn: they do not make a turn "marked" for m/M.
INFORMATIONAL = {"tool_offered_unused"}


def is_marked(turn: Any) -> bool:
    return any(m not in INFORMATIONAL for m in turn.markers or ())


class RowHeader(Widget):
    """The column titles of a RowTable, kept aligned with its columns."""

    DEFAULT_CSS = "RowHeader { height: 1; }"

    def __init__(self, table: RowTable, id: str | None = None) -> None:
        super().__init__(id=id)
        self.table = table

    def render(self) -> Text:
        width = self.table.size.width or self.size.width
        return self.table.header_text(width)


def _spark(
    values: Sequence[int | None],
    top: float,
    cursor: int | None,
    *,
    log: bool = True,
    cell: int = 1,
    mark: str = "bold",
) -> Text:
    """Blocks scaled against ``top`` (log scale when ``log``); unknown values are blank."""
    text = Text()
    for i, value in enumerate(values):
        if value is None or value <= 0 or top <= 0:
            ch = " " if value is None else BLOCKS[0]
        else:
            if log:
                share = math.log10(value + 1) / math.log10(top + 1)
            else:
                share = value / top
            ch = BLOCKS[min(len(BLOCKS) - 1, max(0, round(share * (len(BLOCKS) - 1))))]
        text.append(ch * cell, style=mark if i == cursor else "dim")
    return text


class TurnChart(Widget):
    """Bytes sent vs billed input per turn (one log scale), and cumulative billed input.

    Shows the window of turns around the cursor that fits the width, one column per
    turn, so the shape of the bill is visible at a glance and in SVG screenshots.
    """

    DEFAULT_CSS = "TurnChart { height: 4; }"
    LABEL = 24

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: Sequence[Any] = ()
        self.cursor = 0

    def show(self, rows: Sequence[Any], cursor: int) -> None:
        self.rows, self.cursor = rows, cursor
        self.refresh()

    def render(self) -> Text:
        room = max(1, self.size.width - self.LABEL - 28)
        if not self.rows:
            return Text("no turns yet", style="dim")
        cell = max(1, min(4, room // len(self.rows)))
        span = room // cell
        start = max(0, min(self.cursor - span // 2, len(self.rows) - span))
        window = self.rows[start : start + span]
        cursor = self.cursor - start
        sent = [t.request_bytes for t in window]
        billed = [t.input_tokens for t in window]
        cumulative = [t.cumulative_input_tokens for t in window]
        top = max([v for v in (*sent, *billed) if v] or [1])
        top_cum = max([v for v in cumulative if v] or [1])
        current = self.rows[self.cursor] if self.cursor < len(self.rows) else None
        accent = self.app.get_css_variables().get("accent")
        mark = f"bold {accent}" if accent else "bold"
        lines = [
            (
                "bytes sent (log)",
                _spark(sent, top, cursor, cell=cell, mark=mark),
                fmt.size(current.request_bytes) if current else "",
            ),
            (
                "billed input (log)",
                _spark(billed, top, cursor, cell=cell, mark=mark),
                f"{fmt.num(current.input_tokens)} tokens" if current else "",
            ),
            (
                "cumulative billed",
                _spark(cumulative, top_cum, cursor, log=False, cell=cell, mark=mark),
                f"{fmt.num(current.cumulative_input_tokens)} so far" if current else "",
            ),
        ]
        out = Text()
        for n, (label, spark, value) in enumerate(lines):
            out.append(label.ljust(self.LABEL - 4), style="dim")
            # The first row names the turn the bars start at (the chart scrolls with the cursor).
            out.append(f"{'#' + str(start + 1):>3} " if n == 0 else "    ", style="dim")
            out.append_text(spark)
            out.append("  ")
            out.append_text(safe(value, style="bold"))
            if n < len(lines) - 1:
                out.append("\n")
        return out
