"""Legends wrap at their entries: a term stays with its meaning, a line breaks between
entries, and a meaning that needs two lines continues under itself — at 80x24 too."""

from __future__ import annotations

import html
import re

import pytest
from rich.cells import cell_len
from textual.widgets import Static

from traceview.ui.screens.help import HelpScreen
from traceview.ui.widgets.timing import LEGEND_ENTRIES

from .conftest import opened, sample

TERMS = ("·", "░", "▒", "█", "▓", "▆", "=", "≈")


def assert_bar_entries_whole(rows: list[str]) -> None:
    for symbol, meaning in LEGEND_ENTRIES:
        assert any(f"{symbol} {meaning}" in row for row in rows), (symbol, rows)


def screen_rows(app) -> list[str]:
    """The screen as the SVG export shows it, one string per terminal row."""
    svg = app.export_screenshot()
    rows: dict[int, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="[\d.]+" textLength="[\d.]+" '
                         r'clip-path="url\(#[^"]*-line-(\d+)\)">(.*?)</text>', svg):
        rows.setdefault(int(m.group(2)), []).append(
            (float(m.group(1)), html.unescape(m.group(3)).replace("\xa0", " ")))
    out = []
    for n in range(max(rows, default=-1) + 1):
        line = ""
        for x, text in sorted(rows.get(n, [])):
            line = line.ljust(round(x / 12.2)) + text
        out.append(line.rstrip())
    return out


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_help_legends_break_between_entries(size: tuple[int, int]) -> None:
    async with opened(sample("claims"), size, "question_mark") as (app, pilot):
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.query_one("#help-text", Static)
        room = text.content_region.width
        lines = str(text.render()).split("\n")
        legend = lines[lines.index("markers"):]
        # Every legend line fits as laid out: the renderer never breaks one elsewhere.
        assert max(cell_len(line) for line in legend) <= room
        # A term is never the last word of a line, its meaning on the next.
        for line in legend:
            assert not line.rstrip().endswith(TERMS), line
        assert "  sent                      request bytes on the wire" in legend
        assert any("unexpl.≈" in line and "billed minus expected input" in line
                   for line in legend)
        # A long meaning continues in its own column, not under the symbol.
        meaning_at = 2 + 4 + 22
        start = next(i for i, line in enumerate(legend) if "citation_unretrieved" in line)
        if size[0] == 80:
            follow = legend[start + 1]
            assert follow.startswith(" " * meaning_at) and follow[meaning_at] != " "
        # And on the screen, at the bottom of the help.
        await pilot.press("G")
        await pilot.pause()
        rows = screen_rows(app)
        assert_bar_entries_whole(rows)
        assert not any(row.rstrip().endswith(TERMS) for row in rows), rows


async def test_latency_legend_breaks_between_entries() -> None:
    async with opened(sample("claims"), (80, 24), "t") as (app, pilot):
        rows = screen_rows(app)
        assert_bar_entries_whole(rows)
        legend = [row for row in rows if any(word in row for word in (
            "hosted calls running", "provider processing", "network/queue", "backoff",
            "not split", "hosted tools ran"))]
        assert legend and not any(row.rstrip().endswith(TERMS) for row in legend), rows


@pytest.mark.parametrize("size", [(120, 40), (200, 55), (100, 34)])
async def test_turns_legend_shows_each_entry_whole(size: tuple[int, int]) -> None:
    """The marker legend under the chart: every entry it shows is whole, none is cut
    mid-sentence; what does not fit points to `?`."""
    from traceview.ui import format as fmt

    async with opened(sample("claims"), size) as (app, pilot):
        legend = app.main.query_one("#legend", Static)
        assert legend.display
        rows = screen_rows(app)
        top = legend.region.y
        shown = " ".join(row.strip() for row in rows[top:top + legend.region.height])
        meanings = [fmt.marker_meaning(m) for m in ("deposit", "evidence_missing")]
        for meaning in meanings:
            assert meaning in shown, shown
        # Every meaning shown is shown to its end (the words after the symbol).
        for marker in fmt.known_markers():
            symbol, meaning = fmt.marker_symbol(marker), fmt.marker_meaning(marker)
            if f"{symbol} {meaning.split()[0]}" in shown:
                assert meaning in shown, (marker, shown)
        assert shown.endswith(("is an estimate", "every marker and key")), shown
