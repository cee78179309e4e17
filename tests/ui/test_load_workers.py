"""The inspector loads through worker processes too (issue #11): spawned from its loading
thread (capture/children.py), under Textual, whose stderr has no file descriptor for them
to inherit."""

from __future__ import annotations

import pytest

from traceview.analysis.session import analyze
from traceview.ui.app import make_app

from .conftest import sample


@pytest.mark.parametrize("name", ["service_day", "damaged"])
async def test_inspector_loads_with_workers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    want = analyze(sample(name))
    monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "4000")
    app = make_app([sample(name)])
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.state.error is None
        got = app.state.analysis
        assert [t.to_dict() for t in got.turns] == [t.to_dict() for t in want.turns]
        assert [p.to_dict() for p in got.problems] == [p.to_dict() for p in want.problems]
        assert len(app.main.rows) > 0
