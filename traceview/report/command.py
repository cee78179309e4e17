"""`traceview report`: analyse, print, and exit 0 clean / 1 problems / 2 unusable input."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

from traceview.analysis.options import Options
from traceview.analysis.pricing import PricingError
from traceview.analysis.session import analyze
from traceview.capture.sources import SourceError
from traceview.report.json_out import iter_json
from traceview.report.markdown import render_markdown
from traceview.report.text import render_text


def run_report(ns: argparse.Namespace, options: Options) -> int:
    try:
        analysis = analyze(ns.paths, options)
    except (SourceError, PricingError) as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return 2
    try:
        if ns.format == "json":
            for chunk in iter_json(analysis):
                sys.stdout.buffer.write(chunk)
        elif ns.format == "markdown":
            sys.stdout.write(render_markdown(analysis))
        else:
            render_text(analysis, Console(width=ns.width, highlight=False, markup=False,
                                          emoji=False))
        sys.stdout.flush()
    except BrokenPipeError:
        return 0
    finally:
        analysis.capture.close()
    if analysis.problems:
        n = len(analysis.problems)
        print(f"traceview: {n:,} problem{'' if n == 1 else 's'} while reading; "
              "everything readable is shown", file=sys.stderr)
        return 1
    return 0
