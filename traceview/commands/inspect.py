"""``traceview CAPTURE...``: the inspector's own arguments, and opening it."""

from __future__ import annotations

import argparse
import sys

from traceview import __version__
from traceview.commands import COMMANDS, EXIT_OK, EXIT_USAGE
from traceview.commands.options import UsageError, add_analysis_options, options_from
from traceview.commands.parser import Parser


def build_inspector_parser() -> argparse.ArgumentParser:
    cmds = "\n".join(f"  {k:<11} {v}" for k, v in COMMANDS.items())
    p = Parser(
        prog="traceview",
        description="Inspect captures of OpenAI API traffic: bytes sent vs tokens billed, "
                    "context that arrived without a request, hosted tool evidence, compaction.",
        epilog=f"commands (traceview COMMAND --help):\n{cmds}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="CAPTURE",
                   help="capture files, directories of captures, .gz, or - for stdin")
    p.add_argument("--version", action="version", version=f"traceview {__version__}")
    p.add_argument("--screenshot-dir", metavar="DIR", help="where `s` writes screenshots "
                   "(default: the current directory)")
    p.add_argument("--items", metavar="FILE", help="a provider-copy snapshot (or a capture with "
                   "a recorded items listing) to diff against offline")
    p.add_argument("--follow", action="store_true", help="keep reading the capture as it is "
                   "written (F toggles, R reloads a replaced file)")
    p.add_argument("--theme", metavar="NAME", help="colour theme (e.g. nord, gruvbox, "
                   "textual-light); the last one picked is remembered")
    add_analysis_options(p)
    return p


def main(argv: list[str]) -> int:
    """Without arguments: the help, exit 2. Otherwise open the inspector on the captures."""
    if not argv or argv[0] in ("-h", "--help"):
        build_inspector_parser().print_help()
        return EXIT_OK if argv else EXIT_USAGE
    ns = build_inspector_parser().parse_args(argv)
    try:
        from traceview.ui.app import run_inspector
    except ImportError as exc:
        print(f"traceview: the inspector is not available ({exc}); "
              "try `traceview report CAPTURE`", file=sys.stderr)
        return EXIT_USAGE
    try:
        options = options_from(ns)
    except UsageError as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return int(run_inspector(ns.paths, options, screenshot_dir=ns.screenshot_dir,
                             items=ns.items, follow=ns.follow, theme=ns.theme) or 0)
