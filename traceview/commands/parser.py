"""``traceview COMMAND ...``: the parser of one command, built only for the command asked."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

from traceview.commands import COMMANDS, EXIT_USAGE

Run = Callable[[argparse.Namespace], int]


class Parser(argparse.ArgumentParser):
    """argparse's parser, except that ``--help`` into a full disk fails: argparse swallows
    a failed write of its help, so `traceview --help > /dev/full` said nothing and exit 0.
    The OSError reaches ``cli.main``, which says so and exits 1."""

    def print_help(self, file: SupportsWrite[str] | None = None) -> None:
        (file or sys.stdout).write(self.format_help())


def _unavailable(name: str, exc: Exception) -> Run:
    def run(ns: argparse.Namespace) -> int:
        print(f"traceview {name}: not available in this build ({exc})", file=sys.stderr)
        return EXIT_USAGE
    return run


def build_command_parser(command: str) -> tuple[argparse.ArgumentParser,
                                                argparse.ArgumentParser]:
    """``traceview COMMAND``'s parser and the command's own; a command whose extras are not
    installed still parses and says so when run."""
    parser = Parser(prog="traceview")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser(command, help=COMMANDS[command], description=COMMANDS[command])
    try:
        module = importlib.import_module(f"traceview.commands.{command}")
    except ImportError as exc:
        p.set_defaults(run=_unavailable(command, exc))
        return parser, p
    module.add_arguments(p)
    p.set_defaults(run=module.run)
    return parser, p


def run_command(argv: list[str]) -> int:
    """Parse ``argv`` (its first word names the command) and run it; the exit status. A
    word the command does not take is said by the command's parser, with its usage (the
    top parser's would show `traceview [-h] {report} ...`)."""
    parser, command = build_command_parser(argv[0])
    ns, extras = parser.parse_known_args(argv)
    if extras:
        command.error(f"unrecognized arguments: {' '.join(extras)}")
    return int(ns.run(ns) or 0)
