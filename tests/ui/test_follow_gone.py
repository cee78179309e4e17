"""Found by an attack pass: a followed capture deleted or moved away was polled into
silence, the title still saying "● following". The title and a notice naming the path
say it is gone, the rows shown stay (R does not throw them away for a file that is not
there), and when a file is at the path again the follower notices by itself: a rotated
log's new file is offered for a reload as any replaced file is."""

from __future__ import annotations

import os
from pathlib import Path

from traceview.ui.follow import FollowUpdated

from .conftest import sample
from .test_follow import SIZE, Waiter, followed


def _title(app) -> str:
    return str(app.main.query_one("#title").render())


def _told(waiter: Waiter, **what) -> bool:
    return any(isinstance(m, FollowUpdated)
               and all(getattr(m, k) == v or (v is ... and getattr(m, k) is not None)
                       for k, v in what.items())
               for m in waiter.messages)


async def test_a_moved_capture_is_said_gone_and_its_new_file_noticed(tmp_path: Path) -> None:
    lines = Path(sample("claims")).read_bytes().splitlines(keepends=True)
    capture, waiter, app = followed(tmp_path / "live.jsonl", b"".join(lines[:6]))
    async with app.run_test(size=SIZE, message_hook=waiter.hook) as pilot:
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 2, "2 turns")
        capture.rename(tmp_path / "live.jsonl.1")  # a log rotated: moved away
        await waiter.until(lambda: _told(waiter, gone=...), "the file noticed gone")
        await pilot.pause()
        assert "gone" in _title(app) and "● following" not in _title(app)
        assert any(str(capture) in n.message and "gone" in n.message
                   for n in app._notifications)
        assert len(app.main.rows) == 2  # the rows shown stay
        await pilot.press("R")  # nothing to read: refused, the rows kept
        await pilot.pause()
        assert len(app.main.rows) == 2 and app.state.error is None
        capture.write_bytes(b"".join(lines))  # ... and recreated: a new file
        await waiter.until(lambda: _told(waiter, gone=None, replaced=True),
                           "the new file noticed")
        await pilot.pause()
        assert "gone" not in _title(app) and "replaced" in _title(app)
        await pilot.press("R")
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 4, "the reload")


async def test_a_directory_or_fifo_at_the_path_is_said_not_read(tmp_path: Path) -> None:
    lines = Path(sample("claims")).read_bytes().splitlines(keepends=True)
    capture, waiter, app = followed(tmp_path / "live.jsonl", b"".join(lines[:6]))
    async with app.run_test(size=SIZE, message_hook=waiter.hook) as pilot:
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 2, "2 turns")
        capture.unlink()
        capture.mkdir()
        await waiter.until(lambda: _told(waiter, gone=...), "the directory noticed")
        await pilot.pause()
        assert "directory" in _title(app) and len(app.main.rows) == 2
        capture.rmdir()
        os.mkfifo(capture)
        await waiter.until(lambda: any(isinstance(m, FollowUpdated) and m.gone
                                       and "FIFO" in m.gone for m in waiter.messages),
                           "the FIFO noticed")
        await pilot.pause()
        assert "FIFO" in _title(app) and len(app.main.rows) == 2 and app.is_running


async def test_a_gone_file_costs_no_worker_per_tick(tmp_path: Path) -> None:
    """A hosted-state pass still due when the file went away re-polled it on every tick:
    a thread each 0.1 s for as long as the file stays away (the pass reads the file)."""
    lines = Path(sample("claims")).read_bytes().splitlines(keepends=True)
    capture, waiter, app = followed(tmp_path / "live.jsonl", b"".join(lines[:6]))
    async with app.run_test(size=SIZE, message_hook=waiter.hook) as pilot:
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 2, "2 turns")
        capture.unlink()
        await waiter.until(lambda: _told(waiter, gone=...), "the file noticed gone")
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.follow.stop()  # the tick is driven by hand from here
        app.session.hosted_state_turns = 0  # a pass due, as after a late append
        app.follow.on = True
        app.follow.tick()
        assert not app.follow.busy  # nothing at the path: nothing to poll
