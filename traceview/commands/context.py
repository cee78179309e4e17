"""``traceview context CAPTURE --turn N``: what the model was shown on turn N, as a stack.

Exit 0 when the turn is found, 1 when the capture has no such turn, 2 unusable input.
"""

from __future__ import annotations

import argparse
import sys

from traceview.commands import EXIT_PROBLEMS, EXIT_USAGE
from traceview.commands.numbers import POSITIVE
from traceview.commands.options import UsageError, add_analysis_options, options_from


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="CAPTURE",
                   help="capture files, directories of captures, .gz, or - for stdin")
    p.add_argument("--turn", type=POSITIVE, required=True, metavar="N", help="the turn's index")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    p.add_argument("--items", metavar="FILE",
                   help="a snapshot (or a capture) holding the provider's input_items of the"
                        " turn's response: sizes the carried conversation item by item")
    add_analysis_options(p)


def run(ns: argparse.Namespace) -> int:
    from traceview.analysis.pricing import PricingError
    from traceview.analysis.session import analyze
    from traceview.capture.sources import SourceError
    from traceview.provider.snapshot import SnapshotError, load_input_items
    from traceview.report.context_out import (
        context_doc,
        fill_from_provider,
        render_json,
        render_text,
    )

    try:
        options = options_from(ns)
        copies = load_input_items(ns.items) if ns.items else {}
        analysis = analyze(ns.paths, options)
    except (UsageError, SourceError, PricingError, SnapshotError) as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return EXIT_USAGE
    listings = {rid: c.items for rid, c in copies.items()
                if c.items is not None and c.complete and c.status == "ok"}
    try:
        doc = context_doc(analysis, ns.turn)
        if doc is not None and listings:
            fill_from_provider(doc, analysis, listings)
    finally:
        analysis.capture.close()
    if doc is None:
        print(f"traceview: no turn {ns.turn} (the capture has {len(analysis.turns)})",
              file=sys.stderr)
        return EXIT_PROBLEMS
    if ns.format == "json":
        sys.stdout.buffer.write(render_json(doc))
    else:
        sys.stdout.write(render_text(doc, markdown=ns.format == "markdown"))
    return 0
