"""The objects screen's live check (`o`, `v`): `traceview objects --verify --live` on
screen — each checklist row asked of the simulator through the real SDK over loopback
(present, deleted, 404, 5xx, partial), in a worker the screen can cancel (esc), and the
command's dated sidecar written only when the user asks (`w`), never the capture (issue 35).
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import socket
from pathlib import Path
from typing import Any

import openai
import pytest

import traceview.sim as sim_mod
from tests.lineage.test_objects_checklist import _record_case
from traceview.ui.app import make_app
from traceview.ui.screens.objects import ObjectsScreen
from traceview.ui.widgets.row_table import RowTable

from .test_hosted_state_screens import _text

KEY = "sk-test-objects-live-0123456789"
CASE = "CS-88213"
SIZE = (140, 40)


@pytest.fixture
def case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """(capture, ids, sim) with the environment pointing the inspector at the simulator."""
    with sim_mod.SimServer(seed="objects-live", frozen_at=1_760_000_000) as sim:
        cap = tmp_path / "case.jsonl"
        ids = _record_case(cap, sim, api_key=KEY)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", sim.base_url)
        monkeypatch.chdir(tmp_path)
        yield cap, ids, sim


def _new_app(cap: Path):
    app = make_app([cap.name], screenshot_dir=cap.parent / "shots")
    app.diff_max_retries = 0
    app.diff_timeout = 10
    return app


def _rows(screen: ObjectsScreen) -> dict[str, dict[str, Any]]:
    return {o["id"]: o for o in screen.query_one("#checklist-table", RowTable).rows}


def _sidecars(cap: Path) -> list[Path]:
    return sorted(cap.parent.glob(f"{cap.name}.objects-verify-*.json"))


def _out_of_band_delete(sim: Any, what: str, oid: str) -> None:
    """Deleted through the SDK, not recorded: the capture still says it exists."""
    client = openai.OpenAI(api_key=KEY, base_url=sim.base_url, max_retries=0)
    try:
        getattr(client, what).delete(oid)
    except openai.NotFoundError:
        pass  # never there (the simulator's own policy file)


async def _check(app: Any, pilot: Any, case_id: str | None = CASE) -> ObjectsScreen:
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("o")
    if case_id:
        await pilot.press("f", *case_id, "enter")
    await pilot.press("v")
    await app.workers.wait_for_complete()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ObjectsScreen)
    return screen


async def test_v_asks_the_provider_row_by_row_and_w_writes_the_commands_sidecar(case):
    cap, ids, sim = case
    before = hashlib.sha256(cap.read_bytes()).hexdigest()
    _out_of_band_delete(sim, "responses", ids["r1"])  # exists in the capture, 404 now
    sim.inject(status=503, path="/v1/vector_stores/", times=1)
    app = _new_app(cap)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await _check(app, pilot)
        rows = _rows(screen)
        assert rows[ids["conv"]]["live"] == "present"
        assert rows[ids["r1"]]["live"] == "gone (404)"  # present in the capture
        assert rows[ids["r1"]]["state"] == "exists"
        assert rows[ids["r2"]]["live"] == "gone (404)"  # deleted in the capture too
        assert rows[ids["vs"]]["live"] == "error 503"
        title = _text(screen, "#objects-title")
        # The simulator never stored the policy file its searches cite: 404 too.
        assert rows["file-Hc7Pw2024SimPolicyWording1"]["live"] == "gone (404)"
        assert title.startswith("live: 3 gone, 1 present, 1 not answered — partial · "
                                "w writes the sidecar · deletion checklist · case CS-88213"), title
        # The error's reason beside the row.
        table = screen.query_one("#checklist-table", RowTable)
        table.move_to(table.rows.index(rows[ids["vs"]]))
        await pilot.pause()
        detail = " ".join(_text(screen, "#object-detail").split())
        assert "provider now: error 503 (HTTP 503): " in detail and "503" in detail
        assert _sidecars(cap) == []  # nothing written until asked

        await pilot.press("w")
        await pilot.pause()
        (sidecar,) = _sidecars(cap)
        doc = json.loads(sidecar.read_text())
        # As the command: the sidecar named beside the capture path as given.
        assert doc["sidecar"] == sidecar.name and doc["case"] == CASE
        assert doc["verify"]["schema"] == "traceview.objects-verify/1"
        assert doc["verify"]["counts"] == {"present": 1, "gone": 3, "error": 1}
        assert doc["verify"]["verdict"] == "partial"
        seen = {o["id"]: (o["capture_state"], o["live"], o["http_status"])
                for o in doc["verify"]["objects"]}
        assert seen[ids["r1"]] == ("exists", "gone", 404)
        assert seen[ids["vs"]] == ("exists", "error", 503)
        assert _text(screen, "#objects-title").startswith(
            "live: 3 gone, 1 present, 1 not answered — partial · written to "
            "case.jsonl.objects-verify-")
        await pilot.press("w")  # once
        await pilot.pause()
        assert any("already written" in n.message for n in app._notifications)
    assert _sidecars(cap) == [sidecar]
    assert hashlib.sha256(cap.read_bytes()).hexdigest() == before  # never the capture


async def test_every_object_gone_is_verified(case, capsys: pytest.CaptureFixture[str]):
    cap, ids, sim = case
    from traceview.cli import main

    main(["objects", str(cap), "--case", CASE, "--format", "json"])
    listed = json.loads(capsys.readouterr().out)["objects"]
    assert len(listed) == 5
    for o in listed:
        if o["state"] == "exists":
            _out_of_band_delete(sim, o["kind"] + "s", o["id"])
    app = _new_app(cap)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _check(app, pilot)
        assert {o["live"] for o in _rows(screen).values()} == {"gone (404)"}
        assert _text(screen, "#objects-title").startswith(
            "live: 5 gone, 0 present, 0 not answered — verified · w writes the sidecar")


async def test_esc_cancels_a_held_check_keeps_the_screen_live_and_writes_nothing(case):
    cap, ids, sim = case
    gate = sim.hold(times=1, path="/v1/responses/")  # the conversation answers, then a wait
    sim.log = io.StringIO()  # every request the simulator answers
    try:
        app = _new_app(cap)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("o", "f", *CASE, "enter", "v")
            assert await asyncio.to_thread(gate.arrived.wait, 10)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ObjectsScreen)
            title = _text(screen, "#objects-title")
            assert ": 1/5 answered (esc cancels)" in title, title
            rows = _rows(screen)
            assert rows[ids["conv"]]["live"] == "present"
            assert rows[ids["r1"]]["live"] == "asking…"
            await pilot.press("escape")  # cancels; does not leave
            await pilot.pause()
            assert app.screen is screen
            assert any("cancelled after 1 answer(s): nothing written" in n.message
                       for n in app._notifications)
            await pilot.press("j")  # the table still answers keys
            await pilot.pause()
            gate.set()
            await app.workers.wait_for_complete()
            await pilot.pause()
            rows = _rows(screen)
            assert rows[ids["r1"]]["live"] == "not checked"  # the late answer is dropped
            asked = [line.split()[1] for line in sim.log.getvalue().splitlines()
                     if line.startswith("GET ")]
            assert len(asked) == 2 and asked[0].startswith("/v1/conversations/")
            assert asked[1].startswith("/v1/responses/")  # and nothing after the cancel
            assert rows[ids["vs"]]["live"] == "not checked"
            assert "live check stopped: 1/5 answered, nothing written" in _text(
                screen, "#objects-title")
            await pilot.press("w")
            await pilot.pause()
            assert any("nothing to write" in n.message for n in app._notifications)
            await pilot.press("escape")  # now it goes back
            await pilot.pause()
            assert not isinstance(app.screen, ObjectsScreen)
    finally:
        gate.set()
    assert _sidecars(cap) == []


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("env", ["no key", "unreachable"])
async def test_no_key_or_no_provider_is_a_toast_and_nothing_written(
        case, env: str, monkeypatch: pytest.MonkeyPatch):
    cap, _ids, _sim = case
    if env == "no key":
        monkeypatch.delenv("OPENAI_API_KEY")
        said = "no API key: $OPENAI_API_KEY is not set"
    else:
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{_closed_port()}/v1")
        said = "cannot reach 127.0.0.1:"
    app = _new_app(cap)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await _check(app, pilot)
        errors = [n.message for n in app._notifications if n.severity == "error"]
        assert any(said in m and m.endswith("Nothing was written.") for m in errors), errors
        assert KEY not in " ".join(errors)
        assert {o["live"] for o in _rows(screen).values()} == {"not checked"}
        assert "nothing written" in _text(screen, "#objects-title")
        await pilot.press("w")
        await pilot.pause()
    assert _sidecars(cap) == []


async def _checked(pilot: Any) -> None:
    app = pilot.app
    await _check(app, pilot)
    app.clear_notifications()
    await pilot.pause()


def test_screen_after_a_live_check_snapshot_80x24(case, snap_compare) -> None:
    cap, ids, sim = case
    _out_of_band_delete(sim, "responses", ids["r1"])
    sim.inject(status=503, path="/v1/vector_stores/", times=1)
    assert snap_compare(_new_app(cap), terminal_size=(80, 24), run_before=_checked)
    assert os.path.exists(cap)


def test_help_lists_the_check_and_the_write_under_provider_objects() -> None:
    from traceview.ui.screens.help import help_text

    text = help_text().plain
    section = text[text.index("provider objects (o)"):]
    section = section[:section.index("\n\n")]
    assert "v             Check live" in section and "[objects.check]" in section
    assert "w             Write" in section and "[objects.write]" in section
    remapped = help_text({"objects.check": "V"}).plain
    assert "V             Check live" in remapped
