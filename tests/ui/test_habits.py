"""Habits from toolong, harlequin and posting: go to, step, sort, columns, copy, export,
the offending line of a problem, screenshots that never overwrite."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from textual.widgets import Static

from traceview.ui.app import make_app
from traceview.ui.screens.detail import DetailScreen
from traceview.ui.screens.problem_line import ProblemLineScreen
from traceview.ui.widgets.row_table import RowTable

from .conftest import sample

SIZE = (120, 36)


async def loaded(app, pilot):
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_colon_goes_to_turn_n(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("colon", "3", "enter")
        await pilot.pause()
        assert app.main.current_turn().index == 3
        await pilot.press("colon", "9", "9", "enter")  # unknown: stays, says so
        await pilot.pause()
        assert app.main.current_turn().index == 3


async def test_brackets_step_between_turns_inside_the_detail(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("j", "enter")
        await loaded(app, pilot)
        assert app.screen.turn.index == 2
        await pilot.press("right_square_bracket")
        await loaded(app, pilot)
        assert isinstance(app.screen, DetailScreen) and app.screen.turn.index == 3
        assert "4,001 tokens arrived" in str(app.screen.query_one("#findings", Static).render())
        await pilot.press("left_square_bracket", "left_square_bracket")
        await loaded(app, pilot)
        assert app.screen.turn.index == 1
        await pilot.press("escape")
        await pilot.pause()
        assert app.main.current_turn().index == 1 and len(app.screen_stack) == 1


async def test_capital_s_sorts_by_billed_input_largest_first(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("S")
        await pilot.pause()
        assert [t.index for t in app.main.rows] == [4, 3, 2, 1]
        assert "by billed in ↓" in str(app.main.query_one("#title").render())
        for _ in range(len(app.main.SORTS) - 1):
            await pilot.press("S")
        await pilot.pause()
        assert [t.index for t in app.main.rows] == [1, 2, 3, 4]


async def test_columns_hide_and_show_from_the_palette_commands(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "columns: hide cached" in [t for t in titles]
        app.main.toggle_column("cached")
        await pilot.pause()
        assert "cached" not in str(app.main.query_one("#turns-header").render())
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "columns: show cached" in titles
        app.main.toggle_column("cached")
        await pilot.pause()
        assert "cached" in str(app.main.query_one("#turns-header").render())


async def test_y_copies_the_selected_response_id(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("j", "j", "y")
        await pilot.pause()
        assert app.clipboard == app.main.current_turn().response_id
        assert app.clipboard.startswith("resp_")


async def test_export_writes_the_visible_rows_in_three_formats_never_overwriting(
    claims, tmp_path
):
    app = make_app([claims], screenshot_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.main.apply_filter("file_search")
        await pilot.pause()
        written = []
        for name in ("csv", "json", "markdown", "csv"):
            await pilot.press("ctrl+p")
            await pilot.press(*f"table as {name}")  # the palette matches as it is typed
            await app.workers.wait_for_complete()
            await pilot.press("enter")
            await pilot.pause()
            await pilot.press("enter")  # the prompt's default path
            await pilot.pause()
            written.append(app.main.last_export)
        assert len(set(written)) == 4 and all(p.parent == tmp_path for p in written)
        rows = list(csv.reader(written[0].open(encoding="utf-8")))
        assert rows[0][:3] == ["#", "user", "sent"] and [r[0] for r in rows[1:]] == ["2", "4"]
        data = json.loads(written[1].read_text(encoding="utf-8"))
        assert [d["#"] for d in data] == [2, 4] and data[0]["hosted"][0]["evidence"] == "missing"
        assert written[2].read_text(encoding="utf-8").startswith("| # | user |")


async def test_enter_on_a_problem_shows_the_offending_line_literally():
    app = make_app([sample("damaged")])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("p")
        await pilot.pause()
        table = app.screen.query_one(RowTable)
        assert table.current().kind == "malformed_json"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ProblemLineScreen)
        shown = str(app.screen.query_one("#problem-line-text", Static).render())
        assert '"input":"status?",,"store":true' in shown
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ProblemLineScreen)


async def test_s_writes_a_new_screenshot_every_time(claims, tmp_path):
    app = make_app([claims], screenshot_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("s", "s")
        await pilot.pause()
        shots = sorted(Path(tmp_path).glob("*.svg"))
        assert len(shots) == 2 and all(p.name.startswith("claims-turns-turn1-") for p in shots)
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert commands.count("app: screenshot") == 1
        assert not any("screenshot" in t.lower() and t != "app: screenshot" for t in commands)


async def test_help_and_footer_show_the_remapped_keys(claims):
    from textual.widgets._footer import FooterKey

    app = make_app([claims])
    app.keymap = {"turns.next_marked": "n", "app.help": "f1"}
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        footer = {k.description: k.key for k in app.main.query(FooterKey)}
        assert footer["Next marked"] == "n" and footer["Help"] == "f1"
        await pilot.press("f1")
        await pilot.pause()
        text = str(app.screen.query_one("#help-text", Static).render())
        line = next(x for x in text.splitlines() if "[turns.next_marked]" in x)
        assert line.split()[0] == "n"
        line = next(x for x in text.splitlines() if "[app.help]" in x)
        assert line.split()[0] == "f1"


async def test_the_palettes_screenshot_entry_writes_the_screen_not_the_palette(claims, tmp_path):
    from textual.command import CommandPalette

    app = make_app([claims], screenshot_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"app: screenshot")
        await app.workers.wait_for_complete()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        shots = list(Path(tmp_path).glob("claims-turns-*.svg"))
        assert len(shots) == 1
        assert "app: screenshot" not in shots[0].read_text(encoding="utf-8")
