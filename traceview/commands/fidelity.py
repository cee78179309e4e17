"""``traceview fidelity CAPTURE [--live] [--items SNAPSHOT] [--format text|markdown|json]``.

Scores replay fidelity (analysis/fidelity.py; the provider's side: provider/fidelity_scores.py).
Exit status: 0 every conversation replays; 1 some do not (or are unverified), or the
capture was read with problems (each named on stderr); 2 bad arguments, an unreadable
file, or a file that is not a capture.
"""

from __future__ import annotations

import argparse
import sys

from traceview.commands.problems import told
from traceview.commands.provider_flags import add_provider_arguments, fetch_settings
from traceview.provider.diffing import InputError
from traceview.provider.fidelity_scores import scores
from traceview.report.fidelity_output import render
from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible

EXIT_ALL, EXIT_SOME, EXIT_ERROR = 0, 1, 2


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("capture", metavar="CAPTURE", help="the capture to score")
    p.add_argument("--live", action="store_true",
                   help="read each hosted conversation's final input_items from the provider now")
    p.add_argument("--items", action="append", metavar="SNAPSHOT",
                   help="a snapshot saved by `traceview fetch` (or a capture that recorded a "
                        "GET …/input_items listing); repeatable")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    add_provider_arguments(p)


def run(ns: argparse.Namespace) -> int:
    try:
        result, analysis = scores(ns.capture, snapshots=ns.items, live=ns.live,
                                  settings=fetch_settings(ns))
    except InputError as exc:
        print(f"traceview fidelity: {visible(redact_text(str(exc)), multiline=True)}",
              file=sys.stderr)
        return EXIT_ERROR
    try:
        sys.stdout.write(render(result, analysis.capture.sources, ns.format))
        sys.stdout.flush()
    except BrokenPipeError:
        return EXIT_SOME
    finally:
        analysis.capture.close()
    if told("traceview fidelity", analysis):  # a damaged capture never scores "all replay"
        return EXIT_SOME
    return EXIT_ALL if all(v.replays for f in result for v in f.verdicts) else EXIT_SOME
