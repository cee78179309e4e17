"""``traceview diff CAPTURE [--conversation ID] [--items FILE | --live] [--format …]``.

Exit status: 0 no differences (complete copy); 1 differences, a partial provider copy, or
a capture read with problems; 2 bad arguments, an unreadable file, or a provider error
with nothing read.
"""

from __future__ import annotations

import argparse
import sys

from traceview.commands.fetch import EXIT_DIFFERENT, EXIT_ERROR, EXIT_SAME
from traceview.commands.provider_flags import add_provider_arguments, fetch_settings
from traceview.provider.diffing import build_diff
from traceview.report.diff_output import render


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("capture", metavar="CAPTURE", help="the capture to compare")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--items", metavar="FILE",
                     help="compare with a snapshot, or a capture that recorded a GET …/items "
                          "listing, instead of fetching")
    src.add_argument("--live", action="store_true",
                     help="fetch the provider copy now (the default without --items)")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    add_provider_arguments(p)


def run(ns: argparse.Namespace) -> int:
    """Print the diff; exit 0 same, 1 different, partial or damaged, 2 when it could not
    be made."""
    result, error = build_diff(ns.capture, ns.conversation, items=ns.items,
                               settings=fetch_settings(ns))
    if result is None:
        print(f"traceview diff: {error}", file=sys.stderr)
        return EXIT_ERROR
    sys.stdout.write(render(result, ns.format))
    return EXIT_DIFFERENT if result.differs or not result.complete or result.problems \
        else EXIT_SAME
