"""Start-up checks of the terminal the inspector runs in: what it was given exists, it
has a terminal to draw on and read keys from, and a capture piped to it is spooled."""

from __future__ import annotations

import os
import sys
import tempfile


def spool_stdin(paths: list[str]) -> tuple[list[str], str | None]:
    """Save a piped capture ("-") to a temp file and give the keyboard back to the app.

    Textual reads keys from standard input; a capture piped into it would be read as
    keystrokes. Like ``less``, read the pipe first, then reattach fd 0 to the terminal.
    """
    if "-" not in paths:
        return paths, None
    fd, temp = tempfile.mkstemp(prefix="traceview-stdin-", suffix=".jsonl")
    with os.fdopen(fd, "wb") as out:
        while chunk := sys.stdin.buffer.read(1 << 20):
            out.write(chunk)
    try:
        tty = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        os.unlink(temp)
        raise
    os.dup2(tty, 0)
    os.close(tty)
    return [temp if p == "-" else p for p in paths], temp


def has_terminal(paths: list[str]) -> bool:
    """The inspector draws on stdout and reads keys from stdin (or /dev/tty after "-")."""
    if not os.isatty(1):
        return False
    return "-" in paths or os.isatty(0)


def refusal_of(paths: list[str], follow: bool = False) -> str | None:
    """Why the inspector cannot start on ``paths`` here (one line), or None; with
    ``follow``, also why they cannot be followed."""
    missing = [p for p in paths if p != "-" and not os.path.exists(p)]
    if missing:
        return f"{missing[0]}: no such file or directory"
    if not paths:
        return "give a capture file, a directory or - for stdin"
    from traceview.capture.sources import SourceError, expand_paths

    try:
        expand_paths([p for p in paths if p != "-"])
    except SourceError as exc:  # an empty directory: one line, before any screen
        return str(exc)
    if follow:
        from traceview.capture.sources import unfollowable

        return unfollowable(paths)
    return None
