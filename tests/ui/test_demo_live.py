"""`d` without a network: the claims sample's shipped snapshot; and `traceview demo`,
whose simulator stays up while the inspector is open so `d` fetches a live copy."""

from __future__ import annotations

import asyncio

from traceview.commands import demo
from traceview.ui.app import make_app
from traceview.ui.screens.diff import DiffScreen

from .conftest import sample


async def open_diff(app, pilot) -> DiffScreen:
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("j", "j", "d")
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    assert isinstance(app.screen, DiffScreen)
    return app.screen


def status(screen: DiffScreen) -> str:
    return str(screen.query_one("#diff-status").render())


async def test_d_on_the_claims_sample_uses_its_saved_snapshot_offline(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens
    app = make_app([sample("claims")])
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_diff(app, pilot)
        said = status(screen)
        assert said.startswith("complete") and "from a snapshot" in said
        assert "2026-01-01T00:00:10Z" in said
        assert any(r.kind != "same" for r in screen.rows)


def test_demo_keeps_the_simulator_up_while_the_inspector_is_open(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    seen: dict[str, str] = {}

    def inspector(paths, *args, **kwargs):  # the inspector, driven headless
        async def drive() -> None:
            app = make_app(paths)
            app.diff_max_retries = 0
            async with app.run_test(size=(120, 36)) as pilot:
                screen = await open_diff(app, pilot)
                seen["status"] = status(screen)
        asyncio.run(drive())
        return 0

    monkeypatch.setattr("traceview.ui.app.run_inspector", inspector)
    assert demo.record_and_inspect(tmp_path / "demo.jsonl") == 0
    assert seen["status"].startswith("complete") and "fetched live" in seen["status"]
