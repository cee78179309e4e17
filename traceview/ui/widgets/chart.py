"""The per-turn chart: billed input against bytes sent, the cumulative bill, markers.

Nothing is derived here except the log-scaled height of a chart block (a drawing
transform, not a number shown).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widget import Widget

from traceview.ui import format as fmt
from traceview.ui.safe_text import safe
from traceview.ui.widgets.turns_table import INFORMATIONAL

if TYPE_CHECKING:
    from traceview.analysis.seams import TurnRow

BLOCKS = "▁▂▃▄▅▆▇█"


def _bars(
    values: Sequence[int | None],
    top: float,
    cursor: int | None,
    *,
    log: bool = False,
    cell: int = 1,
    mark: str = "bold",
) -> Text:
    """One block per turn scaled against ``top`` (linear unless ``log``); unknown is blank."""
    text = Text()
    for i, value in enumerate(values):
        if value is None or value <= 0 or top <= 0:
            ch = " " if value is None else BLOCKS[0]
        else:
            if log:
                share = math.log10(value + 1) / math.log10(top + 1)
            else:
                share = value / top
            ch = BLOCKS[min(len(BLOCKS) - 1, max(0, math.ceil(share * len(BLOCKS)) - 1))]
        text.append(ch * cell, style=mark if i == cursor else "dim")
    return text


def marker_glyph(turn: TurnRow) -> str:
    """The symbol of a turn's first warning marker (deposit ⊕, compaction …), else blank."""
    for marker in turn.markers or ():
        if marker not in INFORMATIONAL:
            return fmt.marker_symbol(marker)[:1]
    return " "


class TurnChart(Widget):
    """Billed input against bytes sent per turn, the cumulative bill, and marker glyphs.

    Linear scales by default (``L`` switches to log), so a deposit is a jump in the
    billed row with no jump in the bytes row, and a compaction is a fall. One column
    (up to sixteen, when they fit) per turn; the window follows the cursor and widens
    with the terminal. The selected turn is highlighted in every row and labelled by
    its number under the glyph row. A short screen drops the cumulative row.
    """

    LABEL = 12
    VALUE = 16

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: Sequence[TurnRow] = ()
        self.cursor = 0
        self.empty = "no turns yet"
        self.log_scale = False
        self.number: Callable[[TurnRow], int] = lambda turn: turn.index  # what `#` shows

    def show(self, rows: Sequence[TurnRow], cursor: int, empty: str = "no turns yet") -> None:
        self.rows, self.cursor, self.empty = rows, cursor, empty
        self.refresh()

    def toggle_log(self) -> None:
        self.log_scale = not self.log_scale
        self.refresh()

    def window(self) -> tuple[int, int, int]:
        """(first turn shown, turns shown, cells per turn) for the current width."""
        room = max(1, self.size.width - self.LABEL - self.VALUE - 2)
        cell = max(1, min(16, room // max(1, len(self.rows))))
        span = max(1, room // cell)
        start = max(0, min(self.cursor - span // 2, len(self.rows) - span))
        return start, span, cell

    def render(self) -> Text:
        if not self.rows:
            return safe(self.empty, style="dim")
        start, span, cell = self.window()
        window = self.rows[start : start + span]
        cursor = self.cursor - start
        current = self.rows[self.cursor] if self.cursor < len(self.rows) else None
        accent = self.app.get_css_variables().get("accent")
        mark = f"bold {accent}" if accent else "bold reverse"
        sent = [t.request_bytes for t in window]
        billed = [t.input_tokens for t in window]
        cumulative = [t.cumulative_input_tokens for t in window]
        log = self.log_scale
        scale = "log" if log else "linear"

        def top(values: list[int | None]) -> int:
            return max([v for v in values if v] or [1])

        lines: list[tuple[str, Text, Text]] = [
            ("billed in", _bars(billed, top(billed), cursor, log=log, cell=cell, mark=mark),
             safe(f"{fmt.num(current.input_tokens)} tok" if current else "")),
            ("bytes sent", _bars(sent, top(sent), cursor, log=log, cell=cell, mark=mark),
             safe(fmt.size(current.request_bytes) if current else "")),
        ]
        if self.size.height >= 5:
            lines.append(
                ("cumulative", _bars(cumulative, top(cumulative), cursor, cell=cell, mark=mark),
                 safe(f"{fmt.num(current.cumulative_input_tokens)} total" if current else "")))
        glyphs = Text()
        for i, turn in enumerate(window):
            glyph = marker_glyph(turn)
            glyphs.append(glyph.ljust(cell), style=mark if i == cursor else "bold")
        lines.append(("markers", glyphs, Text()))
        out = Text(no_wrap=True, overflow="crop")
        for n, (label, bars, value) in enumerate(lines):
            out.append(label.ljust(self.LABEL)[: self.LABEL], style="dim")
            out.append_text(bars)
            out.append("  ")
            out.append_text(value)
            if n < len(lines) - 1:
                out.append("\n")
        if current is not None:
            # The selected turn's number under its column (turn numbers, not positions).
            label = f"▲ turn {self.number(current)}"
            at = self.LABEL + cursor * cell
            pad = max(0, min(at, self.size.width - len(label) - 1))
            out.append("\n" + " " * pad)
            out.append(label, style=mark)
            out.append(self._note(scale, start, span, window,
                                  self.size.width - pad - len(label)), style="dim")
        return out

    def _note(self, scale: str, start: int, span: int, window: Sequence[TurnRow],
              room: int) -> str:
        """The scale (and the turns shown, when not all) beside the label: the longest
        wording that fits ``room`` cells, shorter near the right edge, never cut."""
        other = "linear" if self.log_scale else "log"
        turns = ""
        if start > 0 or start + span < len(self.rows):
            first, last = self.number(window[0]), self.number(window[-1])
            turns = f" · turns {first}–{last} of {len(self.rows):,}"
        wordings = (f"{scale} scale (L: {other})", f"{scale} (L: {other})", scale)
        for tail in (turns, ""):  # the turns shown are worth more than the hint
            for wording in wordings:
                if len(note := f"   {wording}{tail}") <= room:
                    return note
        return ""
