"""Command-line entry point: dispatch only.

``traceview CAPTURE...`` opens the inspector; ``traceview COMMAND ...`` runs a headless
command. Parsing lives in ``traceview.commands``, one module per command, each importing
only what it uses, so ``traceview report`` never loads Textual or the openai SDK.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys

from traceview import __version__
from traceview.commands import COMMANDS

PRIVATE = 0o077  # the umask bits a command adds: no access for group or others


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:  # answered before the output boundary's patterns are compiled
        print(f"traceview {__version__}")
        return 0
    from traceview.safety.sanitise import install_safe_stderr

    install_safe_stderr()  # every message: secrets masked, control made visible
    # Every file a command writes holds captured text or what is derived from it (exports,
    # caches, snapshots, screenshots, ab's results): 0600 and folders 0700, as captures
    # are, whichever library makes it (Arrow, DuckDB, SQLite). Restored for an embedder.
    umask = os.umask(PRIVATE)
    os.umask(umask | PRIVATE)  # a stricter umask of the user's is kept
    try:
        return _run(argv)
    finally:
        os.umask(umask)


def _run(argv: list[str]) -> int:
    try:
        try:
            if argv and argv[0] in COMMANDS:
                from traceview.commands.parser import run_command

                status = run_command(argv)
            elif argv and _misspelt(argv[0]):
                status = 2
            else:
                from traceview.commands.inspect import main as inspect

                status = inspect(argv)
        except SystemExit:
            sys.stdout.flush()  # argparse's --help too: a full disk is said, not lost at exit
            raise
        sys.stdout.flush()
    except OSError as exc:
        if exc.errno not in (errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EDQUOT):
            raise
        return _stdout_gone(argv[0] if argv else "", exc)
    except KeyboardInterrupt:  # Ctrl-C: one line, not a traceback from wherever it landed
        name = f"traceview {argv[0]}" if argv and argv[0] in COMMANDS else "traceview"
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    return status


_HELP_WORDS = ("help", "commands")


def _misspelt(word: str) -> bool:
    """A first word that names no file but is spelled like a command (`traceview reprot
    trace.jsonl`): said as such, exit 2, rather than "no such file: reprot"."""
    if os.path.exists(word) or word.startswith("-"):
        return False
    import difflib

    if word in _HELP_WORDS:
        print(f"traceview: no command or file '{word}': `traceview --help` lists the commands,"
              " `traceview COMMAND --help` each one's options", file=sys.stderr)
        return True
    close = difflib.get_close_matches(word, list(COMMANDS), n=1, cutoff=0.75)
    if close:
        print(f"traceview: no command or file '{word}': did you mean `traceview {close[0]}`?",
              file=sys.stderr)
    return bool(close)


def _stdout_gone(command: str, exc: OSError) -> int:
    """A reader that went away (``| head -1``: it has what it wanted, so nothing is said and
    the exit is 0, as `report` does) or a full disk (``> /dev/full``: one line on stderr,
    exit 1); stdout is pointed at /dev/null so the interpreter's last flush is quiet."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    name = f"traceview {command}" if command in COMMANDS else "traceview"
    if exc.errno == errno.EPIPE:
        return 0
    print(f"{name}: cannot write the output ({exc.strerror or exc}); stopped", file=sys.stderr)
    return 1
