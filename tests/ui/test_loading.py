"""Progressive loading: batches arrive as messages, the UI stays usable, bad input is told."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path

import pytest
from textual.app import App
from textual.message import Message

from traceview.analysis import Options
from traceview.analysis.session import Session, analyze
from traceview.ui.app import make_app
from traceview.ui.loader import MAX_TURNS_PER_MESSAGE, run_session
from traceview.ui.messages import LoadFinished, LoadProgress, ProblemsFound, TurnsLoaded
from traceview.ui.state import ALL
from traceview.ui.tuning import LOAD_NICE
from traceview.ui.widgets.row_table import Column, RowTable

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
        table.set_rows(range(1_000_000))
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor == 999_999


REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


class GatedSession:
    """The real core's Session, paused after the first batch that brings turns until the
    test has looked at the screen: rows must be there while the rest of the file is unread.
    """

    def __init__(self, session: Session) -> None:
        self.session = session
        self.paused = threading.Event()
        self.proceed = threading.Event()
        self.batches: list[tuple[int, bool]] = []  # (turns, done) as the core yielded them

    def __getattr__(self, name: str) -> object:
        return getattr(self.session, name)

    def run(self):
        for batch in self.session.run():
            self.batches.append((len(batch.turns), batch.progress.done))
            yield batch
            if batch.turns and not batch.progress.done and not self.paused.is_set():
                self.paused.set()
                # Released by the test; the timeout only ends a failing test instead of
                # hanging it.
                self.proceed.wait(timeout=60)


@pytest.mark.parametrize("name", ["chatlas_tool_variations_stream_11turns",
                                  "openllmetry_agents_recipe_hierarchy_stream"])
async def test_a_real_capture_shows_rows_before_it_is_read_and_ends_equal_to_the_report(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    path = str(REAL / f"{name}.jsonl")
    want = analyze(path)
    assert len(want.turns) > 3
    gated: list[GatedSession] = []

    def factory(paths: list[str], options: object) -> GatedSession:
        # One line between looks at the clock, no wait between batches: a 22-line capture
        # arrives in many batches, through the real reader, pairing and analyzer.
        gated.append(GatedSession(Session(paths, Options(), interval=0, first_interval=0,
                                          step_lines=1)))
        return gated[0]

    app = make_app([path], session_factory=factory)
    async with app.run_test(size=(140, 40)) as pilot:
        gate = gated[0]
        try:
            for _ in range(500):  # bounded: each pause waits for the app to go idle
                if app.main.rows or app.state.done:
                    break
                await pilot.pause()
            # Rows on screen, the core paused mid-file, the load not finished. The gate closes
            # when the loader asks for the batch after the one on screen, which can come after
            # the rows are drawn: waited for (bounded), not assumed.
            assert await asyncio.to_thread(gate.paused.wait, 30) and not app.state.done
            assert not gate.session.analysis.complete
            shown = len(app.state.turns)
            assert 0 < shown < len(want.turns)
            assert app.main.rows and app.main.table.current() is not None
            assert "loading" in str(app.main.query_one("#title").render())
        finally:
            gate.proceed.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.state.done and app.state.error is None
        assert sum(n for n, _ in gate.batches) == len(want.turns)
        assert len([n for n, done in gate.batches if n and not done]) > 1
        # The rows the inspector holds are the headless report's, number for number.
        got = sorted(app.state.turns, key=lambda t: t.index)
        assert [t.to_dict() for t in got] == [t.to_dict() for t in want.turns]
        assert app.state.analysis.totals == want.totals
        assert ({k: c.to_dict() for k, c in app.state.conversations.items()}
                == {str(c.key): c.to_dict() for c in want.conversations})
        app.main.show_conversation(ALL)
        await pilot.pause()
        assert [t.index for t in app.main.rows] == [t.index for t in want.turns]
        assert "loading" not in str(app.main.query_one("#title").render())


def test_a_big_batch_reaches_the_app_in_bounded_messages():
    """However many turns the core finished at once, no TurnsLoaded handler files more
    than MAX_TURNS_PER_MESSAGE of them (it runs on the event loop)."""
    from types import SimpleNamespace

    many = list(range(2 * MAX_TURNS_PER_MESSAGE + 7))
    session = SimpleNamespace(analysis=None, run=lambda: iter([
        SimpleNamespace(turns=many, problems=[], progress=None)]))
    posted: list[Message] = []
    run_session(session, posted.append, lambda: False)
    loaded = [m for m in posted if isinstance(m, TurnsLoaded)]
    assert [len(m.turns) for m in loaded] == [MAX_TURNS_PER_MESSAGE, MAX_TURNS_PER_MESSAGE, 7]
    assert [t for m in loaded for t in m.turns] == many


async def test_no_full_garbage_collection_while_the_inspector_loads_a_capture():
    """A full collection walks every live object holding the GIL (over a second on 1 GB),
    freezing the event loop; the inspector's load turns them off and shortens the GIL
    switch interval until it ends, then restores both."""
    import gc

    before = gc.get_threshold(), sys.getswitchinterval()
    during: list[tuple[int, float]] = []

    class Watched(Session):
        def run(self):
            for batch in super().run():
                during.append((gc.get_threshold()[2], sys.getswitchinterval()))
                yield batch

    path = str(REAL / "chatlas_tool_variations_stream_11turns.jsonl")
    app = make_app([path], session_factory=lambda p, o: Watched(
        p, Options(), interval=0, first_interval=0, step_lines=1))
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert app.state.done and len(during) > 1
    assert min(t for t, _ in during) >= 1 << 30 and max(s for _, s in during) <= 0.001
    assert (gc.get_threshold(), sys.getswitchinterval()) == before


def test_a_session_leaves_the_collector_as_it_found_it():
    """The analysis is a library: it changes no garbage-collector setting (the inspector's
    loader turns full collections off around the sessions it drives, below)."""
    import gc

    before = (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled())
    session = Session(str(REAL / "chatlas_tool_variations_stream_11turns.jsonl"), Options(),
                      interval=0, first_interval=0, step_lines=1)
    during = [gc.get_threshold() for _ in session.run()]
    assert len(during) > 1 and set(during) == {before[0]}
    assert (gc.get_threshold(), gc.isenabled()) == (before[0], before[2])
    # Nothing frozen: the count may only fall (objects an earlier test froze can die since).
    assert gc.get_freeze_count() <= before[1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
async def test_after_the_first_rows_the_load_yields_the_cpu_to_the_event_loop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On two busy cores the event loop waits for a core as much as for the GIL: the
    load's thread runs at a lower priority once the first rows are out (not before: they
    should come as fast as they can)."""
    monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    monkeypatch.delenv("TRACEVIEW_LOAD_NICE", raising=False)
    niceness: list[int] = []

    class Watched(Session):
        def run(self):
            for batch in super().run():
                niceness.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
                yield batch

    path = str(REAL / "chatlas_tool_variations_stream_11turns.jsonl")
    app = make_app([path], session_factory=lambda p, o: Watched(
        p, Options(), interval=0, first_interval=0, step_lines=1))
    main = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert app.state.done and len(niceness) > 2
    assert niceness[0] == main
    assert niceness[-1] == min(19, main + LOAD_NICE)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main


async def test_any_session_the_inspector_loads_runs_without_full_collections():
    """A followed capture's session has its own run(): the inspector turns full
    collections off around whichever session it drives."""
    import gc
    from types import SimpleNamespace

    before = gc.get_threshold()
    seen: list[int] = []

    def run():
        seen.append(gc.get_threshold()[2])
        yield SimpleNamespace(turns=[], problems=[], progress=None)

    app = make_app(["any.jsonl"], session_factory=lambda p, o: SimpleNamespace(
        analysis=None, run=run, capture=None))
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert seen and seen[0] >= 1 << 30
    assert gc.get_threshold() == before
