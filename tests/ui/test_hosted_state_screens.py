"""The ledger (`l`), objects (`o`) and the conversations screen's replay-fidelity line."""

from __future__ import annotations

import os

import pytest
from textual.widgets import Static

from traceview.ui.app import make_app
from traceview.ui.screens.ledger import LedgerScreen
from traceview.ui.screens.lists import ConversationsScreen
from traceview.ui.screens.objects import ObjectsScreen
from traceview.ui.widgets.row_table import RowTable

from .conftest import ROOT, sample
from .test_snapshots import loaded_then

SIZE = (140, 40)
REAL = ROOT / "tests" / "fixtures" / "real"


async def _loaded(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


def _text(screen, selector: str) -> str:
    """What a Static shows, as plain text (a Group of tables is exported through Rich)."""
    from rich.console import Console

    content = screen.query_one(selector, Static).content
    if isinstance(content, str):
        return content
    console = Console(width=200, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(content)
    return console.export_text()


async def test_l_opens_the_ledger_of_the_shown_conversation_and_escape_closes_it(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, LedgerScreen)
        body = _text(app.screen, "#ledger-body")
        assert "carried context 8,002 tokens, $0.0089 = 25.0 %" in body
        assert "deposit@3" in body and "file_search on 2 ✗ not captured" in body
        assert "PROJECTION (not a measurement)" in body and "9,030" in body
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LedgerScreen)


async def test_the_ledger_says_a_compaction_left_too_few_turns_to_project():
    """long_conversation: 8 turns with usage, the last after a likely compaction: the line
    is refitted from there, so one turn is too few (not "too few turns with usage")."""
    app = make_app([sample("long_conversation")])
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        await pilot.press("l")
        await pilot.pause()
        body = " ".join(_text(app.screen, "#ledger-body").split())
        assert ("projection: fewer than 2 turns with usage since the last compaction: no "
                "growth line to fit") in body


async def test_o_lists_provider_objects_and_a_deletion_with_its_line():
    app = make_app([str(REAL / "dotnet_retrieve_delete_then_404.jsonl")])
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, ObjectsScreen)
        table = app.screen.query_one(RowTable)
        [row] = table.rows
        assert row["state"] == "deleted" and row["deleted_line"] == 5
        detail = _text(app.screen, "#object-detail")
        assert "provider copy deleted (line 5)" in detail and "HTTP 404 on line 7" in detail
        assert "30 days by default" in detail
        await pilot.press("o")
        await pilot.pause()
        assert not isinstance(app.screen, ObjectsScreen)


async def test_conversations_screen_shows_a_fidelity_line_per_conversation():
    app = make_app([sample("long_conversation")])
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ConversationsScreen)
        table = app.screen.query_one(RowTable)
        [row] = [r for r in table.rows if r.key != "\x00all"]
        assert row.replay == "✗ compaction"
        await pilot.press("down")
        await pilot.pause()
        line = _text(app.screen, "#conversation-fidelity")
        assert line.startswith("replay fidelity: fails: compaction")
        assert "turn 8" in line


@pytest.mark.parametrize(("capture", "view", "turn"), [
    ("claims", "ledger", 3),
    ("claims", "objects", None),
])
def test_hosted_state_snapshot(snap_compare, monkeypatch, capture, view, turn):
    monkeypatch.chdir(ROOT)
    app = make_app([os.path.relpath(sample(capture), ROOT)])
    assert snap_compare(app, terminal_size=SIZE, run_before=loaded_then(view, turn))


async def test_objects_screen_names_the_call_that_deletes_a_live_object():
    app = make_app([str(REAL / "dotnet_file_search_results_null.jsonl")])
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        await pilot.press("o")
        await pilot.pause()
        rows = app.screen.query_one(RowTable).rows
        assert rows and rows[0]["state"] == "exists"
        detail = _text(app.screen, "#object-detail")
        kind = rows[0]["kind"] + "s"
        assert f"delete with: DELETE /v1/{kind}/{rows[0]['id']}" in " ".join(detail.split())
