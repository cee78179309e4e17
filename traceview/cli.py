"""Command-line entry point: argument parsing and dispatch only."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    print("traceview: not yet", file=sys.stderr)
    return 2
