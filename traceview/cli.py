"""Command-line entry point: dispatch only.

``traceview CAPTURE...`` opens the inspector; ``traceview COMMAND ...`` runs a headless
command. Parsing lives in ``traceview.commands``, one module per command, each importing
only what it uses, so ``traceview report`` never loads Textual or the openai SDK.
"""

from __future__ import annotations

import sys

from traceview import __version__
from traceview.commands import COMMANDS


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:  # answered before the output boundary's patterns are compiled
        print(f"traceview {__version__}")
        return 0
    from traceview.safety.sanitise import install_safe_stderr

    install_safe_stderr()  # every message: secrets masked, control made visible
    if argv and argv[0] in COMMANDS:
        from traceview.commands.parser import run_command

        return run_command(argv)
    from traceview.commands.inspect import main as inspect

    return inspect(argv)
