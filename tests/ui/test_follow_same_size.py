"""Found by an attack pass: the inspector's tick keyed the followed file by inode and
size, so a capture rewritten to the same length was never polled until it grew. The
key holds the mtime too: the rewrite is polled, found by the bytes comparison, and the
title says replaced (R reads it again)."""

from __future__ import annotations

import os
from pathlib import Path

from traceview.ui.follow import FollowUpdated

from .conftest import sample
from .test_follow import SIZE, Waiter

PAST = 1_000_000_000 * 10**9  # 2001, in ns: the rewrite's mtime differs at any granularity


async def test_a_same_size_rewrite_is_said_replaced(tmp_path: Path) -> None:
    from traceview.ui.app import make_app

    lines = Path(sample("claims")).read_bytes().splitlines(keepends=True)
    old = b"".join(lines[:6])
    capture = tmp_path / "live.jsonl"
    capture.write_bytes(old)
    os.utime(capture, ns=(PAST, PAST))
    waiter = Waiter()
    app = make_app([str(capture)], follow=True)
    async with app.run_test(size=SIZE, message_hook=waiter.hook) as pilot:
        await waiter.until(lambda: app.state.done and len(app.main.rows) == 2, "2 turns")
        new = old.replace(b"rec_0000", b"rec_9999")
        assert len(new) == len(old) and new != old
        with open(capture, "r+b") as f:
            f.truncate(0)
            f.write(new)
        await waiter.until(lambda: any(isinstance(m, FollowUpdated) and m.replaced
                                       for m in waiter.messages), "the rewrite noticed")
        await pilot.pause()
        assert "replaced" in str(app.main.query_one("#title").render())
        assert len(app.main.rows) == 2
