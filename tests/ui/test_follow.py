"""Follow mode: a capture being written shows its new turns while the app runs.

The writer is a real application path: the openai SDK recording through
``traceview.record`` against the loopback simulator, in a thread. Tests wait for the
app's own messages (TurnsLoaded, FollowUpdated), never for time to pass.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

import traceview.record
from traceview.analysis.follow import FollowSession
from traceview.sim import SimServer
from traceview.sim.scenario import run_claims
from traceview.ui.app import make_app
from traceview.ui.follow import FollowUpdated
from traceview.ui.messages import LoadFinished, TurnsLoaded

from .conftest import sample

SIZE = (120, 36)


class Waiter:
    """Collects the app's messages; ``until(pred)`` resumes when one makes pred true."""

    def __init__(self) -> None:
        self.messages: list[object] = []
        self.changed = asyncio.Event()

    def hook(self, message: object) -> None:
        self.messages.append(message)
        self.changed.set()

    async def until(self, predicate, what: str, timeout: float = 20.0) -> None:
        async def wait() -> None:
            while not predicate():
                self.changed.clear()
                await self.changed.wait()
        try:
            await asyncio.wait_for(wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"timed out waiting for {what}") from None


@pytest.fixture
def sim():
    with SimServer() as server:
        yield server


def followed(path: Path, content: bytes = b"") -> tuple[Path, Waiter, object]:
    """A capture of `content` at `path`, and an app following it with a Waiter's hook."""
    path.write_bytes(content)
    return path, Waiter(), make_app([str(path)], follow=True)


async def test_follow_shows_turns_the_recorder_writes_while_the_app_runs(sim, tmp_path):
    capture, waiter, app = followed(tmp_path / "live.jsonl")
    async with app.run_test(size=SIZE, message_hook=waiter.hook) as pilot:
        await waiter.until(lambda: app.state.done, "the first (empty) load")
        assert "following" in str(app.main.query_one("#title").render())
        errors: list[BaseException] = []

        def write() -> None:
            try:
                client = traceview.record.client(capture, base_url=sim.base_url,
                                                 api_key="sk-follow-000000000000", max_retries=0)
                run_claims(client, include=False, stream=False)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the test
                errors.append(exc)

        writer = threading.Thread(target=write, name="recorder")
        writer.start()
        await waiter.until(lambda: len(app.state.turns) >= 4 or errors, "4 recorded turns")
        writer.join(timeout=20)
        assert not errors
        await waiter.until(lambda: any(isinstance(m, FollowUpdated) for m in waiter.messages),
                           "the refreshed totals")
        await pilot.pause()
        assert [t.index for t in app.main.rows] == [1, 2, 3, 4]
        assert [t.input_tokens for t in app.main.rows][:3] == [1210, 1690, 6110]
        assert "deposit" in app.main.rows[2].markers  # analysed incrementally, in order
        assert app.state.problems == []  # no partial line became a problem
        assert sum(isinstance(m, LoadFinished) for m in waiter.messages) == 1  # never re-read
        assert "markers" in str(app.main.query_one("#title").render())


async def test_selection_stays_unless_on_the_last_row(tmp_path):
    lines = Path(sample("claims")).read_bytes().splitlines(keepends=True)
    capture = tmp_path / "grow.jsonl"
    capture.write_bytes(b"".join(lines[:6]))  # conversation create + turns 1 and 2
    waiter = Waiter()
    app = make_app([str(capture)], follow=True)
    async with app.run_test(size=SIZE, message_hook=waiter.hook) as pilot:
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 2, "2 turns")
        await pilot.press("home")  # on turn 1, not the last row
        with capture.open("ab") as out:
            out.write(b"".join(lines[6:8]))
        await waiter.until(lambda: len(app.main.rows) == 3, "turn 3 appended")
        await pilot.pause()
        assert app.main.current_turn().index == 1  # stayed put
        await pilot.press("end")  # on the last row: follows the newest turn
        with capture.open("ab") as out:
            out.write(b"".join(lines[8:]))
        await waiter.until(lambda: len(app.main.rows) == 4, "turn 4 appended")
        await pilot.pause()
        assert app.main.current_turn().index == 4


def test_a_partial_last_line_waits_for_its_newline(tmp_path):
    lines = Path(sample("claims")).read_bytes().splitlines(keepends=True)
    capture = tmp_path / "partial.jsonl"
    capture.write_bytes(b"".join(lines[:4]) + lines[4][:25])
    session = FollowSession([str(capture)])
    first = list(session.run())
    assert [t.index for b in first for t in b.turns] == [1]
    assert session.capture.problems == [] and session.poll() is None
    with capture.open("ab") as out:
        out.write(lines[4][25:] + lines[5])
    batch = session.poll()
    assert batch is not None and [t.index for t in batch.turns] == [2]
    assert batch.problems == [] and session.capture.problems == []
    assert session.analysis.turns[1].input_tokens == 1690


def test_a_replaced_file_is_noticed_not_tailed(tmp_path):
    lines = Path(sample("claims")).read_bytes().splitlines(keepends=True)
    capture = tmp_path / "rotated.jsonl"
    capture.write_bytes(b"".join(lines[:6]))
    session = FollowSession([str(capture)])
    list(session.run())
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(lines[2] + lines[3])
    replacement.replace(capture)
    assert session.poll() is None and session.replaced


