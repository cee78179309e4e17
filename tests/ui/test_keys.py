"""Pilot tests: every key a user relies on, with the messages it produces."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from traceview.ui.app import make_app
from traceview.ui.messages import BodiesLoaded, LoadFinished, TurnsLoaded
from traceview.ui.screens.detail import DetailScreen
from traceview.ui.screens.help import HelpScreen, binding_groups
from traceview.ui.screens.lists import ConversationsScreen, ProblemsScreen
from traceview.ui.widgets.row_table import RowTable

from .conftest import sample

SIZE = (140, 40)


async def loaded(app, pilot):
    await app.workers.wait_for_complete()
    await pilot.pause()


def plain(widget: Static) -> str:
    return str(widget.render())


def cursor_turn(app) -> int:
    return app.main.current_turn().index


async def test_load_posts_batches_and_shows_every_turn(claims):
    seen = []
    app = make_app([claims])
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await loaded(app, pilot)
        kinds = {type(m) for m in seen}
        assert TurnsLoaded in kinds and LoadFinished in kinds
        assert len(app.main.rows) == 4
        title = plain(app.main.query_one("#title"))
        assert "claims.jsonl" in title and "4 turns" in title and "markers" in title
        assert "loading" not in title


async def test_j_k_and_arrows_move_the_cursor(claims):
    seen = []
    app = make_app([claims])
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await loaded(app, pilot)
        await pilot.press("j", "down")
        assert cursor_turn(app) == 3
        await pilot.press("k")
        assert cursor_turn(app) == 2
        await pilot.press("up", "up")
        await pilot.pause()
        assert cursor_turn(app) == 1
        unique = {id(m): m for m in seen if isinstance(m, RowTable.Highlighted)}
        rows = [m.row for m in unique.values()]
        assert rows[-5:] == [1, 2, 1, 0, 0]


async def test_m_and_shift_m_jump_between_marked_turns(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("m")
        assert cursor_turn(app) == 2
        await pilot.press("m")
        assert cursor_turn(app) == 3
        assert "deposit" in app.main.current_turn().markers
        await pilot.press("M")
        assert cursor_turn(app) == 2


async def test_enter_opens_detail_with_the_cores_account_and_bodies(claims):
    seen = []
    app = make_app([claims])
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await loaded(app, pilot)
        await pilot.press("j", "j", "enter")
        await loaded(app, pilot)
        screen = app.screen
        assert isinstance(screen, DetailScreen) and screen.turn.index == 3
        assert any(isinstance(m, BodiesLoaded) and m.turn_index == 3 for m in seen)
        account = plain(screen.query_one("#account-text", Static))
        finding = plain(screen.query_one("#findings", Static))
        assert "6,110" in account and "arrived without a request" in finding
        attribution = plain(screen.query_one("#attribution", Static))
        assert "turn 2" in attribution and "file_search_call.results" in attribution
        assert [name for name, _ in screen.bodies] == ["request", "response"]
        await pilot.press("escape")
        assert app.screen is app.main


async def test_r_shows_raw_bodies_and_toggles_back(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("r")
        await loaded(app, pilot)
        screen = app.screen
        assert isinstance(screen, DetailScreen) and screen.raw
        assert '"dir": "req"' in plain(screen.query_one("#raw-text", Static))
        await pilot.press("r")
        assert not screen.raw and screen.query_one("#bodies").current == "tree"


async def test_detail_search_moves_to_a_match(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("j", "enter")
        await loaded(app, pilot)
        await pilot.press("slash", *"results", "enter")
        screen = app.screen
        assert screen.matches, "turn 2 has a file_search_call with results"
        node = screen.query_one("#tree").cursor_node
        assert node is not None and node.data.path == screen.matches[0]
        await pilot.press("n")
        await pilot.pause()
        assert screen.match_at == 1 % len(screen.matches)


async def test_ampersand_filters_by_text_and_by_marker(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("ampersand", *"exce", "enter")
        assert [t.index for t in app.main.rows] == [3]
        assert "matching" in plain(app.main.query_one("#title"))
        await pilot.press("escape")
        assert len(app.main.rows) == 4
        await pilot.press("ampersand", *"depo", "enter")
        assert [t.index for t in app.main.rows] == [3]


async def test_c_lists_conversations_and_enter_picks_one():
    app = make_app([sample("service_day")])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        first = app.main.key
        await pilot.press("c")
        screen = app.screen
        assert isinstance(screen, ConversationsScreen)
        table = screen.query_one(RowTable)
        assert table.rows[0].number == "all" and len(table.rows) == len(app.state.by_key) + 1
        assert all(r.turns is not None for r in table.rows)
        await pilot.press("j", "enter")
        assert app.screen is app.main and app.main.key != first
        title = plain(app.main.query_one("#title"))  # the key is cut to its first 20 chars
        assert app.main.key[:20] in title and "(2 of 7, c to pick)" in title
        await pilot.press("c", "home", "enter")
        assert len(app.main.rows) == len(app.state.turns)


async def test_p_lists_problems_with_line_numbers():
    app = make_app([sample("damaged")])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert app.state.problems
        await pilot.press("p")
        screen = app.screen
        assert isinstance(screen, ProblemsScreen)
        assert len(screen.query_one(RowTable).rows) == len(app.state.problems)
        detail = plain(screen.query_one("#problem-detail", Static))
        assert f":{app.state.problems[0].line} " in detail
        await pilot.press("escape")
        assert app.screen is app.main


async def test_question_mark_shows_every_binding(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = plain(app.screen.query_one("#help-text", Static))
        for _, bindings in binding_groups():
            for binding in bindings:
                assert binding.id in text
        assert "deposit" in text and "∅" in text
        await pilot.press("escape")
        assert app.screen is app.main


async def test_s_writes_a_named_svg_and_says_where(claims, tmp_path: Path):
    app = make_app([claims], screenshot_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("j", "j", "s")
        [written] = tmp_path.glob("claims-turns-turn3-*.svg")  # name, then a timestamp
        assert written.read_text().startswith("<svg")
        assert any(str(written) in n.message for n in app._notifications)
        await pilot.press("enter")
        await loaded(app, pilot)
        await pilot.press("s")
        assert len(list(tmp_path.glob("claims-detail-turn3-*.svg"))) == 1


async def test_tab_moves_between_panes(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert app.focused.id == "turns"
        await pilot.press("tab")
        assert app.focused.id == "summary"
        await pilot.press("shift+tab")
        assert app.focused.id == "turns"


async def test_mouse_click_selects_and_second_click_opens(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.click("#turns", offset=(10, 2))
        assert cursor_turn(app) == 3
        await pilot.click("#turns", offset=(10, 2), times=2)
        await loaded(app, pilot)
        assert isinstance(app.screen, DetailScreen)


async def test_q_quits(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running
    assert app.return_code in (0, None)


async def test_every_action_is_in_the_command_palette(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for title in ("turns: next marked turn", "turns: filter", "turns: open detail",
                      "view: conversations", "view: problems", "view: help", "app: screenshot"):
            assert title in titles
        await pilot.press("enter")
        await loaded(app, pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "detail: toggle raw bodies" in titles and "turns: filter" not in titles


def test_every_binding_has_an_id_and_a_description():
    for _, bindings in binding_groups():
        for binding in bindings:
            assert binding.id and binding.description


async def test_a_view_opened_again_over_another_is_returned_to_not_made_twice(claims):
    """Found by a newcomer (shell text typed into a running inspector): c, i, c popped the
    context and the conversations screens and at once pushed a new conversations screen
    with the same id while the old one was still being removed — DuplicateIds, and the
    inspector exited with a traceback. Each key sequence now ends on that view, once."""
    from traceview.ui.screens.context import ContextScreen

    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        for keys, view in ((("c", "i", "c"), ConversationsScreen),
                           (("p", "i", "p"), ProblemsScreen),
                           (("c", "i", "c", "i", "c"), ConversationsScreen),
                           (("enter", "c", "i", "c"), ConversationsScreen)):
            await pilot.press("escape", "escape", "escape")
            await pilot.press(*keys)
            await pilot.pause()
            assert isinstance(app.screen, view), keys
            assert sum(isinstance(s, view) for s in app.screen_stack) == 1, keys
            assert not any(isinstance(s, ContextScreen) for s in app.screen_stack), keys
        assert app.return_code is None  # still running: no crash


def test_a_crash_traceback_reads_plainly_on_the_safe_stderr(claims, monkeypatch):
    """The CLI's stderr shows every control character as text (SafeStream); Textual printed
    a crash's traceback in colour there, so the newcomer who hit DuplicateIds read
    `\\x1b[31m│\\x1b[0m …` on every line. The app's error console writes no colour."""
    import io

    from rich.traceback import Traceback

    from traceview.safety.sanitise import SafeStream

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    raw = Terminal()
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TEXTUAL", raising=False)
    monkeypatch.setattr("sys.stderr", SafeStream(raw))
    app = make_app([claims])
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        app.error_console.print(Traceback())
    text = raw.getvalue()
    assert "RuntimeError: boom" in text
    assert "\\x1b" not in text and "\x1b" not in text
