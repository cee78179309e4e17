"""The objects screen's deletion checklist (`o`, then `x`; `f` names a case): the view
`traceview objects CAPTURE --case ID` prints — every provider object of the case, containers
too, in the order to delete them, each with the call that deletes it (issue 35)."""

from __future__ import annotations

import os

from textual.widgets import Input

from traceview.ui.app import make_app
from traceview.ui.screens.objects import ObjectsScreen
from traceview.ui.widgets.row_table import RowTable

from .conftest import ROOT, opened
from .test_hosted_state_screens import _text

CAPTURE = ROOT / "tests" / "ui" / "fixtures" / "case_checklist.jsonl"  # lineage_capture.py's
CASE = "CS-88213"


async def _checklist_of_case(pilot) -> None:
    app = pilot.app
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("o", "x", "f", *CASE, "enter")
    await pilot.pause()


async def test_k_shows_the_checklist_and_f_filters_it_to_one_case():
    async with opened(CAPTURE, (140, 40), "o", "x") as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ObjectsScreen)
        everything = screen.query_one("#checklist-table", RowTable).rows
        assert ("response", "resp_4") in [(o["kind"], o["id"]) for o in everything]
        assert _text(screen, "#objects-title").startswith(
            "deletion checklist · the capture · 5 turn(s) · 10 object(s)")
        await pilot.press("f", *CASE, "enter")
        await pilot.pause()
        rows = screen.query_one("#checklist-table", RowTable).rows
        ids = [(o["kind"], o["id"]) for o in rows]
        assert ids[0] == ("conversation", "conv_case88213")
        assert ("response", "resp_4") not in ids  # another conversation's
        assert {("response", f"resp_{n}") for n in (1, 2, 3)} <= set(ids)
        assert ("vector_store", "vs_policy") in ids
        assert _text(screen, "#objects-title").startswith(
            f"deletion checklist · case {CASE} · 3 turn(s) · 8 object(s) · 8 not deleted")
        detail = " ".join(_text(screen, "#object-detail").split())
        assert ("delete with: DELETE /v1/conversations/conv_case88213 "
                "(client.conversations.delete('conv_case88213'))") in detail
        await pilot.press("f", "enter")  # empty: every case again
        await pilot.pause()
        assert len(screen.query_one("#checklist-table", RowTable).rows) == len(everything)
        assert not screen.query_one("#case-filter", Input).display
        await pilot.press("x")  # back to the inventory
        await pilot.pause()
        assert screen.query_one("#object-table", RowTable).display
        assert not screen.query_one("#checklist-table", RowTable).display


def test_checklist_of_a_case_snapshot_80x24(snap_compare, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    app = make_app([os.path.relpath(CAPTURE, ROOT)])
    assert snap_compare(app, terminal_size=(80, 24), run_before=_checklist_of_case)


async def test_enter_on_an_object_selects_the_first_turn_that_used_it():
    """⏎ (the footer's Open): back to the turns view at the object's first turn."""
    async with opened(CAPTURE, (140, 40), "o") as (app, pilot):
        table = app.screen.query_one("#object-table", RowTable)
        at = next(i for i, o in enumerate(table.rows) if o["id"] == "resp_3")
        first = table.rows[at]["turns"][0]
        table.cursor = at
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, ObjectsScreen)
        assert app.main.current_turn().index == first == 3
