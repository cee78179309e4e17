"""The inspector at 80x24: the signals stay on screen, the rest is one → away.

Each test reads what the widgets actually render (the strips of the table, the title
line, the footer's keys), the way a user reads the terminal.
"""

from __future__ import annotations

from textual.widgets import Static
from textual.widgets._footer import FooterKey

from traceview.ui.app import make_app
from traceview.ui.widgets.chart import TurnChart
from traceview.ui.widgets.row_table import RowTable

from .conftest import sample

SMALL = (80, 24)


async def loaded(app, pilot):
    await app.workers.wait_for_complete()
    await pilot.pause()


def table_lines(app) -> list[str]:
    table = app.main.query_one("#turns", RowTable)
    return [table.render_line(y).text for y in range(min(len(table.rows), table.size.height))]


def header(app) -> str:
    return str(app.main.query_one("#turns-header").render())


def title(app) -> str:
    return str(app.main.query_one("#title").render())


async def test_80x24_keeps_number_sent_billed_unexplained_hosted_and_markers(claims):
    app = make_app([claims])
    async with app.run_test(size=SMALL) as pilot:
        await loaded(app, pilot)
        head = header(app)
        for column in ("#", "sent", "billed in", "unexpl.≈", "hosted", "markers"):
            assert column in head, (column, head)
        assert "ms" not in head.split() and head.rstrip().endswith("→")
        rows = table_lines(app)
        assert len(rows) == 4
        # the deposit on turn 3 and the missing evidence (✗) of turns 2 and 4 are visible
        assert rows[2].split()[0] == "3" and "6,110" in rows[2] and "+4,001" in rows[2]
        assert "⊕" in rows[2]
        assert "file_search ✗" in rows[1] and "file_search ✗" in rows[3]
        assert all(len(r) <= 80 for r in rows)


async def test_right_and_left_scroll_to_the_hidden_columns_keeping_the_turn_number(claims):
    app = make_app([claims])
    async with app.run_test(size=SMALL) as pilot:
        await loaded(app, pilot)
        table = app.main.query_one("#turns", RowTable)
        assert "ms" not in header(app).split()
        await pilot.press("right", "right", "right", "right")
        await pilot.pause()
        assert table.scroll_offset.x > 0
        head = header(app)
        assert "ms" in head.split() and "reasoning" in head and "←" in head
        assert table_lines(app)[2].split()[0] == "3"  # the pinned first column
        await pilot.press("left", "left", "left", "left", "left")
        await pilot.pause()
        assert table.scroll_offset.x == 0 and "user" in header(app)


async def test_hosted_name_is_abbreviated_but_the_evidence_symbol_never_cut():
    from traceview.ui import format as fmt

    calls = [{"type": "file_search_call", "evidence": "missing"},
             {"type": "web_search_call", "evidence": "captured"}]
    assert fmt.hosted_cell(calls) == "file_search ✗ +1"
    assert fmt.hosted_cell(calls, width=12) == "file_s… ✗ +1"
    assert fmt.hosted_cell(calls[:1], width=6).endswith(" ✗")


async def test_title_keeps_marker_counts_and_problems_at_80_columns():
    app = make_app([sample("claims")])
    async with app.run_test(size=SMALL) as pilot:
        await loaded(app, pilot)
        said = title(app)
        assert "4 turns" in said and "7 markers (⊕1 ✗2" in said
    app = make_app([sample("damaged")])
    async with app.run_test(size=SMALL) as pilot:
        await loaded(app, pilot)
        said = title(app)
        assert "problems (p)" in said and "markers" in said


async def test_footer_starts_with_help_at_80_columns(claims):
    app = make_app([claims])
    async with app.run_test(size=SMALL) as pilot:
        await loaded(app, pilot)
        keys = list(app.main.query(FooterKey))
        assert keys[0].description == "Help" and keys[0].region.right <= 80


async def test_the_finding_is_on_screen_at_80x24(claims):
    app = make_app([claims])
    async with app.run_test(size=SMALL) as pilot:
        await loaded(app, pilot)
        await pilot.press("j", "j")
        await pilot.pause()
        summary = app.main.query_one("#summary")
        text = str(app.main.query_one("#summary-text", Static).render())
        lines = text.splitlines()
        at = next(i for i, line in enumerate(lines) if "tokens arrived without" in line)
        assert at + 1 < summary.content_region.height  # inside the visible part
        await pilot.press("enter")
        await loaded(app, pilot)
        finding = app.screen.query_one("#findings", Static)
        assert "4,001 tokens arrived without a request" in str(finding.render())
        assert finding.region.y <= 2 and finding.region.height > 0


