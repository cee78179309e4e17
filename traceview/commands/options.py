"""Flags several commands share: the analysis thresholds, and how to reach the provider."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from traceview.commands.numbers import COUNT, number

if TYPE_CHECKING:  # the analysis package is loaded by the commands that analyse, not by --help
    from traceview.analysis.options import Options


RATIO = number(0)


class UsageError(Exception):
    """An argument that cannot be used; its message says which and why."""


def add_analysis_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("analysis thresholds")
    g.add_argument("--deposit-min-tokens", type=COUNT, default=500, metavar="N",
                   help="smallest unexplained rise marked as a deposit (default 500)")
    g.add_argument("--deposit-ratio", type=RATIO, default=0.25, metavar="R",
                   help="…and at least this fraction of the expected input (default 0.25)")
    g.add_argument("--compaction-min-drop", type=COUNT, default=0, metavar="N",
                   help="smallest fall in billed input marked compaction_likely (default 0)")
    g.add_argument("--pricing", metavar="FILE", help="pricing table JSON to use instead of the "
                   "bundled one")
    p.add_argument("--from", dest="from_format", default=None,
                   choices=["capture", "har", "batch", "otlp"],
                   help="read every file as this format (default: detected per file)")


def options_from(ns: argparse.Namespace) -> Options:
    """Analysis options from the flags; a pricing file is checked now, not mid-load."""
    from traceview.analysis.options import Options
    from traceview.analysis.pricing import Pricing, PricingError
    from traceview.commands.outputs import PathRefused, regular_input

    if ns.pricing:
        try:  # a missing file is said by the pricing loader, in its own words
            if os.path.lexists(ns.pricing):
                regular_input(ns.pricing, "--pricing")
        except PathRefused as exc:
            raise UsageError(str(exc)) from None
        try:
            Pricing.load(ns.pricing)
        except PricingError as exc:
            raise UsageError(str(exc)) from None
    return Options(deposit_min_tokens=ns.deposit_min_tokens, deposit_ratio=ns.deposit_ratio,
                   compaction_min_drop=ns.compaction_min_drop, pricing_path=ns.pricing,
                   from_format=getattr(ns, "from_format", None))
