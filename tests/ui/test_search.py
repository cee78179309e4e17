"""`/` finds a turn by anything the turn report holds, `n`/`N` step through the matches,
and `:` goes to a turn number, a line of the capture or an id — at 80x24."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from traceview.ui.app import make_app

SIZE = (80, 24)
RESP_3 = "resp_e1b2bab37b3c8f76623ed707c18de1a1fbf4238e7ca8a77e58"
FS_4 = "fs_8872a9799a74a4396708f2a7673ae856ad2cef453bcb47bc6d"


async def loaded(app, pilot):
    await app.workers.wait_for_complete()
    await pilot.pause()


def title(app) -> str:
    return str(app.main.query_one("#title").render())


async def enter(app, pilot, opener: str, text: str) -> None:
    """Open a prompt with `opener`, then type `text` key by key, or paste it when it is a
    whole id (as a terminal pastes: one event) -- each key typed is a search and a render,
    and typing is what the short queries check."""
    await pilot.press(opener)
    if len(text) > 24:
        app.focused.post_message(events.Paste(text))
        await pilot.pause()
    else:
        await pilot.press(*text)


# (query, turns it finds), each typed into one inspector from the top of the table
SEARCHES = [
    (RESP_3[:14], [3]),          # a response id (a prefix from a log line)
    ("conv_fb7345", [1, 2, 3, 4]),  # the conversation id
    (FS_4, [4]),                 # a hosted call's id
    ("req_00000000000000000000000000000003", [2]),  # x-request-id
    ("gpt-4.1", [1, 2, 3, 4]),   # the model
    ("file_search_call", [2, 4]),  # a hosted tool
    ("deposit", [3]),            # a marker
    ("excess", [3]),             # user text
]


async def test_slash_finds_ids_models_tools_markers_and_text(claims):
    """Each query from a fresh start (turn 1, no search): one inspector for all of them."""
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        main = app.main
        for query, expected in SEARCHES:
            await pilot.press("escape")  # the prompt closed, the last search cleared
            main.table.move_to(0)
            assert main.search_text == "" and main.current_turn().index == 1
            # no enter: the turn reports are searched (enter adds the bodies)
            await enter(app, pilot, "slash", query)
            await pilot.pause()
            assert [main.rows[h].index for h in main.hits] == expected, query
            assert len(main.rows) == 4, "search keeps every row (& filters)"
            assert main.current_turn().index == expected[0], query
            assert f"match 1 of {len(expected)}" in title(app), query


async def test_symbols_match_as_in_the_filter(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        for symbol, expected in (("⊕", [3]), ("✗", [2, 4])):
            app.main.apply_search(symbol)
            assert [app.main.rows[h].index for h in app.main.hits] == expected


async def test_n_and_shift_n_move_between_matches_and_wrap(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("slash", *"file_search_call", "enter")
        assert app.main.current_turn().index == 2
        await pilot.press("n")
        assert app.main.current_turn().index == 4
        assert "match 2 of 2" in title(app)
        await pilot.press("n")
        assert app.main.current_turn().index == 2
        await pilot.press("N")
        assert app.main.current_turn().index == 4
        await pilot.press("escape")
        assert app.main.search_text == "" and "match" not in title(app)


async def test_no_match_is_said_in_the_title(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("slash", *"zzz", "enter")
        assert "no match for /zzz" in title(app)


async def test_colon_goes_to_a_turn_an_id_or_a_line(claims):
    """One inspector, each target a move away from the turn the one before left."""
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        for typed, turn in [("3", 3), (FS_4, 4), (RESP_3, 3), ("L5", 2), ("line 11", 4),
                            ("l 8", 3)]:
            assert app.main.current_turn().index != turn
            await enter(app, pilot, "colon", typed)
            await pilot.press("enter")
            await pilot.pause()
            assert app.main.current_turn().index == turn, typed


async def test_colon_says_what_it_takes_when_nothing_is_found(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("colon", *"resp_nope", "enter")
        await pilot.pause()
        assert app.main.current_turn().index == 1
        assert any("L123" in n.message for n in app._notifications)


async def test_the_go_to_prompt_takes_text(claims):
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("colon")
        box = app.main.query_one("#goto", Input)
        assert box.has_focus and box.type == "text"


async def test_enter_also_searches_the_bodies_in_a_worker(claims):
    from traceview.ui.messages import BodyMatches

    seen = []
    app = make_app([claims])
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await loaded(app, pilot)
        # An output message's item id: only in the response body on disk.
        await pilot.press("slash", *"msg_2ed9894bd89a", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert any(isinstance(m, BodyMatches) and m.done for m in seen)
        main = app.main
        assert [main.rows[h].index for h in main.hits] == [3]
        assert main.current_turn().index == 3
        assert "match 1 of 1" in title(app) and "searching bodies" not in title(app)
        await pilot.press("escape")
        assert main.hits == [] and main.body_hits == set()


async def test_a_big_view_is_searched_in_the_worker_at_enter_not_while_typing():
    from .test_big_tables import big_session

    app = make_app(["big.jsonl"], session_factory=lambda paths, options: big_session())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("slash", *"question 2999")
        await pilot.pause()
        assert app.main.hits == []  # 3,000 rows: nothing searched on the event loop yet
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [app.main.rows[h].index for h in app.main.hits] == [2999]
        assert app.main.current_turn().index == 2999
        assert "match 1 of 1" in title(app)


async def test_enter_closes_the_search_line_and_the_search_stays_for_n(claims):
    """After enter the query line leaves the screen (the title keeps `/query` and the
    match count); n / N still step through the matches and esc still clears them."""
    app = make_app([claims])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await enter(app, pilot, "slash", "file_search")
        await pilot.press("enter")
        await loaded(app, pilot)
        box = app.main.query_one("#search", Input)
        assert not box.display and not box.has_class("visible")
        assert app.main.search_text == "file_search" and app.main.hits
        assert "/file_search" in title(app)
        first = app.main.table.cursor
        await pilot.press("n")
        assert app.main.table.cursor != first
        await pilot.press("escape")
        assert app.main.search_text == "" and not app.main.hits
        await pilot.press("slash")  # `/` opens the line again
        assert box.display and box.has_focus
