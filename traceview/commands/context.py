"""``traceview context CAPTURE --turn N [--items FILE | --live]``: what the model was shown
on turn N, as a stack.

Exit 0 when the turn is found; 1 when it is, in a capture read with problems (each named
on stderr); 2 when it cannot be shown: the capture has no such turn, no file given is a
capture, unusable input, a provider copy asked for a turn that is not hosted, or a
provider that could not be read (`--live`) — nothing printed but the message.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from traceview.commands import EXIT_USAGE
from traceview.commands.numbers import POSITIVE
from traceview.commands.options import UsageError, add_analysis_options, options_from
from traceview.commands.problems import refused, told
from traceview.commands.provider_flags import (
    add_copy_arguments,
    add_provider_arguments,
    fetch_settings,
)

if TYPE_CHECKING:
    from traceview.analysis.session import Analysis


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="CAPTURE",
                   help="capture files, directories of captures, .gz, or - for stdin")
    p.add_argument("--turn", type=POSITIVE, required=True, metavar="N", help="the turn's index")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    add_copy_arguments(p)
    add_analysis_options(p)
    add_provider_arguments(p, conversation=False)


def _fill(ns: argparse.Namespace, analysis: Analysis) -> None:
    """With --items or --live, count the turn's carried line from the provider copy (the
    one count the report and the inspector use). Raises SnapshotError, InputError or
    ProviderError; InputError when the copy does not fill the turn, or the turn is not
    hosted (a copy given for it would otherwise be ignored without a word)."""
    from traceview.provider.context_items import fill_from_copy, hosted_turns
    from traceview.provider.diffing import InputError

    if not (ns.items or ns.live):
        return
    turns = hosted_turns(analysis, [ns.turn])
    if not turns:
        if analysis.turn(ns.turn) is None:
            return  # no such turn: said as such by run()
        copy = f"--items {ns.items}" if ns.items else "--live"
        raise InputError(f"turn {ns.turn} is not hosted (its input was sent whole, nothing "
                         f"held by the provider): {copy} only applies to hosted turns; "
                         "nothing read")
    if ns.live and not turns[0].response_id:
        raise InputError(f"turn {ns.turn} has no response id to ask the provider about")
    fill = fill_from_copy(analysis, turns, items=ns.items,
                          settings=fetch_settings(ns) if ns.live else None)
    if fill.missing:
        raise InputError(f"turn {ns.turn}: {fill.missing[0]['reason']}")


def run(ns: argparse.Namespace) -> int:
    from traceview.analysis.pricing import PricingError
    from traceview.analysis.session import analyze
    from traceview.capture.sources import SourceError
    from traceview.provider.diffing import InputError
    from traceview.provider.errors import ProviderError
    from traceview.provider.snapshot import SnapshotError
    from traceview.report.context_out import context_doc, render_json, render_text
    from traceview.safety.redact import redact_text
    from traceview.safety.sanitise import visible

    try:
        options = options_from(ns)
        analysis = analyze(ns.paths, options)
    except (UsageError, SourceError, PricingError) as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if refused("traceview context", analysis):
        return EXIT_USAGE
    try:
        _fill(ns, analysis)
        doc = context_doc(analysis, ns.turn)
    except (SnapshotError, InputError, ProviderError) as exc:
        print(f"traceview context: {visible(redact_text(str(exc)), multiline=True)}",
              file=sys.stderr)
        return EXIT_USAGE
    finally:
        analysis.capture.close()
    if doc is None:  # what was asked for is not there: not done, so not "done with problems"
        count = len(analysis.turns)
        print(f"traceview context: no turn {ns.turn} (the capture has {count} "
              f"turn{'' if count == 1 else 's'})", file=sys.stderr)
        return EXIT_USAGE
    if ns.format == "json":
        sys.stdout.buffer.write(render_json(doc))
    else:
        sys.stdout.write(render_text(doc, markdown=ns.format == "markdown"))
    return told("traceview context", analysis)
