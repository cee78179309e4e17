"""Exports that are data, at 80x24: raw numbers and whole text in CSV/JSON, a prompt with
the default path, one output directory for E, s, w and the palette, whole paths in the
toast, and Y copying the selected turn as JSON."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from textual.widgets import Input

from traceview.ui.app import make_app
from traceview.ui.screens.path_prompt import PathPrompt

SIZE = (80, 24)


async def loaded(app, pilot):
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_capital_e_prompts_with_the_default_path_and_writes_raw_data(claims, tmp_path):
    app = make_app([claims], screenshot_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("E")
        await pilot.pause()
        assert isinstance(app.screen, PathPrompt)
        box = app.screen.query_one("#path-input", Input)
        assert box.value.startswith(str(tmp_path / "claims-turns-")) and box.value.endswith(".csv")
        footer = " ".join(k.description for k in app.screen.query("FooterKey"))
        assert "Write" in footer and "Cancel" in footer and "Search" not in footer
        await pilot.press("enter")
        await pilot.pause()
        written = app.main.last_export
    rows = list(csv.DictReader(written.open(encoding="utf-8")))
    assert [r["#"] for r in rows] == ["1", "2", "3", "4"]
    assert rows[0]["sent"] == "410" and rows[0]["billed in"] == "1210"  # not "410 B", "1,210"
    assert rows[0]["unexpl.≈"] == ""  # unknown: empty, not "—"
    assert rows[2]["markers"] == "deposit;tool_offered_unused"  # names, not "⊕·"
    assert [r["user"] for r in rows] == [t.user_text for t in app.main.rows]  # not the cell


async def test_a_typed_path_is_used_and_esc_writes_nothing(claims, tmp_path):
    app = make_app([claims], screenshot_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("E", "escape")
        await pilot.pause()
        assert app.screen is app.main and not list(tmp_path.iterdir())
        await pilot.press("E")
        await pilot.pause()
        box = app.screen.query_one("#path-input", Input)
        box.value = str(tmp_path / "mine" / "turns.csv")
        await pilot.press("enter")
        await pilot.pause()
    assert (tmp_path / "mine" / "turns.csv").exists()


async def test_json_export_has_numbers_nulls_and_calls(claims, tmp_path):
    app = make_app([claims], screenshot_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        written = app.main.write_table("json", tmp_path / "t.json")
    data = json.loads(written.read_text(encoding="utf-8"))
    assert data[0]["sent"] == 410 and data[0]["unexpl.≈"] is None
    assert data[1]["hosted"][0]["type"] == "file_search_call"
    assert data[2]["markers"] == ["deposit", "tool_offered_unused"]


async def test_default_directory_is_the_current_one_never_screenshots(claims, tmp_path,
                                                                    monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("E")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        notes = [n.message for n in app._notifications]
    names = sorted(p.name for p in tmp_path.iterdir())
    assert not (tmp_path / "screenshots").exists()
    assert any(n.endswith(".svg") for n in names) and any(n.endswith(".csv") for n in names)
    # The toast names the whole absolute path, however long.
    for name in names:
        assert any(str(tmp_path.resolve() / name) in n for n in notes), name


async def test_a_long_path_is_shown_whole_in_the_toast(claims, tmp_path):
    from textual.widgets._toast import Toast

    deep = tmp_path / ("a-rather-long-directory-name-" * 3) / "exports"
    app = make_app([claims], screenshot_dir=deep)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(app, pilot)
        await pilot.press("s")
        await pilot.pause()
        await pilot.pause()
        [toast] = app.screen.query(Toast)
        shown = "".join(line.text.strip()
                        for line in toast.render_lines(toast.region.reset_offset))
    [svg] = Path(deep).glob("*.svg")
    assert str(svg.resolve()).replace(" ", "") in shown.replace(" ", "").replace("▌", "")


async def test_capital_y_copies_the_selected_turn_as_json(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("j", "j", "Y")
        await pilot.pause()
        data = json.loads(app.clipboard)
        assert data["index"] == 3 and data["input_tokens"] == 6110
        assert "deposit" in data["markers"]
        assert any("clipboard" in n.message for n in app._notifications)


async def test_capital_y_in_the_detail_copies_the_body_under_the_cursor(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("j", "j", "enter")
        await loaded(app, pilot)
        tree = app.screen.query_one("#tree")
        assert tree.reveal(("response", "body", "usage"))
        await pilot.press("Y")
        await pilot.pause()
        assert json.loads(app.clipboard)["input_tokens"] == 6110
        assert any("response.body.usage copied as JSON" in n.message
                   for n in app._notifications)


async def test_the_ms_column_exports_and_sorts_by_the_latency_it_shows(tmp_path):
    """A retried turn shows `4×2`: the caller's latency over both attempts (report's
    caller_elapsed_ms); the export wrote the final attempt's 3 and S sorted by it."""
    from traceview.ui.screens.main import MainScreen

    recorded = Path(__file__).resolve().parents[1] / "fixtures" / "timing" / "recorded.jsonl"
    app = make_app([str(recorded)], screenshot_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await pilot.press(":", "3", "enter")
        await pilot.pause()
        assert "4×2" in app.main.table.render_line(0).text
        await pilot.press("E", "enter")
        await pilot.pause()
        written = app.main.last_export
    [row] = list(csv.DictReader(written.open(encoding="utf-8")))
    assert row["user"].startswith("And accidental") and row["ms"] == "4"
    assert dict(MainScreen.SORTS)["ms"] == "caller_elapsed_ms"
