"""Arm A's transcript store: a real local database, as an application would keep one.

The owned arm reads the whole thread back before every turn and appends the new user
message and answer after it; that work is part of the latency a user sees, so the
runner times it (``state_ms``) and the comparison includes it. SQLite from the
standard library, one row per message. It is an output like any other: what it keeps is
masked by the one redactor, and the file is the user's alone (0600).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from traceview.safety.redact import redact_text


class TranscriptStore:
    def __init__(self, path: str | Path) -> None:
        if Path(path).is_symlink():
            raise OSError(f"{path}: is a symlink; the store is written only inside the run")
        if not Path(path).exists():  # created private before SQLite opens it
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # an app's usual setting: no fsync per turn
        self.db.execute("CREATE TABLE IF NOT EXISTS messages (thread TEXT NOT NULL, "
                        "seq INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL, "
                        "PRIMARY KEY (thread, seq))")

    def load(self, thread: str) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT role, content FROM messages WHERE thread = ? "
                               "ORDER BY seq", (thread,))
        return [{"role": role, "content": content} for role, content in rows]

    def append(self, thread: str, *messages: tuple[str, str]) -> None:
        with self.db:
            (n,) = self.db.execute("SELECT COUNT(*) FROM messages WHERE thread = ?",
                                   (thread,)).fetchone()
            self.db.executemany(
                "INSERT INTO messages (thread, seq, role, content) VALUES (?, ?, ?, ?)",
                [(thread, n + i, role, redact_text(content))
                 for i, (role, content) in enumerate(messages)])

    def forget(self, thread: str) -> None:
        """Drop a thread (a resumed run replays an interrupted one from its start)."""
        with self.db:
            self.db.execute("DELETE FROM messages WHERE thread = ?", (thread,))

    def close(self) -> None:
        self.db.close()
