"""What the follow tests share: a capture followed to its current end, and turns as the
bytes a writer appends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from traceview.analysis.follow import FollowSession


def followed(path: Path) -> FollowSession:
    """A FollowSession on `path`, its first read done (later polls are the test's)."""
    session = FollowSession(str(path), interval=0.0, first_interval=0.0)
    for _ in session.run():
        pass
    return session


def lines(*turns: list[Any]) -> bytes:
    """Each record of `turns` (builders' lists of records) as a JSONL line."""
    return b"".join(orjson.dumps(r) + b"\n" for t in turns for r in t)
