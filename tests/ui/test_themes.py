"""Themes: every widget repaints at once; the choice is remembered; --theme picks one."""

from __future__ import annotations

from traceview.commands.inspect import build_inspector_parser
from traceview.config import load_settings
from traceview.ui.app import make_app
from traceview.ui.widgets.row_table import RowTable

SIZE = (100, 30)


def row_backgrounds(app) -> set:
    table = app.main.query_one("#turns", RowTable)
    return {seg.style.bgcolor for y in range(4) for seg in table.render_line(y) if seg.style}


async def test_switching_theme_repaints_the_turns_rows_without_a_resize(claims):
    app = make_app([claims], theme="textual-dark")
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        dark = row_backgrounds(app)
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        light = row_backgrounds(app)
        assert dark and light and dark.isdisjoint(light)


async def test_the_picked_theme_is_remembered_and_theme_flag_sets_it(claims, tmp_path,
                                                                     monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    app = make_app([claims], theme="nord")
    app.remember_theme = True
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "nord"
        app.theme = "gruvbox"
        await pilot.pause()
        await pilot.pause()
    assert load_settings() == {"theme": "gruvbox"}
    assert (tmp_path / "traceview" / "config.toml").read_text() == 'theme = "gruvbox"\n'
    assert build_inspector_parser().parse_args(["x.jsonl", "--theme", "nord"]).theme == "nord"


async def test_an_unknown_theme_is_said_not_fatal(claims):
    app = make_app([claims], theme="no-such-theme")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert any("unknown theme" in n.message for n in app._notifications)


async def test_hidden_columns_and_the_sort_are_remembered_beside_the_theme(claims, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    app = make_app([claims])
    app.remember_theme = True
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.main.toggle_column("reasoning")
        await pilot.press("S")
        await pilot.pause()
    assert load_settings() == {"turns_hidden": ["reasoning"], "turns_sort": "billed in"}
    again = make_app([claims])
    again.remember_theme = True
    async with again.run_test(size=SIZE) as pilot:
        await again.workers.wait_for_complete()
        await pilot.pause()
        assert "reasoning" in again.main.table.hidden
        assert [t.index for t in again.main.rows] == [4, 3, 2, 1]