async def test_capital_r_reloads_a_replaced_file(tmp_path):
    lines = Path(sample("claims")).read_bytes().splitlines(keepends=True)
    capture = tmp_path / "rotated.jsonl"
    capture.write_bytes(b"".join(lines[:6]))
    waiter = Waiter()
    app = make_app([str(capture)], follow=True)
    async with app.run_test(size=SIZE, message_hook=waiter.hook) as pilot:
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 2, "2 turns")
        replacement = tmp_path / "new.jsonl"
        replacement.write_bytes(b"".join(lines))
        replacement.replace(capture)
        await waiter.until(lambda: any(isinstance(m, FollowUpdated) and m.replaced
                                       for m in waiter.messages), "the replacement noticed")
        assert len(app.main.rows) == 2  # not tailed from the old offset
        await pilot.pause()
        assert "replaced" in str(app.main.query_one("#title").render())  # until R
        await pilot.press("R")
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 4, "the reload")
        await pilot.pause()
        assert "replaced" not in str(app.main.query_one("#title").render())
        assert sum(isinstance(m, TurnsLoaded) for m in waiter.messages) >= 2


async def test_capital_f_starts_and_pauses_following(tmp_path):
    lines = Path(sample("claims")).read_bytes().splitlines(keepends=True)
    capture = tmp_path / "later.jsonl"
    capture.write_bytes(b"".join(lines[:6]))
    waiter = Waiter()
    app = make_app([str(capture)])
    async with app.run_test(size=SIZE, message_hook=waiter.hook) as pilot:
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 2, "2 turns")
        assert not isinstance(app.session, FollowSession)
        await pilot.press("F")
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 2, "re-read")
        assert isinstance(app.session, FollowSession) and app.follow.on
        assert "● following" in str(app.main.query_one("#title").render())
        with capture.open("ab") as out:
            out.write(b"".join(lines[6:]))
        await waiter.until(lambda: len(app.main.rows) == 4, "appended turns")
        await pilot.press("F")
        await pilot.pause()
        assert not app.follow.on and "paused" in str(app.main.query_one("#title").render())


async def test_follow_moves_on_when_a_rotated_link_points_to_a_new_file(tmp_path):
    """`traceview proxy --rotate` keeps trace.jsonl as a symlink to the current file."""
    lines = Path(sample("claims")).read_bytes().splitlines(keepends=True)
    first = tmp_path / "trace-2026-11-29.jsonl"
    first.write_bytes(b"".join(lines[:6]))
    link = tmp_path / "trace.jsonl"
    link.symlink_to(first.name)
    waiter = Waiter()
    app = make_app([str(link)], follow=True)
    async with app.run_test(size=SIZE, message_hook=waiter.hook) as pilot:
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 2, "2 turns")
        second = tmp_path / "trace-2026-11-30.jsonl"
        second.write_bytes(b"".join(lines))
        tmp_link = tmp_path / ".trace.tmp"
        tmp_link.symlink_to(second.name)
        tmp_link.replace(link)  # the proxy's atomic re-point
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 4,
                           "the new file followed")
        await pilot.pause()
        assert app.follow.on and any("rotated to trace-2026-11-30.jsonl" in n.message
                                     for n in app._notifications)


def _stateless(n: int) -> bytes:
    """One stateless call: its own conversation (a proxy in front of a chat app)."""
    import orjson

    return (orjson.dumps({"dir": "req", "body": {"model": "gpt-4o-mini", "input": f"call {n}"}})
            + b"\n" + orjson.dumps({"dir": "res", "elapsed_ms": 100, "body": {
                "id": f"resp_{n}", "object": "response", "status": "completed",
                "model": "gpt-4o-mini", "output": [],
                "usage": {"input_tokens": 10, "output_tokens": 1}}}) + b"\n")


async def _append(app, pilot, waiter, capture, data: bytes, turns: int) -> None:
    """Append `data` to the followed capture and wait until the app holds `turns` turns."""
    with capture.open("ab") as out:
        out.write(data)
    await waiter.until(lambda: len(app.state.turns) == turns, f"{turns} turns")
    await pilot.pause()


async def test_following_the_newest_conversation_moves_on_to_the_next(tmp_path):
    """Found by a newcomer following a proxy's capture of stateless calls: each call is a
    conversation of its own, and the view stayed on the first, so nothing new ever showed.
    On the newest conversation's last turn, the view follows into a newer one (as on the
    last row it follows a newer turn); anywhere else it stays where the user put it."""
    capture, waiter, app = followed(tmp_path / "proxy.jsonl", _stateless(1))
    async with app.run_test(size=SIZE, message_hook=waiter.hook) as pilot:
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 1, "call 1")
        for n in (2, 3):
            await _append(app, pilot, waiter, capture, _stateless(n), n)
            assert app.main.current_turn().index == n
            assert len(app.main.rows) == 1
        await pilot.press("c", "home", "j", "enter")  # the first call (under "all"): not tailing
        await pilot.pause()
        assert app.main.current_turn().index == 1
        await _append(app, pilot, waiter, capture, _stateless(4), 4)
        assert app.main.current_turn().index == 1  # stayed put
        assert "(1 of 4, c to pick)" in str(app.main.query_one("#title").render())


async def test_following_an_empty_capture_shows_the_newest_of_several_calls(tmp_path):
    """Found by a second attack pass: three calls appended at once to an empty followed
    capture showed the first, and later calls never moved the view (it was not on the
    newest). The newest is shown, on its last turn, and followed on from there."""
    capture, waiter, app = followed(tmp_path / "proxy.jsonl")
    async with app.run_test(size=SIZE, message_hook=waiter.hook) as pilot:
        await waiter.until(lambda: app.state.done, "the first (empty) load")
        await _append(app, pilot, waiter, capture, _stateless(1) + _stateless(2)
                      + _stateless(3), 3)
        assert app.main.current_turn().index == 3
        await _append(app, pilot, waiter, capture, _stateless(4), 4)
        assert app.main.current_turn().index == 4
