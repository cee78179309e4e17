"""The diff view (`d`): live against the simulator, offline from --items, failures, keys.

The live tests record a claims conversation through the recorder into a SimServer without
include flags, exactly as an application would, then press `d` in the inspector with
OPENAI_BASE_URL/OPENAI_API_KEY pointed at the simulator. Nothing sleeps: tests wait on the
diff worker (``workers.wait_for_complete``) or on the simulator's gate events.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
from pathlib import Path

import pytest
from textual.widgets import Static

import traceview.sim as sim_mod  # noqa: E402
from traceview.cli import main as provider_main
from traceview.provider.snapshot import load_items
from traceview.ui.app import make_app
from traceview.ui.messages import DiffReady
from traceview.ui.screens.diff import DiffBodiesScreen, DiffScreen
from traceview.ui.screens.help import help_text
from traceview.ui.screens.main import MainScreen

from .fixtures.make_diff_fixtures import SEED, record_claims

SIZE = (140, 40)
KEY = "sk-test-ui-diff-0123456789"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CAPTURE = FIXTURES / "diff_capture.jsonl"
SNAPSHOT = FIXTURES / "diff_snapshot.json"
PARTIAL = FIXTURES / "diff_snapshot_partial.json"


@pytest.fixture(scope="module")
def sim():
    with sim_mod.SimServer(seed=SEED + "-live") as server:
        yield server


@pytest.fixture(scope="module")
def recorded(sim, tmp_path_factory) -> Path:
    """A capture recorded through the recorder, no include flags (results come back null)."""
    capture = tmp_path_factory.mktemp("diff") / "claims-recorded.jsonl"
    record_claims(capture, sim.base_url)
    return capture


@pytest.fixture
def live_env(sim, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", sim.base_url)
    return sim


@pytest.fixture
def offline_env(monkeypatch: pytest.MonkeyPatch):
    """No key, and a base URL nobody listens on: any network use would fail loudly."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{closed_port()}/v1")


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def open_diff(app, pilot) -> DiffScreen:
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("d")
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    assert isinstance(app.screen, DiffScreen)
    return app.screen


def new_app(capture: Path, tmp_path: Path, items: Path | None = None):
    app = make_app([str(capture)], screenshot_dir=tmp_path / "snapshots")
    app.items_path = str(items) if items else None
    app.diff_max_retries = 0
    app.diff_timeout = 10
    return app


# -- live, against the simulator -------------------------------------------------------------


