"""Words that are true, at 80x24: keys as people type them, help that matches the mouse,
no literal markup, whole footer keys only, `q Back` where q goes back, and each prompt's
own footer."""

from __future__ import annotations

from textual.widgets import Static
from textual.widgets._footer import FooterKey

from traceview.ui.app import make_app
from traceview.ui.screens.help import help_text

SIZE = (80, 24)


async def loaded(app, pilot):
    await app.workers.wait_for_complete()
    await pilot.pause()


def footer(app) -> list[tuple[str, str]]:
    return [(k.key_display, k.description) for k in app.screen.query(FooterKey)]


def test_help_names_keys_as_they_are_typed_and_says_double_click():
    text = help_text().plain
    for name in ("right_square_bracket", "left_square_bracket", "colon", "slash",
                 "question_mark", "ampersand"):
        assert name not in text.replace("[", " ").split(), name
    lines = text.splitlines()
    assert any(line.split()[:1] == ["]"] for line in lines)
    assert any(line.split()[:1] == [":"] for line in lines)
    assert "double-click" in text and "click it again" not in text


async def test_ctrl_c_says_how_to_quit_without_literal_markup(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        [note] = [n for n in app._notifications if "quit" in n.message]
        assert "[b]" not in note.message and "press q to quit" in note.message


async def test_the_footer_shows_whole_keys_only_at_80_columns(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        keys = [k for k in app.screen.query(FooterKey) if "-command-palette" not in k.classes]
        palette = app.screen.query_one("FooterKey.-command-palette")
        last = max(k.region.right for k in keys)
        assert last <= palette.region.x, "a key runs under the palette key"
        for key in keys:  # every key shown whole: its label fits its region
            assert key.region.width >= len(key.key_display) + len(key.description) + 1


async def test_q_says_back_where_it_goes_back(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert ("q", "Quit") in footer(app)
        await pilot.press("enter")
        await loaded(app, pilot)
        shown = footer(app)
        assert ("q", "Quit") not in shown
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is app.main and app.is_running


async def test_each_prompt_has_its_own_footer(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        for key, verb in (("colon", "Go to"), ("slash", "Search"), ("ampersand", "Filter")):
            await pilot.press(key)
            await pilot.pause()
            shown = footer(app)
            assert shown == [("⏎", verb), ("esc", "Cancel")], (key, shown)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen.focused is app.main.table
            assert ("/", "Search") in footer(app)


async def test_help_screen_text_has_no_raw_key_names(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = str(app.screen.query_one("#help-text", Static).render())
        assert "right_square_bracket" not in text and "colon" not in text


async def test_the_first_screen_says_how_to_reach_the_markers(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert app.main.current_turn().index == 1  # not itself marked
        assert "m: next marked" in str(app.main.query_one("#title").render())
        await pilot.press("m")
        assert app.main.current_turn().index == 2


async def test_the_legend_names_m_on_a_tall_screen(claims):
    app = make_app([claims])
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        legend = str(app.main.query_one("#legend", Static).render())
        assert "⊕ " in legend and "m / M next / previous marked turn" in legend


async def test_no_marker_hint_without_markers():
    from .fakecore import claims_session

    session = claims_session()
    for turn in session.turns:
        turn.markers = []
    session.conversations[0].markers = {}
    app = make_app(["claims.jsonl"], session_factory=lambda paths, options: session)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert "0 markers" in str(app.main.query_one("#title").render())
        assert "m: next" not in str(app.main.query_one("#title").render())


async def test_a_prompts_footer_keys_are_spaced_like_the_screens(claims):
    """At 120 columns the footer is not compact: a prompt's keys once stayed compact and ran
    together ("⏎ Writeesc Cancel", "⏎ Searchesc Cancel")."""
    from traceview.ui.widgets.footer import KeyFooter, key_width

    app = make_app([claims])
    async with app.run_test(size=(120, 30)) as pilot:
        await loaded(app, pilot)
        await pilot.press("slash")
        await pilot.pause()
        bar = app.screen.query_one(KeyFooter)
        keys = list(app.screen.query(FooterKey))
        assert [(k.key_display, k.description) for k in keys] == [("⏎", "Search"),
                                                                   ("esc", "Cancel")]
        for key in keys:
            assert key.compact is bar.compact is False
            assert key.region.width == key_width(key.key_display, key.description, False)
