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
    g = p.add_argument_group("cost (issue 33)")
    g.add_argument("--per-month", type=int, default=None, metavar="N",
                   help="project tool fees, carried context and token cost to N "
                        "conversations a month from the capture's own rates (a projection)")
    g.add_argument("--budget", default=None, metavar="usd=X,per=conversation|day",
                   help="mark the conversations (or UTC days) whose cost went over X")
    g.add_argument("--fail-over-budget", action="store_true",
                   help="exit 1 when anything went over --budget")


def run(ns: argparse.Namespace) -> int:
    from dataclasses import replace

    from traceview.analysis.cost.volume import Budget
    from traceview.report.command import run_report

    try:
        options = options_from(ns)
        if ns.per_month is not None and ns.per_month < 1:
            raise UsageError(f"--per-month must be a count of conversations ≥ 1, "
                             f"not {ns.per_month}")
        if ns.fail_over_budget and ns.budget is None:
            raise UsageError("--fail-over-budget needs --budget usd=X[,per=conversation|day]")
        budget = Budget.parse(ns.budget) if ns.budget is not None else None
    except (UsageError, ValueError) as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return EXIT_USAGE
    options = replace(options, per_month=ns.per_month, budget=budget)
    return run_report(ns.paths, options, fmt=ns.format, width=ns.width, explain=ns.explain,
                      fail_over_budget=ns.fail_over_budget)
