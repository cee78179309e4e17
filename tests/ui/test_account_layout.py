"""The selected turn's account is laid out to its full height on every key.

A key redraws the account without laying the screen out again when the account keeps its
height (the layout pass was most of a key's cost while a large capture loads); when the
height changes, the screen is laid out again, so no line of the account is cut off or left
over from the turn before.
"""

from __future__ import annotations

from textual.widgets import Static

from traceview.ui.app import make_app

from .fakecore import claims_session


async def test_every_turns_account_gets_its_own_height() -> None:
    app = make_app(["claims.jsonl"], session_factory=lambda p, o: claims_session())
    async with app.run_test(size=(120, 48)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        summary = app.main.query_one("#summary-text", Static)
        heights = []
        for _ in range(4):
            await pilot.pause()
            width = summary.content_size.width
            want = summary.get_content_height(summary.parent.size, app.main.size, width)
            assert summary.content_size.height == want
            heights.append(want)
            await pilot.press("j")
        await pilot.press("k", "k")
        await pilot.pause()
        assert summary.content_size.height == heights[1]
        # The turns' accounts are not all of one height: the test moves across changes.
        assert len(set(heights)) > 1
