"""Tables that hold up at any size, at 80x24: `#` is never cut, a sort shows its top with
the cursor there, and →/← move by whole columns."""

from __future__ import annotations

from traceview.ui.app import make_app
from traceview.ui.widgets.row_table import RowTable

from .fakecore import FakeConversation, FakeSession, FakeTurn

SIZE = (80, 24)
N = 3_000


def big_session() -> FakeSession:
    turns = [FakeTurn(i, 2 * i, f"question {i}", 300 + i, 1000 + 7 * (i % 911), None,
                      output_tokens=1_210 + i, elapsed_ms=2000 + i)
             for i in range(1, N + 1)]
    conv = FakeConversation("conv_big", "conv_big", "conversation", list(range(1, N + 1)),
                            None, None, None, {})
    for t in turns:
        t.conversation_key = t.conversation = "conv_big"
    return FakeSession(turns, [conv], batch_size=1000)


async def loaded(app, pilot):
    await app.workers.wait_for_complete()
    await pilot.pause()


def lines(app) -> list[str]:
    table = app.main.query_one("#turns", RowTable)
    return [table.render_line(y).text for y in range(table.size.height)]


async def test_four_digit_turn_numbers_are_never_cut():
    app = make_app(["big.jsonl"], session_factory=lambda paths, options: big_session())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("end")
        await pilot.pause()
        shown = lines(app)
        assert any(line.split()[0] == "3,000" for line in shown if line.strip())
        assert not any("…" in line.split()[0] for line in shown if line.strip())


async def test_sort_shows_the_top_with_the_cursor_on_it():
    app = make_app(["big.jsonl"], session_factory=lambda paths, options: big_session())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("colon", *"1500", "enter")
        await pilot.pause()
        assert app.main.current_turn().index == 1500
        await pilot.press("S")
        await pilot.pause()
        table = app.main.query_one("#turns", RowTable)
        assert table.cursor == 0 and table.scroll_offset.y == 0
        top = app.main.rows[0]
        assert app.main.current_turn() is top
        assert top.input_tokens == max(t.input_tokens for t in app.main.rows)


async def test_right_and_left_move_by_whole_columns_never_cutting_a_number():
    app = make_app(["big.jsonl"], session_factory=lambda paths, options: big_session())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        table = app.main.query_one("#turns", RowTable)
        width = table.size.width
        pin = table.pinned_width(width)
        starts = table._column_starts(width)
        seen = []
        for _ in range(len(starts) + 2):
            await pilot.press("right")
            await pilot.pause()
            seen.append(int(table.scroll_offset.x))
        assert seen[-1] > 0
        assert all(x in starts for x in seen)
        # The column right after the pinned `#` starts whole: no digit cut at its left.
        row = lines(app)[0]
        assert row[pin - 1] == " " and row[pin] != "," and not row[pin:].startswith("d ")
        for _ in range(len(starts) + 2):
            await pilot.press("left")
        await pilot.pause()
        assert table.scroll_offset.x == 0
