"""Conversations (c), objects (o), problems (p) and the diff (d) at 80x24: a table takes the
rows it has, and the explanation under it gets the rest of the screen, wrapped, not cut."""

from __future__ import annotations

import pytest
from textual.containers import ScrollableContainer

from traceview.ui.widgets.row_table import RowTable

from .conftest import opened, sample
from .test_legends import screen_rows

SIZES = [(80, 24), (120, 40)]


def _shown(rows: list[str]) -> str:
    """The screen's words in order, lines joined (a wrapped sentence reads whole)."""
    return " ".join(" ".join(row.split()) for row in rows)


@pytest.mark.parametrize("size", SIZES)
async def test_conversations_table_takes_its_rows_and_the_explanation_the_rest(size):
    async with opened(sample("claims"), size, "c") as (app, pilot):
        table = app.screen.query_one("#conv-table", RowTable)
        assert table.region.height == len(table.rows) == 2
        explain = app.screen.query_one("#conversation-explain", ScrollableContainer)
        assert explain.region.height >= size[1] - 6
        shown = _shown(screen_rows(app))
        assert 'were not captured (add include=["file_search_call.results"])' in shown


@pytest.mark.parametrize("size", SIZES)
async def test_objects_explanation_is_whole(size):
    async with opened(sample("claims"), size, "o") as (app, pilot):
        table = app.screen.query_one("#object-table", RowTable)
        assert table.region.height == len(table.rows)
        await pilot.press("x")
        await pilot.pause()
        listed = app.screen.query_one("#checklist-table", RowTable)
        assert listed.region.height == len(listed.rows)
        shown = _shown(screen_rows(app))
        assert "delete with: DELETE /v1/conversations/conv_" in shown
        assert "kept until deleted" in shown


async def test_objects_table_of_many_rows_leaves_room_for_the_explanation():
    async with opened(sample("service_day"), (80, 20), "o") as (app, pilot):
        table = app.screen.query_one("#object-table", RowTable)
        explain = app.screen.query_one("#object-explain", ScrollableContainer)
        assert len(table.rows) > table.region.height  # it scrolls
        assert explain.region.height >= 4
        assert table.region.bottom <= explain.region.y


@pytest.mark.parametrize("size", SIZES)
async def test_diff_header_and_legend_are_whole(size):
    async with opened(sample("claims"), size, "d") as (app, pilot):
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = _shown(screen_rows(app))
        assert "include file_search_call.results, web_search_call.action.sources, " \
               "code_interpreter_call.outputs" in shown
        rows = screen_rows(app)
        for entry in ("= same item on both sides", "~ same item, different content",
                      "+P only the provider holds it", "-C only the capture holds it"):
            assert any(entry in row for row in rows), (entry, rows)


async def test_object_explanation_breaks_lines_instead_of_showing_backslash_n():
    """Shown whole, the explanation's later lines start lines; no `\\n` is printed."""
    async with opened(sample("claims"), (80, 24), "o") as (app, pilot):
        rows = screen_rows(app)
        assert not any("\\n" in row for row in rows), rows
        assert any(row.strip().startswith("delete with:") for row in rows), rows


@pytest.mark.parametrize("size", SIZES)
async def test_problems_table_takes_its_rows_and_the_message_the_rest(size):
    """The problems screen (p) as conversations and objects: its four rows, and the whole
    message of the selected one under them (at 80x24 the table took the screen and the
    message had 3 lines)."""
    async with opened(sample("damaged"), size, "p") as (app, pilot):
        table = app.screen.query_one("#problem-table", RowTable)
        assert table.region.height == len(table.rows) == 4
        explain = app.screen.query_one("#problem-explain", ScrollableContainer)
        assert explain.region.height >= size[1] - 9
        assert "expected a string key: line 1 column 62 (char 61)); line skipped" \
            in _shown(screen_rows(app))


async def test_conversation_totals_over_some_turns_read_as_floors():
    """service_day: 2 of its 12 turns have no usage. `report` says "billed in 14,613 (over
    10 of 12 turns with usage)"; the all row says ≥ too, and a whole sum stays bare."""
    async with opened(sample("service_day"), (80, 24), "c") as (app, pilot):
        table = app.screen.query_one("#conv-table", RowTable)
        every, first = table.render_line(0).text, table.render_line(1).text
        assert "≥ 14,613" in every and "≥ $0.0133" in every
        assert "4,180" in first and "≥" not in first
        [cost] = [c for c in table.columns if c.title == "cost"]
        assert len("≥ $12,345.67") <= cost.width  # a day's floor fits whole
