"""A large capture in the inspector: the first rows are on screen while the rest is still
read."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from traceview.analysis import Options
from traceview.analysis.session import Batch, Session
from traceview.ui.app import make_app

from ..builders import conv_turn, write

TURNS = 300


def _large_capture(path: Path) -> Path:
    """300 turns of about 2.5 kB each (750 kB), in seven conversations."""
    records: list[dict[str, Any]] = []
    for n in range(TURNS):
        records += conv_turn(f"conv_{n % 7}", f"question {n} " + "x" * 2000, f"resp_{n}",
                             100 + n, 10)
    return write(path, records)


class HeldAfterFirstBatch(Session):
    """The real session, held after its first batch until the test lets it go on."""

    def __init__(self, paths: list[str], options: Any) -> None:
        super().__init__(paths, options)
        self.first_posted = threading.Event()
        self.release = threading.Event()

    def run(self) -> Iterator[Batch]:
        batches = super().run()
        yield next(batches)
        self.first_posted.set()  # the first batch's rows are posted before this resumes
        self.release.wait(60)
        yield from batches


async def test_the_first_rows_show_before_the_load_ends(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    path = str(_large_capture(tmp_path / "large.jsonl"))
    sessions: list[HeldAfterFirstBatch] = []

    def factory(paths: list[str], options: Any) -> HeldAfterFirstBatch:
        sessions.append(HeldAfterFirstBatch(paths, options or Options()))
        return sessions[-1]

    app = make_app([path], session_factory=factory)
    async with app.run_test(size=(160, 48)) as pilot:
        session = sessions[-1]
        try:
            assert await asyncio.to_thread(session.first_posted.wait, 60)
            await pilot.pause()
            # On screen: the first conversation's rows from the file's head, the load going on.
            assert not app.state.done and 0 < len(app.state.turns) < TURNS
            assert app.main.key == "conv_0" and [t.index for t in app.main.rows][:2] == [1, 8]
            assert app.main.table.cursor == 0
        finally:
            session.release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.state.done and len(app.state.turns) == TURNS
        assert len(app.main.rows) == len(range(0, TURNS, 7))
