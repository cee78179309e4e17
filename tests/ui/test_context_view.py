"""The context view (`i`): what the model was shown on a turn, itemised, as the core's
`traceview context --format json` document says — at 80x24 and 200x55."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Static

from traceview.cli import main
from traceview.ui.app import make_app
from traceview.ui.screens.context import ContextScreen
from traceview.ui.screens.detail import DetailScreen
from traceview.ui.screens.help import HelpScreen
from traceview.ui.screens.main import MainScreen

from .conftest import ROOT, sample
from .test_hosted_state_screens import _text
from .test_snapshots import loaded_then

REAL = ROOT / "tests" / "fixtures" / "real"
WEB = REAL / "pai_web_search_reasoning_replay_cached.jsonl"


async def _loaded(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


def _doc(path: str, turn: int, capsys) -> dict:
    assert main(["context", path, "--turn", str(turn), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_context_json_names_each_lines_origin_and_totals_them(capsys):
    doc = _doc(str(WEB), 2, capsys)
    origins = [(x["component"], x["origin"]) for x in doc["input_account"]]
    assert origins == [("request", "request"), ("instructions", "request"),
                       ("tools", "tool_definitions"), ("message", "request"),
                       ("reasoning", "resent"), ("web_search_call", "resent"),
                       ("reasoning", "resent"), ("message", "resent"),
                       ("message", "request"), ("hosted_pass", "hosted")]
    assert doc["origins"] == [
        {"origin": "request", "lines": 4, "unknown": 0, "known_tokens": 34, "tokens": 34},
        {"origin": "tool_definitions", "lines": 1, "unknown": 1, "known_tokens": 0,
         "tokens": None},
        {"origin": "resent", "lines": 4, "unknown": 0, "known_tokens": 80, "tokens": 80},
        {"origin": "hosted", "lines": 1, "unknown": 1, "known_tokens": 0, "tokens": None}]


async def test_i_shows_the_selected_turns_stack_with_the_cores_numbers(claims, capsys,
                                                                       tmp_path):
    doc = _doc(claims, 3, capsys)
    bare = tmp_path / "claims.jsonl"  # no snapshot beside it: the capture's own account
    bare.write_bytes(Path(claims).read_bytes())
    app = make_app([str(bare)])
    async with app.run_test(size=(200, 55)) as pilot:
        await _loaded(app, pilot)
        await app.go_to("turns", 3)
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, ContextScreen) and app.screen.turn.index == 3
        body = _text(app.screen, "#context-body")
        carried = doc["input_account"][1]
        assert carried["origin"] == "stored" and carried["tokens"] is None
        assert f"?  stored (provider)  ? unknown  carried    {carried['name']}" in body
        assert "counted 17 + 2 unknown   expected 2,109   billed 6,110 (cached 1,664)" in body
        assert "unexplained ≈ +4,001" in body and "⊕ deposit" in body
        # Every unknown is named with the core's reason.
        assert f"? tools file_search: {doc['input_account'][2]['reason']}" in body
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert app.screen.turn.index == 4 and app.main.current_turn().index == 4
        assert "turn 4 ·" in _text(app.screen, "#context-body")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


async def test_i_in_the_detail_shows_the_details_turn_and_its_footer_says_so(claims):
    app = make_app([claims])
    async with app.run_test(size=(120, 36)) as pilot:
        await _loaded(app, pilot)
        await app.go_to("detail", 2)
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        # The footer recomposes once the screen's bindings settle: a few message rounds,
        # more on a loaded machine (counted rounds, not time).
        footer = ""
        for _ in range(50):
            footer = " ".join(str(k.render()) for k in app.screen.query("FooterKey"))
            if footer:
                break
            await pilot.pause()
        assert "Context" in footer
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, ContextScreen) and app.screen.turn.index == 2
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)


async def test_at_80x24_the_stack_fits_scrolls_and_help_names_the_key():
    app = make_app([str(WEB)])
    async with app.run_test(size=(80, 24)) as pilot:
        await _loaded(app, pilot)
        await app.go_to("context", 2)
        await pilot.pause()
        body = app.screen.query_one("#context-body", Static)
        assert body.region.right <= 80
        text = _text(app.screen, "#context-body")
        assert "resent history" in text and "hosted (provider)" in text
        assert "rs_028829e50fbcad090…" in text  # ids shortened in the stack, whole below
        assert "reasoning rs_028829e50fbcad090068c9c82f1b148195863375312bf5dc00:" in text
        scroll = app.screen.query_one("#context", VerticalScroll)
        assert scroll.has_focus and scroll.max_scroll_y > 0
        await pilot.press("j", "end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_text = str(app.screen.query_one("#help-text", Static).render())
        assert "what the model was shown (i)" in help_text
        assert "i             Context" in help_text


@pytest.mark.parametrize("size", [(80, 24), (200, 55)], ids=["80x24", "200x55"])
@pytest.mark.parametrize(("capture", "turn"), [("web", 2), ("claims", 3)])
def test_context_snapshot(snap_compare, monkeypatch, capture, turn, size):
    monkeypatch.chdir(ROOT)
    path = WEB if capture == "web" else sample("claims")
    app = make_app([os.path.relpath(path, ROOT)])
    assert snap_compare(app, terminal_size=size, run_before=loaded_then("context", turn))


def test_screenshot_shows_the_context_view(claims, tmp_path):
    import html
    import re

    out = tmp_path / "context.svg"
    assert main(["screenshot", claims, "--view", "context", "--turn", "3", "-o", str(out),
                 "--size", "120x30"]) == 0
    text = html.unescape(re.sub(r"<[^>]+>", "", out.read_text())).replace("\xa0", " ")
    assert "what the model was shown" in text and "stored (provider)" in text


async def test_the_title_keeps_the_whole_command_at_80_columns():
    """A long file name wraps the command onto a second title line: cut at one line, the
    command lost its `--turn 11`."""
    app = make_app([str(REAL / "chatlas_tool_variations_stream_11turns.jsonl")])
    async with app.run_test(size=(80, 24)) as pilot:
        await _loaded(app, pilot)
        await pilot.press(":", *"11", "enter", "i")
        await pilot.pause()
        assert isinstance(app.screen, ContextScreen)
        title = app.screen.query_one("#context-title", Static)
        shown = " ".join(strip.text for strip in title.render_lines(title.region.reset_offset))
        assert "chatlas_tool_variations_stream_11turns.jsonl --turn 11" in " ".join(
            shown.split())
