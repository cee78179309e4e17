"""Under --follow the conversations' `carried` and `replay` columns are filled as the core
computes them (issue 32), not left at `—` because the hosted-state passes never ran."""

from __future__ import annotations

from pathlib import Path

from traceview.analysis.session import analyze
from traceview.ui.app import make_app
from traceview.ui.screens.lists import (
    CONVERSATION_COLUMNS,
    ConversationsScreen,
    _replay_cell,
    conversation_rows,
)

from .conftest import sample
from .test_follow import SIZE, Waiter


async def test_follow_fills_carried_and_replay_as_the_capture_grows(tmp_path):
    whole = analyze(sample("claims"))
    conv = whole.conversations[0]
    carried = conv.carried.tokens
    verdict = whole.fidelity.verdict(conv.key)
    whole.capture.close()
    assert carried == 8002 and verdict is not None
    lines = Path(sample("claims")).read_bytes().splitlines(keepends=True)
    capture = tmp_path / "grow.jsonl"
    capture.write_bytes(b"".join(lines[:6]))  # conversation create + turns 1 and 2
    waiter = Waiter()
    app = make_app([capture.as_posix()], follow=True)
    async with app.run_test(size=SIZE, message_hook=waiter.hook) as pilot:
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 2, "2 turns")
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ConversationsScreen)
        row = conversation_rows(app)[1]
        assert row.replay != "—"  # turns 1-2 already assessed, no deposit yet
        with capture.open("ab") as out:
            out.write(b"".join(lines[6:]))

        def filled() -> bool:
            row = conversation_rows(app)[1]
            return row.turns == 4 and row.carried == carried

        await waiter.until(filled, "the carried column of the grown conversation")
        await pilot.pause()
        row = conversation_rows(app)[1]
        cells = {c.title: str(c.cell(row)) for c in CONVERSATION_COLUMNS}
        assert cells["carried"] == "8,002" and cells["replay"] == _replay_cell(verdict)
