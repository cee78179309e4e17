"""``traceview report CAPTURE...``: exit 0 clean, 1 problems while reading, 2 unusable input."""

from __future__ import annotations

import argparse
import sys

from traceview.commands import EXIT_USAGE
from traceview.commands.options import UsageError, add_analysis_options, options_from


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="CAPTURE",
                   help="capture files, directories of captures, .gz, or - for stdin")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    p.add_argument("--width", type=int, default=None, help="text width (default: terminal)")
    p.add_argument("--explain", action="store_true",
                   help="JSON: write each turn's sentences too (text and markdown always do)")
    add_analysis_options(p)


def run(ns: argparse.Namespace) -> int:
    from traceview.report.command import run_report

    try:
        options = options_from(ns)
    except UsageError as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return run_report(ns.paths, options, fmt=ns.format, width=ns.width, explain=ns.explain)
