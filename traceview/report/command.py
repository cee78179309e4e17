"""`traceview report`: analyse, print, and exit 0 clean / 1 problems / 2 unusable input."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from traceview.analysis.options import Options
from traceview.analysis.pricing import PricingError
from traceview.analysis.session import Analysis, analyze
from traceview.capture.sources import SourceError
from traceview.report.problems import refused


def _console(width: int | None) -> Any:  # a rich Console (imported for the text report only)
    from rich.console import Console

    class _Console(Console):
        """Rich exits 1 on a closed pipe; `report | head` got what it asked for: 0."""

        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return _Console(width=width, highlight=False, markup=False, emoji=False)


def run_report(paths: list[str], options: Options, *, fmt: str = "text",
               width: int | None = None, explain: bool = False,
               fail_over_budget: bool = False,
               prepare: Callable[[Analysis], str | None] | None = None) -> int:
    """Analyse ``paths`` and print the report in ``fmt`` (text, markdown, json) to stdout;
    the exit status. ``explain`` adds each turn's sentences to the JSON report.
    ``prepare`` runs on the analysis before anything is written (the provider copy of
    ``--items``/``--live``); a message back means the input was unusable: it is printed,
    nothing else is, and the exit is 2. So is it when no file given was a capture."""
    try:
        analysis = analyze(paths, options)
    except (SourceError, PricingError) as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return 2
    if refused("traceview", analysis):
        return 2
    try:
        unusable = prepare(analysis) if prepare is not None else None
        if unusable is not None:
            print(unusable, file=sys.stderr)
            return 2
        if fmt == "json":
            from traceview.report.json_out import write_json

            write_json(analysis, sys.stdout.buffer, explain=explain)
        elif fmt == "markdown":
            from traceview.report.markdown import iter_markdown

            for text in iter_markdown(analysis):
                sys.stdout.write(text)
        else:
            from traceview.report.text import render_text

            render_text(analysis, _console(width))
        sys.stdout.flush()
    except BrokenPipeError:
        # `report | head`: the reader has what it wanted. Quiet, and no second error
        # when the interpreter flushes stdout on the way out.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    finally:
        analysis.capture.close()
    if analysis.problems:
        from traceview.report.problems import read_summary

        print(f"traceview: {read_summary(len(analysis.problems))}", file=sys.stderr)
        return 1
    budget = (analysis.cost or {}).get("budget")
    if fail_over_budget and budget and budget["over"]:
        n = len(budget["over"])
        print(f"traceview: {n:,} {budget['per']}{'' if n == 1 else 's'} over the budget of "
              f"${budget['usd']:g}", file=sys.stderr)
        return 1
    return 0
