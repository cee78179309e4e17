"""``traceview compare ARM...``: the two arms side by side, printed or on the compare screen.

Exit 0, 1 when an arm's capture was read with problems (as ``report`` exits), 2 when the
arms cannot be compared.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from traceview.commands.numbers import POSITIVE
from traceview.report.compare_output import (
    build,
    render_json,
    render_markdown,
    render_text,
    safe,
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("arms", nargs="+", metavar="ARM",
                   help="an `ab` results folder, or two captures: A (owned) then B (hosted)")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--resamples", type=POSITIVE, default=2000, help="bootstrap resamples")
    p.add_argument("--pricing", metavar="FILE", help="pricing table JSON")
    p.add_argument("--open", action="store_true",
                   help="open the compare screen instead of printing")


def run(ns: argparse.Namespace) -> int:
    from traceview.analysis.compare_arms import ArmsError
    from traceview.analysis.pricing import PricingError
    from traceview.capture.sources import SourceError
    from traceview.commands.options import UsageError, options_from

    try:
        # The config file as every analysing command reads it: its pricing (--pricing
        # overrides it) and its thresholds, which move the markers an arm's replay fidelity
        # reads; a file $TRACEVIEW_CONFIG names that is not there is refused.
        options = options_from(ns)
    except UsageError as exc:
        print(f"traceview compare: {safe(exc)}", file=sys.stderr)
        return 2
    try:
        doc = build(list(ns.arms), seed=ns.seed, resamples=max(ns.resamples, 100),
                    options=options)
    except (ArmsError, PricingError, SourceError) as exc:
        print(f"traceview compare: {safe(exc)}", file=sys.stderr)
        return 2
    if getattr(ns, "open", False):
        try:
            from traceview.ui.compare_app import run_compare_app
        except ImportError as exc:
            print(f"traceview compare: the screen is not available ({exc})", file=sys.stderr)
            return 2
        return run_compare_app(list(ns.arms), doc)
    render = {"json": render_json, "markdown": render_markdown}.get(ns.format, render_text)
    try:
        sys.stdout.write(render(doc))
        sys.stdout.flush()
    except BrokenPipeError:
        return 0
    return problems_exit(doc)


def problems_exit(doc: dict[str, Any]) -> int:
    """1 when an arm's capture was read with problems, else 0; the problems themselves are
    in the arms' notes, at the top of every format."""
    arms = doc.get("arms") or {}
    bad = [a for a in (arms.values() if isinstance(arms, dict) else arms)
           if isinstance(a, dict) and a.get("problems")]
    if bad:
        where = ", ".join(safe(a.get("label")) for a in bad)
        print(f"traceview compare: {sum(a['problems'] for a in bad)} problem(s) reading "
              f"{where} (see the notes; `traceview report` lists them)", file=sys.stderr)
        return 1
    return 0
