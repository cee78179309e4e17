"""``traceview report CAPTURE... [--items FILE | --live]``: exit 0 clean, 1 problems while
reading, 2 unusable input (a provider copy that cannot be read, or sizes no hosted turn)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from traceview.commands import EXIT_USAGE
from traceview.commands.numbers import MONTHLY, integer
from traceview.commands.options import UsageError, add_analysis_options, options_from
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
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    # A width under a line's shortest cell dropped the report's first lines (≤ 0: its title).
    p.add_argument("--width", type=integer(20, 100_000), default=None,
                   help="text width, 20 or more (default: terminal)")
    p.add_argument("--explain", action="store_true",
                   help="JSON: write each turn's sentences too (text and markdown always do)")
    add_copy_arguments(p)
    add_analysis_options(p)
    g = p.add_argument_group("cost")
    g.add_argument("--per-month", type=MONTHLY, default=None, metavar="N",
                   help="project tool fees, carried context and token cost to N "
                        "conversations a month from the capture's own rates (a projection)")
    g.add_argument("--budget", default=None, metavar="usd=X,per=conversation|day",
                   help="mark the conversations (or UTC days) whose cost went over X")
    g.add_argument("--fail-over-budget", action="store_true",
                   help="exit 1 when anything went over --budget")
    add_provider_arguments(p, conversation=False)


def _copy(ns: argparse.Namespace) -> Callable[[Analysis], str | None] | None:
    """With --items or --live: what fills every hosted turn's carried line from the
    provider copy before the report is written (provider/context_items.py, the count
    `context` and the inspector use); a message when the copy cannot be used."""
    if not (ns.items or ns.live):
        return None

    def prepare(analysis: Analysis) -> str | None:
        from traceview.provider.context_items import fill_from_copy, hosted_turns
        from traceview.provider.diffing import InputError
        from traceview.provider.errors import ProviderError
        from traceview.provider.snapshot import SnapshotError
        from traceview.safety.redact import redact_text
        from traceview.safety.sanitise import visible

        turns = hosted_turns(analysis)
        try:
            fill = fill_from_copy(analysis, turns, items=ns.items, keep_going=True,
                                  settings=fetch_settings(ns) if ns.live else None)
            if turns and not fill.filled:
                raise InputError(_nothing_filled(ns, fill.missing))
        except (SnapshotError, InputError, ProviderError) as exc:
            return f"traceview report: {visible(redact_text(str(exc)), multiline=True)}"
        analysis.provider_copy = fill
        return None

    return prepare


def _nothing_filled(ns: argparse.Namespace, missing: list[dict[str, Any]]) -> str:
    """Why a copy that fills no hosted turn is refused: the first turn's reason."""
    first = missing[0]
    why = f"turn {first['turn']}: {first['reason']}"
    if ns.items:
        return (f"{ns.items} sizes none of the capture's {len(missing)} hosted turn(s)"
                f" (another conversation's copy?); {why}")
    return (f"the provider holds none of the capture's {len(missing)} hosted turns'"
            f" input_items; {why}")


def run(ns: argparse.Namespace) -> int:
    from dataclasses import replace

    from traceview.analysis.cost.volume import Budget
    from traceview.report.command import run_report

    try:
        options = options_from(ns)
        if ns.fail_over_budget and ns.budget is None:
            raise UsageError("--fail-over-budget needs --budget usd=X[,per=conversation|day]")
        budget = Budget.parse(ns.budget) if ns.budget is not None else None
    except (UsageError, ValueError) as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return EXIT_USAGE
    options = replace(options, per_month=ns.per_month, budget=budget)
    return run_report(ns.paths, options, fmt=ns.format, width=ns.width, explain=ns.explain,
                      fail_over_budget=ns.fail_over_budget, prepare=_copy(ns))
