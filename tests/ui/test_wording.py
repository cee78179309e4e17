"""Wording the issue asked for: per-conversation numbers, plurals, one cost style, whole
milliseconds, "not a capture", one width in the text report."""

from __future__ import annotations

import subprocess
import sys

import pytest
from textual.widgets import Static

from traceview.analysis.explain import _dollars
from traceview.capture.capture import load
from traceview.ui.app import make_app
from traceview.ui.widgets.json_tree import label_for
from traceview.ui.widgets.row_table import RowTable

from .conftest import ROOT, sample


async def test_turn_numbers_count_within_the_conversation_shown_detail_keeps_the_index():
    app = make_app([sample("service_day")])
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        key = list(app.state.by_key)[1]
        app.main.show_conversation(key)
        await pilot.pause()
        table = app.main.query_one("#turns", RowTable)
        first = app.main.rows[0]
        assert first.index > 1
        assert table.render_line(0).text.split()[0] == "1"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        title = str(app.screen.query_one("#detail-title", Static).render())
        assert f"turn {first.index}" in title


def test_one_item_is_not_items_and_tiny_costs_read_the_same_everywhere():
    assert "1 item" in label_for("input", [1]).plain and "items" not in label_for(
        "input", [1]).plain
    assert "2 items" in label_for("input", [1, 2]).plain
    assert "1 key" in label_for("body", {"a": 1}).plain
    assert _dollars(0.00003) == "<$0.0001" and _dollars(0.0123) == "$0.0123"


def test_a_binary_file_is_one_not_a_capture_problem(tmp_path):
    junk = tmp_path / "image.jsonl"
    junk.write_bytes(bytes(range(256)) * 64 + b"\n" * 500)
    capture = load(str(junk))
    assert [p.kind for p in capture.problems] == ["not_a_capture"]
    assert capture.problems[0].message.startswith("not a capture: binary data")
    text = tmp_path / "notes.jsonl"
    text.write_text("hello\n" * 3000)
    problems = load(str(text)).problems
    assert len(problems) == 1 and "none of its first 20 lines" in problems[0].message


def test_text_report_notes_wrap_at_the_tables_width_and_ms_are_whole():
    out = subprocess.run(
        [sys.executable, "-m", "traceview", "report", sample("claims"), "--width", "200"],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=True,
    ).stdout
    lines = out.splitlines()
    table = [line for line in lines if line[:2] in ("# ", "1 ", "2 ", "3 ", "4 ")]
    notes = [line for line in lines if line.startswith(("  turn", "    "))]
    assert notes and max(map(len, notes)) <= max(map(len, table))
    totals = next(line for line in lines if "latency p50" in line)
    assert "." not in totals.split("latency")[1]


async def test_notifications_at_80x24_do_not_cover_the_table(claims):
    from textual.widgets._toast import Toast

    app = make_app([claims])
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        for n in range(4):
            app.notify(f"notification number {n} with a fairly long message to wrap", timeout=30)
        await pilot.pause()
        await pilot.pause()
        table = app.main.query_one("#turns", RowTable).region
        toasts = [t.region for t in app.screen.query(Toast)]
        assert toasts and not any(t.overlaps(table) for t in toasts)


async def test_detail_says_what_sent_counts_next_to_the_trees_sizes(claims):
    app = make_app([claims])
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        title = str(app.screen.query_one("#bodies-title", Static).render())
        assert "`sent` counts only the request body" in title


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_what_sent_counts_is_on_screen_not_past_the_edge(claims, size):
    """The tree's `request 600 B` beside `sent 578 B`: the sentence that reconciles them
    wraps rather than being cut after "sizes" (80) or "`sent`" (120)."""
    app = make_app([claims])
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        title = app.screen.query_one("#bodies-title", Static)
        shown = " ".join(s.text for s in title.render_lines(title.region.reset_offset))
        assert "`sent` counts only the request body on the wire" in " ".join(shown.split())