async def test_filter_on_a_short_terminal_keeps_the_layout_and_says_nothing_matches(claims):
    app = make_app([claims])
    async with app.run_test(size=(80, 20)) as pilot:
        await loaded(app, pilot)
        await pilot.press("ampersand", "z", "z")
        await pilot.pause()
        for selector in ("#title", "#turns-header", "#chart", "#summary"):
            assert app.main.query_one(selector).region.height > 0, selector
        assert "no turns match /zz" in str(app.main.query_one(TurnChart).render())
        assert "no turns match /zz" in str(app.main.query_one("#summary-text", Static).render())


async def test_filter_matches_hosted_tool_names_and_evidence(claims):
    app = make_app([claims])
    async with app.run_test(size=SMALL) as pilot:
        await loaded(app, pilot)
        for query in ("file_search", "✗", "missing"):
            app.main.apply_filter(query)
            await pilot.pause()
            assert [t.index for t in app.main.rows] == [2, 4], query


async def test_escape_and_q_go_back_everywhere_and_q_quits_only_from_the_turns(claims):
    from traceview.ui.screens.main import MainScreen

    app = make_app([claims])
    async with app.run_test(size=SMALL) as pilot:
        await loaded(app, pilot)
        for opener in ("enter", "c", "p", "question_mark"):
            for back in ("escape", "q"):
                await pilot.press(opener)
                await loaded(app, pilot)
                assert not isinstance(app.screen, MainScreen), opener
                await pilot.press(back)
                await pilot.pause()
                assert isinstance(app.screen, MainScreen), (opener, back)
        assert app.is_running
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_one_right_shows_out_reasoning_and_ms_whole_and_one_left_goes_back(claims):
    """README: at 80x24 out, reasoning and ms are "one → away". → moves by a group of
    whole columns (to the first one not wholly shown), ← by a group back."""
    app = make_app([claims])
    async with app.run_test(size=SMALL) as pilot:
        await loaded(app, pilot)
        table = app.main.query_one("#turns", RowTable)
        await pilot.press("right")
        await pilot.pause()
        head = header(app)
        words = head.replace("←", " ").replace("→", " ").split()
        for column in ("out", "reasoning", "ms"):
            assert column in words, (column, head)  # whole, not `rea→`
        assert table_lines(app)[3].split()[0] == "4"  # `#` stays
        assert "510" in table_lines(app)[3] and "6,140" in table_lines(app)[3]
        await pilot.press("left")
        await pilot.pause()
        assert table.scroll_offset.x == 0 and "user" in header(app)


async def test_right_steps_through_many_hidden_columns_a_screenful_at_a_time():
    """A table wider than two screens: each → shows the columns that were cut or hidden
    next, whole at its left edge; ← comes back the same way; no column is skipped."""
    from traceview.ui.widgets.row_table import Column

    columns = [Column("#", 4, str)] + [
        Column(f"c{i}", 9, lambda r, i=i: f"{r.index * i:,}") for i in range(1, 25)]
    app = make_app([sample("claims")])
    async with app.run_test(size=SMALL) as pilot:
        await loaded(app, pilot)
        table = app.main.query_one("#turns", RowTable)
        table.columns = columns
        table.set_column(0, columns[0])
        await pilot.pause()
        width = table.size.width
        starts = table._column_starts(width)
        span = width - table.pinned_width(width)
        seen = [0]
        for _ in range(10):
            await pilot.press("right")
            await pilot.pause()
            seen.append(int(table.scroll_offset.x))
        assert seen[1] > starts[1]  # more than one column at a time
        for before, after in zip(seen, seen[1:], strict=False):
            assert after in starts or after == before
            assert after - before <= span  # the next column was (partly) on screen
        assert seen[-1] == max(s for s in starts if s <= table._reach(width))
        for _ in range(10):
            await pilot.press("left")
        await pilot.pause()
        assert table.scroll_offset.x == 0
