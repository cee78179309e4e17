"""Progressive loading: batches arrive as messages, the UI stays usable, bad input is told."""

from __future__ import annotations

import time

from textual.app import App
from textual.message import Message

from traceview.ui.app import make_app
from traceview.ui.loader import run_session
from traceview.ui.messages import LoadFinished, LoadProgress, ProblemsFound, TurnsLoaded
from traceview.ui.row_table import Column, RowTable

from .fakecore import FakeProblem, claims_session


def test_worker_posts_one_message_per_kind_of_news():
    posted: list[Message] = []
    session = claims_session(batch_size=1)
    session.problems = [FakeProblem("claims.jsonl", 9, "malformed_json", "not JSON")]
    run_session(session, posted.append, lambda: False)
    kinds = [type(m) for m in posted]
    assert kinds.count(TurnsLoaded) == 4 and kinds.count(LoadProgress) == 4
    assert kinds.count(ProblemsFound) == 1 and kinds[-1] is LoadFinished
    assert posted[-1].analysis is session.analysis and posted[-1].error is None


def test_progress_messages_coalesce():
    assert LoadProgress(1, 10, 1).can_replace(LoadProgress(2, 10, 2))
    assert not LoadProgress(1, 10, 1).can_replace(TurnsLoaded([]))


def test_a_failing_core_ends_the_load_with_a_message():
    class Broken:
        analysis = None

        def run(self):
            raise OSError("cannot open capture.jsonl: permission denied")
            yield

    posted: list[Message] = []
    run_session(Broken(), posted.append, lambda: False)
    assert isinstance(posted[-1], LoadFinished) and "permission denied" in posted[-1].error


def test_cancelled_worker_stops_posting():
    posted: list[Message] = []
    run_session(claims_session(batch_size=1), posted.append, lambda: True)
    assert posted == []


async def test_rows_arrive_in_batches_and_keys_work_meanwhile():
    seen = []
    app = make_app(["claims.jsonl"], session_factory=lambda p, o: claims_session(batch_size=1))
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        batches = [m for m in seen if isinstance(m, TurnsLoaded)]
        assert len({id(m) for m in batches}) == 4
        await pilot.press("j", "j", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.turn.index == 3


class BigTable(App[None]):
    def compose(self):
        yield RowTable([Column("#", 10, lambda r: f"{r:,}"), Column("x", 0, str, align="left")])


async def test_a_million_rows_render_without_measuring_them():
    app = BigTable()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(RowTable)
        started = time.perf_counter()
        table.set_rows(range(1_000_000))
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        elapsed = time.perf_counter() - started
        assert table.cursor == 999_999
        assert elapsed < 2.0, f"a million rows took {elapsed:.2f}s"
