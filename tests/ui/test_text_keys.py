"""Every scrollable text page moves with the keys the README's key table promises
everywhere: k j (a line), g (the top), G (the bottom) — not only the arrows and pgdn."""

from __future__ import annotations

import pytest
from textual.containers import ScrollableContainer

from traceview.ui.screens.help import binding_groups
from traceview.ui.widgets.text_scroll import TextScroll

from .conftest import opened, sample

SMALL = (80, 12)  # every page below is longer than this


async def _page_moves(app, pilot, page_id: str) -> None:
    page = app.screen.query_one(page_id, ScrollableContainer)
    assert page.has_focus, f"{page_id} should have the keys"
    assert page.max_scroll_y > 0, f"{page_id} should be longer than the terminal"
    await pilot.press("j", "j")
    await pilot.pause()
    assert page.scroll_y == 2
    await pilot.press("k")
    await pilot.pause()
    assert page.scroll_y == 1
    await pilot.press("G")
    await pilot.pause()
    assert page.scroll_y == page.max_scroll_y
    await pilot.press("g")
    await pilot.pause()
    assert page.scroll_y == 0


@pytest.mark.parametrize(("key", "page_id"), [
    ("question_mark", "#help"),
    ("l", "#ledger"),
    ("t", "#latency"),
    ("i", "#context"),
])
async def test_j_k_g_G_scroll_a_text_page(key: str, page_id: str) -> None:
    async with opened(sample("claims"), SMALL, key) as (app, pilot):
        await _page_moves(app, pilot, page_id)


async def test_j_k_g_G_scroll_a_problem_line() -> None:
    async with opened(sample("damaged"), SMALL, "p", "enter") as (app, pilot):
        body = app.screen.query_one("#problem-line-body", ScrollableContainer)
        assert isinstance(body, TextScroll)


async def test_help_lists_the_text_keys() -> None:
    ids = {b.id for _, bindings in binding_groups() for b in bindings}
    assert {"text.down", "text.up", "text.top", "text.bottom"} <= ids
