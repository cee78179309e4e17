"""Compare, ledger and objects at 80x24: every column reachable, `?` help, scrolling, and
an SVG snapshot of each."""

from __future__ import annotations

import os

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Static

from traceview.ui.app import make_app
from traceview.ui.compare_app import CompareApp
from traceview.ui.screens.compare import CompareHelp, CompareScreen
from traceview.ui.screens.help import HelpScreen
from traceview.ui.widgets.row_table import RowTable

from .conftest import ROOT, SAMPLES
from .test_hosted_state_screens import _text
from .test_snapshots import loaded_then

SIZE = (80, 24)


async def loaded(app, pilot):
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_compare_at_80_columns_shows_b_and_b_minus_a_and_scrolls():
    app = CompareApp([str(SAMPLES / "ab")])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen) and app.screen.has_class("-narrow")
        table = app.screen.query_one("#cmp-table", Static)
        assert table.region.right <= SIZE[0]
        shown = _text(app.screen, "#cmp-table")
        assert "B (hosted)" in shown and "B − A" in shown and "median -306" in shown
        page = app.screen.query_one("#cmp-page", VerticalScroll)
        assert page.has_focus and page.max_scroll_y > 0
        await pilot.press("j", "j", "pagedown")
        await pilot.pause()
        assert page.scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert page.scroll_y == page.max_scroll_y
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, CompareHelp)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)


async def test_ledger_at_80_columns_lists_sources_in_two_lines_and_scrolls(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("l")
        await pilot.pause()
        body = _text(app.screen, "#ledger-body")
        assert "deposit@3 arrived on turn 3: file_search on 2 ✗ not captured" in body
        assert "8,002 billed (4,001 re-billed), cost ≈ $0.0089, still carried" in body
        scroll = app.screen.query_one("#ledger", VerticalScroll)
        assert scroll.has_focus
        await pilot.press("j", "end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text", Static).render())
        assert "carried-context ledger (l)" in text


async def test_objects_at_80_columns_shows_whole_columns_and_right_reaches_the_rest(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("o")
        await pilot.pause()
        table = app.screen.query_one(RowTable)
        titles = [c.title for c, _ in table.fit_columns(table.size.width)]
        head = table.header_text(table.size.width).plain[: table.size.width]
        assert "expires" not in head and "deleted" in head
        assert titles[-2:] == ["expires", "storage"]
        for _ in range(8):
            await pilot.press("right")
        await pilot.pause()
        header = str(app.screen.query_one("RowHeader").render())
        assert "expires" in header and "storage" in header
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


@pytest.mark.parametrize("view", ["ledger", "objects"])
def test_narrow_hosted_state_snapshot(snap_compare, monkeypatch, view):
    monkeypatch.chdir(ROOT)
    app = make_app([os.path.relpath(SAMPLES / "claims.jsonl", ROOT)])
    assert snap_compare(app, terminal_size=SIZE, run_before=loaded_then(view, 3))


def test_narrow_compare_snapshot(snap_compare, monkeypatch):
    monkeypatch.chdir(ROOT)

    async def ready(pilot) -> None:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    app = CompareApp([os.path.relpath(SAMPLES / "ab", ROOT)])
    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


async def test_conversations_at_80_columns_cut_no_number_and_right_reaches_carried(claims):
    """The carried column (8,002 on claims) leaves the screen whole at 80 columns: a cell
    cut at the right edge would read `8,` — a different number."""
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        table = app.screen.query_one("#conv-table", RowTable)
        row = table.render_line(1).text  # conversation 1, as the screen shows it
        assert "8,002" in row or "8," not in row
        assert "carried" not in str(app.screen.query_one("RowHeader").render())
        for _ in range(3):
            await pilot.press("right")
        await pilot.pause()
        assert "carried" in str(app.screen.query_one("RowHeader").render())
        assert "8,002" in table.render_line(1).text