async def test_d_fetches_and_matches_traceview_diff_json(
    recorded, live_env, tmp_path, capsys
):
    seen: list = []
    app = new_app(recorded, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_diff(app, pilot)
        assert any(isinstance(m, DiffReady) for m in seen)
        result = screen.outcome.result
        status = text_of(screen, "#diff-status")
        assert status.startswith("complete") and "fetched live" in status
        assert not screen.query_one("#diff-banner").has_class("visible")
        different = [r for r in result.rows if r.kind != "same"]
        assert different and {r.item_type for r in different} == {"file_search_call"}
        assert {r.kind for r in different} <= {"changed", "provider_only"}
        # the cursor starts on the first difference, and the rows are on screen
        assert screen.table.current() is different[0]
        summary = text_of(screen, "#diff-summary")
        assert "file-search results" in summary and "~ changed 1" in summary
    code = provider_main(["diff", str(recorded), "--live", "--base-url", live_env.base_url,
                          "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["complete"] is True
    assert doc["counts"] == result.counts
    assert [(r["kind"], r["turn"], r["type"]) for r in doc["rows"]] == [
        (r.kind, r.turn, r.item_type) for r in result.rows
    ]


async def test_w_saves_a_snapshot_without_the_key_and_s_exports_svg(
    recorded, live_env, tmp_path
):
    app = new_app(recorded, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(app, pilot)
        await pilot.press("w")
        await pilot.press("s")
        await pilot.pause()
        target = screen.target
    saved = list((tmp_path / "snapshots").glob("*-snapshot.json"))
    assert [p.name for p in saved] == [f"claims-recorded-{target}-snapshot.json"]
    text = saved[0].read_text(encoding="utf-8")
    assert KEY not in text and "Authorization" not in text
    copy = load_items(saved[0])
    assert copy.complete and copy.conversation == target and copy.item_count == 7
    shots = list((tmp_path / "snapshots").glob("*.svg"))  # one output rule for s and w
    # the view and conversation, then a timestamp: `s` never overwrites
    assert [p.name.rsplit("-", 1)[0] for p in shots] == [f"claims-recorded-diff-{target}"]
    svg = shots[0].read_text(encoding="utf-8")
    assert "complete" in svg and "file_search_call" in svg and KEY not in svg


async def test_failing_fetch_says_failed_and_never_complete(recorded, live_env, tmp_path):
    live_env.inject(status=500, times=1)  # max_retries=0: exactly one request
    app = new_app(recorded, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(app, pilot)
        banner = screen.query_one("#diff-banner", Static)
        assert banner.has_class("visible") and banner.has_class("-failed")
        said = str(banner.render())
        assert said.startswith("FAILED") and "server_error" in said and "HTTP 500" in said
        status = text_of(screen, "#diff-status")
        assert "FAILED" in status and "complete" not in status
        assert screen.rows == []
        await pilot.press("w")  # nothing to save: says so, writes nothing
        await pilot.pause()
        assert not (tmp_path / "snapshots").exists()
        # r fetches again; the fault is used up, so this time it works
        await pilot.press("r")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.outcome.result is not None and screen.outcome.result.complete
        assert not screen.query_one("#diff-banner").has_class("visible")


async def test_unreachable_provider_is_a_network_failure(recorded, offline_env, monkeypatch,
                                                         tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    app = new_app(recorded, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(app, pilot)
        said = text_of(screen, "#diff-banner")
        assert said.startswith("FAILED") and "network" in said and "cannot reach" in said
        assert KEY not in said


async def test_escape_cancels_a_held_fetch_and_the_app_stays_live(recorded, live_env, tmp_path):
    gate = live_env.hold(times=1)
    seen: list = []
    app = new_app(recorded, tmp_path)
    try:
        async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("d")
            assert await asyncio.to_thread(gate.arrived.wait, 10)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, DiffScreen) and screen.fetching
            assert screen.query_one("#diff-fetching").has_class("visible")
            assert "esc to cancel" in text_of(screen, "#diff-fetching-text")
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, MainScreen)
            await pilot.press("j")  # the turns table still answers keys
            await pilot.pause()
            assert app.main.current_turn().index == 2
            gate.set()
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert not any(isinstance(m, DiffReady) for m in seen)
            assert isinstance(app.screen, MainScreen)
    finally:
        gate.set()


# -- offline, from --items ----------------------------------------------------------------------


async def test_items_file_diffs_offline_without_network(offline_env, tmp_path):
    capture = tmp_path / "claims.jsonl"
    shutil.copy(CAPTURE, capture)
    app = new_app(capture, tmp_path, items=SNAPSHOT)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(app, pilot)
        assert screen.outcome.error is None
        status = text_of(screen, "#diff-status")
        assert status.startswith("complete") and "from a snapshot" in status
        assert screen.outcome.result.counts == {"same": 6, "changed": 1, "provider_only": 0,
                                                "capture_only": 0}


async def test_n_shift_n_move_between_differences_and_enter_shows_both_bodies(
    offline_env, tmp_path
):
    app = new_app(CAPTURE, tmp_path, items=PARTIAL)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(app, pilot)
        kinds = [r.kind for r in screen.rows]
        differing = [i for i, k in enumerate(kinds) if k != "same"]
        assert len(differing) >= 2 and "same" in kinds
        assert screen.table.cursor == differing[0]
        await pilot.press("n")
        assert screen.table.cursor == differing[1]
        await pilot.press("N")
        assert screen.table.cursor == differing[0]
        await pilot.press("N")  # nothing above: stays, says so
        assert screen.table.cursor == differing[0]
        await pilot.press("home", "n")
        assert screen.table.cursor == differing[0]
        await pilot.press("enter")
        await pilot.pause()
        bodies = app.screen
        assert isinstance(bodies, DiffBodiesScreen)
        row = screen.rows[differing[0]]
        left = str(bodies.query_one("#diff-capture-body Static", Static).render())
        right = str(bodies.query_one("#diff-provider-body Static", Static).render())
        assert left.startswith("── capture") and right.startswith("── provider")
        assert row.item_type in left + right
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("q")  # q leaves the diff, it does not quit the app
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


async def test_partial_snapshot_shows_the_partial_banner(offline_env, tmp_path):
    app = new_app(CAPTURE, tmp_path, items=PARTIAL)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(app, pilot)
        banner = screen.query_one("#diff-banner", Static)
        said = str(banner.render())
        assert banner.has_class("visible") and not banner.has_class("-failed")
        assert said.startswith("PARTIAL — 1 page read, stopped: server_error:")
        assert "not the whole conversation" in said
        status = text_of(screen, "#diff-status")
        assert status.startswith("PARTIAL") and "complete" not in status


async def test_items_file_of_another_conversation_is_a_clear_failure(
    offline_env, recorded, tmp_path
):
    app = new_app(recorded, tmp_path, items=SNAPSHOT)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(app, pilot)
        said = text_of(screen, "#diff-banner")
        assert said.startswith("FAILED") and "snapshot" in said and "not conv_" in said


async def test_stateless_capture_says_there_is_no_provider_copy(offline_env, tmp_path):
    from .conftest import sample

    app = new_app(Path(sample("claims_owned_state")), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(app, pilot)
        said = text_of(screen, "#diff-banner")
        assert said.startswith("FAILED") and "no conversation" in said


async def test_d_is_in_help_footer_and_palette(offline_env, tmp_path):
    help_ = str(help_text())
    for needle in ("diff vs provider (d)", "app.diff", "diff.next", "diff.previous", "diff.save",
                   "diff.back", "+P", "-C"):
        assert needle in help_
    app = new_app(CAPTURE, tmp_path, items=SNAPSHOT)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "diff: provider copy vs capture" in titles
        screen = await open_diff(app, pilot)
        titles = [c.title for c in app.get_system_commands(screen)]
        for title in ("diff: next difference", "diff: previous difference",
                      "diff: show both bodies", "diff: save snapshot", "diff: back"):
            assert title in titles
        assert "diff: provider copy vs capture" not in titles
        await pilot.press("d")  # d inside the diff does not stack another diff
        await pilot.pause()
        assert app.screen is screen


# -- SVG snapshots, offline and deterministic --------------------------------------------------


def diff_then(*keys: str):
    async def run_before(pilot) -> None:
        await open_diff(pilot.app, pilot)
        if keys:
            await pilot.press(*keys)
            await pilot.pause()

    return run_before


@pytest.mark.parametrize(
    ("items", "keys"),
    [("diff_snapshot.json", ()), ("diff_snapshot_partial.json", ("n",)),
     ("diff_snapshot.json", ("enter",))],
    ids=["complete", "partial", "bodies"],
)
def test_diff_view_snapshot(snap_compare, offline_env, items, keys):
    app = make_app([str(CAPTURE)])
    app.items_path = str(FIXTURES / items)
    assert snap_compare(app, terminal_size=SIZE, run_before=diff_then(*keys))


# -- headless export and untrusted text ----------------------------------------------------------


async def test_screenshot_view_diff_uses_items_offline(offline_env):
    from traceview.ui.screenshot import render_svg

    svg, warning = await render_svg([str(CAPTURE)], "diff", size=SIZE, items=str(SNAPSHOT))
    assert warning is None
    assert "complete" in svg and "file_search_call" in svg and "changed" in svg


def test_screenshot_command_rejects_a_missing_items_file(tmp_path, capsys):
    import argparse

    from traceview.commands import screenshot

    parser = argparse.ArgumentParser()
    screenshot.add_arguments(parser)
    ns = parser.parse_args([str(CAPTURE), "-o", str(tmp_path / "d.svg"), "--view", "diff",
                            "--items", str(tmp_path / "nope.json")])
    assert screenshot.run(ns) == 2
    assert "nope.json" in capsys.readouterr().err
    assert not (tmp_path / "d.svg").exists()


def test_item_bodies_are_redacted_and_literal():
    from traceview.ui.widgets.diff_table import body_text, item_summary

    item = {"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "[bold red]key sk-abcdefghijklmnop\x1b[2J"}],
            "api_key": "hunter2-secret"}
    body = body_text("capture", item, "absent").plain
    assert "sk-abcdefghijklmnop" not in body and "hunter2" not in body
    assert "[redacted]" in body and "\x1b" not in body
    summary = item_summary(item, "absent")
    assert "[bold red]" in summary.plain and not summary.spans and "\x1b" not in summary.plain
    assert "sk-abcdefghijklmnop" not in summary.plain
    assert body_text("provider", None, "not at the provider").plain.count("not at the provider")
