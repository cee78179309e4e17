"""The compare screen: Pilot tests for what it shows and its keys, and an SVG snapshot."""

from __future__ import annotations

import os

from textual.widgets import Static

from traceview.ui.compare_app import CompareApp
from traceview.ui.screens.compare import CompareScreen

from .conftest import ROOT, SAMPLES

AB = SAMPLES / "ab"
SIZE = (150, 46)


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_the_compare_screen_shows_both_arms_the_split_and_the_waterfall():
    app = CompareApp([str(AB)])
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        doc = app.doc
        assert "latencies are SIMULATED" in text_of(app, "#cmp-header")
        plot = text_of(app, "#cmp-latency")
        n_hosted = doc["arms"]["B"]["latency_ms"]["with_hosted"]["n"]
        assert "B hosted" in plot and f"n={n_hosted}" in plot
        fall = text_of(app, "#cmp-waterfall")
        assert "file_search_call fees" in fall
        assert f"{doc['difference']['cost']['net_usd']:+,.6f}" in fall and "= Σ components" in fall
        await pilot.press("q")
    assert app.return_code in (0, None)


async def test_arms_that_cannot_be_read_are_said_on_screen(tmp_path):
    app = CompareApp([str(tmp_path / "missing.jsonl"), str(tmp_path / "also.jsonl")])
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.error and "missing.jsonl: no such file or directory" in app.error
        assert "cannot compare" in str(app.query_one("#cmp-loading", Static).render())


def test_compare_screen_snapshot(snap_compare, monkeypatch):
    monkeypatch.chdir(ROOT)

    async def loaded(pilot) -> None:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    app = CompareApp([os.path.relpath(AB, ROOT)])
    assert snap_compare(app, terminal_size=SIZE, run_before=loaded)
