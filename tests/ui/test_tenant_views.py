"""Issue 33 in the TUI: `&tenant=acme` (or `/…`) filters turns by attribution, and `b` on
the conversations screen groups the capture by tenant, case, user… with its totals,
carried context and cost — the numbers of the report's `cost.attribution`."""

from __future__ import annotations

import os

from traceview.ui.app import make_app
from traceview.ui.screens.lists import ConversationsScreen
from traceview.ui.state import ALL
from traceview.ui.widgets.row_table import RowTable

from .conftest import ROOT, sample

SIZE = (80, 24)


async def _loaded(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_ampersand_filters_by_tenant_and_slash_finds_a_user():
    app = make_app([sample("tenants")])
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        app.main.show_conversation(ALL)  # every turn (the first conversation is shown)
        await pilot.press("ampersand", *"tenant=globex", "enter")
        await pilot.pause()
        assert [t.index for t in app.main.rows] == [6, 7]
        app.main.apply_filter("case_id=ac-1002")  # values match without regard to case
        assert [t.index for t in app.main.rows] == [4, 5]
        app.main.apply_filter("")
        app.main.apply_search("user=acme-user-7")
        assert [app.main.rows[h].index for h in app.main.hits] == [1, 2, 3]


async def test_b_groups_conversations_by_tenant_and_enter_filters_to_it():
    app = make_app([sample("tenants")])
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ConversationsScreen)
        await pilot.press("b")
        await pilot.pause()
        table = app.screen.query_one(RowTable)
        rows = [(r.name, r.turns, r.carried, r.cost_usd) for r in table.rows]
        assert rows == [("tenant=acme", 5, 6370, 0.152721), ("tenant=globex", 2, 0, 0.000339)]
        await pilot.press("b")  # the next key: case_id
        await pilot.pause()
        assert [r.name for r in table.rows][:1] == ["case_id=AC-1001"]
        await pilot.press("b", "b", "b", "b")  # feature, user, safety_identifier, none
        await pilot.pause()
        assert app.screen.group_by is None
        await pilot.press("b", "down", "enter")
        await pilot.pause()
        assert [t.index for t in app.main.rows] == [6, 7]


def test_grouped_conversations_snapshot(snap_compare, monkeypatch):
    monkeypatch.chdir(ROOT)
    app = make_app([os.path.relpath(sample("tenants"), ROOT)])

    async def run_before(pilot) -> None:
        await _loaded(pilot.app, pilot)
        await pilot.press("c", "b")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_the_detail_says_who_the_turn_was_for():
    from traceview.ui.screens.detail import numbers_line

    app = make_app([sample("tenants")])
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        line = numbers_line(app.main.rows[0]).plain
        assert ("for tenant=acme   case_id=AC-1001   feature=support   user=acme-user-7   "
                "safety_identifier=sid-acme-user-7") in line


async def test_project_filters_and_shows_in_the_detail(tmp_path):
    """A capture that kept openai-project headers: `&project=proj_b` keeps that project's
    turns, `b` groups by project, and the detail says which project paid."""
    import orjson

    from traceview.ui.screens.detail import numbers_line

    lines = []
    for n, project in enumerate(("proj_a", "proj_b", "proj_b"), 1):
        lines.append({"dir": "req", "body": {"model": "gpt-4.1", "input": f"q{n}"}})
        lines.append({"dir": "res", "headers": {"openai-project": project}, "body": {
            "id": f"resp_{n}", "object": "response", "status": "completed",
            "model": "gpt-4.1", "output": [], "usage": {"input_tokens": 100 * n,
                                                          "output_tokens": 10}}})
    path = tmp_path / "projects.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    app = make_app([str(path)])
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        app.main.show_conversation(ALL)
        assert "project=proj_a" in numbers_line(app.main.rows[0]).plain
        app.main.apply_filter("project=proj_b")
        assert [t.index for t in app.main.rows] == [2, 3]
        app.main.apply_filter("")
        await pilot.press("c", "b")
        await pilot.pause()
        table = app.screen.query_one(RowTable)
        assert [(r.name, r.turns) for r in table.rows] == [("project=proj_b", 2),
                                                          ("project=proj_a", 1)]
