"""``traceview context CAPTURE --turn N [--items FILE | --live]``: what the model was shown
on turn N, as a stack.

Exit 0 when the turn is found, 1 when the capture has no such turn, 2 unusable input or a
provider that could not be read (`--live`: nothing printed but the message).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from traceview.commands import EXIT_PROBLEMS, EXIT_USAGE
from traceview.commands.numbers import POSITIVE
from traceview.commands.options import UsageError, add_analysis_options, options_from
from traceview.commands.provider_flags import add_provider_arguments, fetch_settings

if TYPE_CHECKING:
    from traceview.analysis.session import Analysis


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="CAPTURE",
                   help="capture files, directories of captures, .gz, or - for stdin")
    p.add_argument("--turn", type=POSITIVE, required=True, metavar="N", help="the turn's index")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--items", metavar="FILE",
                     help="a snapshot (or a capture) holding the provider's input_items of the"
                          " turn's response, or its conversation: sizes the carried"
                          " conversation item by item")
    src.add_argument("--live", action="store_true",
                     help="read the turn's input_items from the provider now (the provider"
                          " flags below) and size the carried conversation from them")
    add_analysis_options(p)
    add_provider_arguments(p, conversation=False)


def _listings(ns: argparse.Namespace, analysis: Analysis,
              doc: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The provider's listings to count the carried line from: none unless asked for and
    the turn has a carried line. Raises SnapshotError, InputError or ProviderError."""
    from traceview.provider.context_items import live_listing, saved_listings

    if not (ns.items or ns.live) or not any(
            c["component"] == "carried" for c in doc["input_account"] or ()):
        return {}
    if ns.items:
        return saved_listings(ns.items, analysis, ns.turn)
    turn = analysis.turn(ns.turn)
    if turn is None or not turn.response_id:
        from traceview.provider.diffing import InputError
        raise InputError(f"turn {ns.turn} has no response id to ask the provider about")
    return live_listing(fetch_settings(ns), turn.response_id)


def run(ns: argparse.Namespace) -> int:
    from traceview.analysis.pricing import PricingError
    from traceview.analysis.session import analyze
    from traceview.capture.sources import SourceError
    from traceview.provider.diffing import InputError
    from traceview.provider.errors import ProviderError
    from traceview.provider.snapshot import SnapshotError
    from traceview.report.context_out import (
        context_doc,
        fill_from_provider,
        render_json,
        render_text,
    )
    from traceview.safety.redact import redact_text
    from traceview.safety.sanitise import visible

    try:
        options = options_from(ns)
        analysis = analyze(ns.paths, options)
    except (UsageError, SourceError, PricingError) as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        doc = context_doc(analysis, ns.turn)
        if doc is not None:
            listings = _listings(ns, analysis, doc)
            if listings:
                fill_from_provider(doc, analysis, listings)
    except (SnapshotError, InputError, ProviderError) as exc:
        print(f"traceview context: {visible(redact_text(str(exc)), multiline=True)}",
              file=sys.stderr)
        return EXIT_USAGE
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
