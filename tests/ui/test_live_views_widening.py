"""The inspector holds the views of every batch while the loader appends rows and widens
narrow columns (issue #11): once loaded, the rows it shows are the headless report's, and
a turn whose counts crossed 4 bytes opens and steps without error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile import widening_capture
from traceview.analysis import Options
from traceview.analysis.session import Session, analyze
from traceview.ui.app import make_app
from traceview.ui.state import ALL


@pytest.mark.parametrize("workers", ["1", "2"])
async def test_views_held_across_widenings_end_equal_to_the_report(
        tmp_path: Path, workers: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(widening_capture.write(tmp_path / "edges.jsonl"))
    want = analyze(path)
    monkeypatch.setenv("TRACEVIEW_WORKERS", workers)
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "8000")

    def factory(paths: list[str], options: object) -> Session:
        return Session(paths, Options(), interval=0, first_interval=0, step_lines=1)

    app = make_app([path], session_factory=factory)
    async with app.run_test(size=(140, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.state.error is None and app.state.done
        got = sorted(app.state.turns, key=lambda t: t.index)
        assert [t.to_dict() for t in got] == [t.to_dict() for t in want.turns]
        app.main.show_conversation(ALL)
        await pilot.pause()
        # The turn billed 2**32 input tokens: open it, step to the next, back.
        at = next(i for i, t in enumerate(app.main.rows) if t.input_tokens == 2**32)
        app.main.table.move_to(at)
        await pilot.pause()
        assert app.main.current_turn().input_tokens == 2**32
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("]")
        await pilot.pause()
        assert app.screen.turn.index == app.main.rows[at + 1].index
        await pilot.press("escape")
        await pilot.pause()
