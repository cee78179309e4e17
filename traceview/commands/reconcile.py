"""``traceview reconcile CAPTURE… --costs FILE | --live``: the capture's cost against the bill.

Exit status: 0 every row reconciled (within tolerance, or explained by a measured reason);
1 a remainder beyond tolerance, or unknown (a turn could not be priced); 2 nothing to
compare or the bill could not be read whole (bad file, auth, network — a partial read is
still printed, labelled partial).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from traceview.commands import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE
from traceview.commands.numbers import base_url
from traceview.commands.options import UsageError, add_analysis_options, options_from
from traceview.provider.client import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="CAPTURE",
                   help="capture files, directories of captures, .gz, or - for stdin")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--costs", action="append", metavar="FILE",
                     help="saved pages of the Costs API (and Usage API pages), JSON or JSON "
                          "lines; repeatable")
    src.add_argument("--live", action="store_true",
                     help="read the Costs and Usage APIs now, with the admin key in "
                          "--api-key-env")
    p.add_argument("--project", action="append", default=[], metavar="[CAPTURE=]proj_…",
                   help="the project a capture's traffic was billed to, where the capture "
                        "recorded none (its openai-project header wins): proj_… for every "
                        "capture, CAPTURE=proj_… for one (repeatable). Without it such "
                        "traffic is compared as project (unknown) with the bill of every "
                        "project the capture does not name")
    p.add_argument("--tolerance", type=float, default=0.01, metavar="USD",
                   help="a row reconciles within this many USD… (default 0.01)")
    p.add_argument("--tolerance-pct", type=float, default=1.0, metavar="PCT",
                   help="…or this percentage of its billed amount, whichever is larger "
                        "(default 1)")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    g = p.add_argument_group("provider (--live)")
    g.add_argument("--base-url", metavar="URL", type=base_url,
                   help="provider base URL (default: $OPENAI_BASE_URL, else api.openai.com)")
    g.add_argument("--api-key-env", metavar="NAME", default="OPENAI_ADMIN_KEY",
                   help="environment variable holding the admin key (default OPENAI_ADMIN_KEY)")
    g.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"per-request deadline (default {DEFAULT_TIMEOUT:g})")
    g.add_argument("--max-retries", type=int, default=DEFAULT_MAX_RETRIES, metavar="N",
                   help=f"retries on 429 (after Retry-After), 5xx and timeouts "
                        f"(default {DEFAULT_MAX_RETRIES})")
    g.add_argument("--max-pages", type=int, default=1000, metavar="N",
                   help="stop an endpoint's listing after N pages (default 1000)")
    add_analysis_options(p)


def _fail(message: object) -> int:
    from traceview.safety.sanitise import say

    say(f"traceview reconcile: {message}")
    return EXIT_USAGE


def _read_bill(ns: argparse.Namespace, days: list[str]) -> tuple[Any, Any]:
    """The bill and the error that stopped it (None when whole); raises on nothing read."""
    if ns.costs:
        from traceview.provider.org_pages import load_saved

        return load_saved(ns.costs), None
    from traceview.provider.client import ProviderConfig
    from traceview.provider.costs import Window, read_bill

    config = ProviderConfig(base_url=ns.base_url, api_key_env=ns.api_key_env,
                            timeout=ns.timeout, max_retries=max(0, ns.max_retries))
    return read_bill(config, Window.days(days[0], days[-1]), max_pages=ns.max_pages)


def run(ns: argparse.Namespace) -> int:
    from traceview.analysis.cost.projects import ProjectMap, ProjectMapError
    from traceview.analysis.pricing import PricingError
    from traceview.analysis.session import analyze
    from traceview.capture.sources import SourceError
    from traceview.provider.errors import ProviderError
    from traceview.provider.org_pages import PageError
    from traceview.report.reconcile import Tolerance, reconcile
    from traceview.report.reconcile_lines import capture_side
    from traceview.safety.sanitise import say

    if ns.tolerance < 0 or ns.tolerance_pct < 0:
        return _fail("--tolerance and --tolerance-pct must be ≥ 0")
    try:
        given = ProjectMap.parse(ns.project, ns.paths) if ns.project else None
        options = dataclasses.replace(options_from(ns), projects=given)
        analysis = analyze(ns.paths, options)
    except (UsageError, SourceError, PricingError, ProjectMapError) as exc:
        return _fail(exc)
    try:
        side = capture_side(analysis)
    finally:
        analysis.capture.close()
    days = sorted({ln.day for ln in side.lines if ln.day is not None})
    if not days:
        return _fail("the capture has no dated, priced turns: nothing to reconcile")
    try:
        bill, error = _read_bill(ns, days)
    except (PageError, ProviderError) as exc:
        return _fail(exc)
    rec = reconcile(side.lines, bill, project=given.default if given is not None else None,
                    tolerance=Tolerance(ns.tolerance, ns.tolerance_pct),
                    captured_requests=side.requests)
    rec.turn_projects = side.projects
    rec.notes += side.notes
    _write(rec.to_dict(), ns.format)
    if error is not None or not rec.complete:
        return _fail(f"the bill was read only in part: {rec.stopped or error}")
    unknown = sum(1 for r in rec.rows if r.status == "unknown")
    if unknown:
        say(f"traceview reconcile: {unknown} row(s) have an unknown remainder (a turn could "
            "not be priced): not reconciled")
    return EXIT_PROBLEMS if rec.beyond or unknown else EXIT_OK


def _write(doc: dict[str, Any], fmt: str) -> None:
    from traceview.report.reconcile_output import render_json, render_markdown, render_text

    if fmt == "json":
        sys.stdout.buffer.write(render_json(doc))
    else:
        sys.stdout.write(render_markdown(doc) if fmt == "markdown" else render_text(doc))
    sys.stdout.flush()
