"""``traceview fetch CAPTURE [--conversation ID] -o snapshot.json``.

Exit status: 0 a complete copy saved; 1 a partial copy saved (labelled so); 2 bad
arguments, an unreadable file, or a provider error with nothing read.
"""

from __future__ import annotations

import argparse
import sys

from traceview.commands.outputs import PathRefused, refuse_output, replacing
from traceview.commands.provider_flags import add_provider_arguments, fetch_settings
from traceview.provider.diffing import InputError, fetch_copy, fetch_final_input, load_target
from traceview.provider.snapshot import save_snapshot

EXIT_SAME, EXIT_DIFFERENT, EXIT_ERROR = 0, 1, 2


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("capture", metavar="CAPTURE", help="capture naming the conversation")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="snapshot file to write (JSON; holds no key)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing file (never the capture read)")
    add_provider_arguments(p)


def run(ns: argparse.Namespace) -> int:
    """Fetch the provider copy and save it as a snapshot (a partial one is saved, labelled)."""
    try:
        refuse_output(ns.output, [ns.capture], force=ns.force)
    except PathRefused as exc:
        print(f"traceview fetch: {exc}", file=sys.stderr)
        return EXIT_ERROR
    settings = fetch_settings(ns)
    settings.offline = None  # fetch is how a snapshot is made: nothing to do without a key
    try:
        cap, target = load_target(ns.capture, ns.conversation, allow_unlisted=True)
        copy, error = fetch_copy(settings, target)
    except InputError as exc:
        print(f"traceview fetch: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if error:
        print(f"traceview fetch: {error.message}", file=sys.stderr)
    if copy is None:
        return EXIT_ERROR
    inputs = fetch_final_input(settings, cap, target) if copy.complete else None
    if isinstance(inputs, dict):
        print(f"note: the input items of {inputs['response']} were not saved: "
              f"{inputs['error']}", file=sys.stderr)
    try:
        with replacing(ns.output) as tmp:
            save_snapshot(copy, tmp, inputs)
    except OSError as exc:
        print(f"traceview fetch: cannot write {ns.output}: {exc.strerror or exc}",
              file=sys.stderr)
        return EXIT_ERROR
    state = "complete" if copy.complete else "PARTIAL (not the whole conversation)"
    print(f"saved {copy.kind} {copy.conversation}: {copy.item_count:,} items, {copy.pages} "
          f"page{'s' if copy.pages != 1 else ''}, {state}, from {copy.host} → {ns.output}")
    for warning in copy.warnings:
        print(f"note: {warning}", file=sys.stderr)
    return EXIT_SAME if copy.complete else EXIT_DIFFERENT
