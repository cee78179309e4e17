"""The latency screen (`t`) and a turn's timing in the detail view (issue #34): the
report's caller-latency and TTFT percentiles, one bar per turn, the stream's event counts
and each attempt's Retry-After — on a capture recorded through the real SDK against the
simulator (tests/fixtures/timing/make.py)."""

from __future__ import annotations

import io
import os

import pytest
from rich.console import Console
from textual.widgets import Static

from traceview.analysis.session import analyze
from traceview.report.fmt import timing_lines
from traceview.ui.app import make_app
from traceview.ui.screens.detail import DetailScreen
from traceview.ui.screens.latency import LatencyScreen

from .conftest import ROOT, opened
from .test_snapshots import loaded_then

RECORDED = ROOT / "tests" / "fixtures" / "timing" / "recorded.jsonl"


def _text(screen, selector: str, width: int = 200) -> str:
    content = screen.query_one(selector, Static).content
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()


async def test_t_shows_the_reports_percentiles_and_a_bar_per_turn() -> None:
    analysis = analyze(str(RECORDED))
    async with opened(RECORDED, (160, 40), "t") as (app, pilot):
        assert isinstance(app.screen, LatencyScreen)
        body = _text(app.screen, "#latency-body")
        for line in timing_lines(analysis.totals):  # the numbers are the report's
            assert line in body
        assert "caller latency (backoff included): p50 98 / p95 1,641 ms" in body
        rows = [ln for ln in body.splitlines() if ln[:5].strip().isdigit()]
        assert [int(r[:5]) for r in rows] == [1, 2, 3, 4, 5]
        assert "2,007 ms" in rows[2] and "░" in rows[2]  # the retry's backoff, drawn
        assert rows[4][6] == "H" and all(r[6] == " " for r in rows[:4])  # hosted tools ran
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LatencyScreen)


async def test_detail_shows_stream_event_counts_and_the_attempts_retry_after() -> None:
    async with opened(RECORDED, (160, 40)) as (app, pilot):
        await app.go_to("detail", 2)
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        timing = _text(app.screen, "#timing")
        assert "ttft 81 ms" in timing and "output_text.delta 220" in timing
        await pilot.press("escape")
        await pilot.pause()
        await app.go_to("detail", 3)
        await pilot.pause()
        timing = _text(app.screen, "#timing")
        assert "caller 2,007 ms" in timing and "backoff 2,003 ms" in timing
        tries = _text(app.screen, "#attempts")
        assert "attempt 1: 429" in tries and "retry-after 2" in tries


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
def test_latency_snapshot(snap_compare, monkeypatch, size) -> None:
    monkeypatch.chdir(ROOT)
    app = make_app([os.path.relpath(RECORDED, ROOT)])
    assert snap_compare(app, terminal_size=size, run_before=loaded_then("latency"))
