"""Command-line entry point: argument parsing and dispatch only.

`traceview PATH...` opens the inspector; `traceview COMMAND ...` runs a headless
command. Heavy modules (Textual, the openai SDK) are imported only by the command
that needs them, so `traceview report` starts fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from traceview import __version__

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2

COMMANDS = {
    "report": "print the analysis of a capture (text, markdown or JSON)",
    "screenshot": "write an SVG/PNG screenshot of an inspector view, headless",
    "fetch": "save the provider's copy of a conversation to a snapshot file",
    "diff": "diff a capture against the provider's copy (live or a snapshot)",
    "fidelity": "score replay fidelity: can each conversation's last input be rebuilt locally",
    "sim": "run the loopback provider simulator",
    "demo": "record a simulated claims conversation and open it",
    "proxy": "run a local proxy that records any client's OpenAI traffic into a capture",
    "hydrate": "rebuild a capture from response ids (fetches each response and its input)",
    "ab": "run the hosted-vs-owned experiment: both arms through the SDK, one capture each",
    "compare": "compare two arms (an `ab` results folder, or two captures)",
    "export": "write every turn of captures as Parquet, DuckDB, CSV or OTLP spans",
    "sql": "run a SQL query over the turns of captures (or of an export)",
}


def add_analysis_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("analysis thresholds")
    g.add_argument("--deposit-min-tokens", type=int, default=500, metavar="N",
                   help="smallest unexplained rise marked as a deposit (default 500)")
    g.add_argument("--deposit-ratio", type=float, default=0.25, metavar="R",
                   help="…and at least this fraction of the expected input (default 0.25)")
    g.add_argument("--compaction-min-drop", type=int, default=0, metavar="N",
                   help="smallest fall in billed input marked compaction_likely (default 0)")
    g.add_argument("--pricing", metavar="FILE", help="pricing table JSON to use instead of the "
                   "bundled one")
    p.add_argument("--from", dest="from_format", default=None,
                   choices=["capture", "har", "batch", "otlp"],
                   help="read every file as this format (default: detected per file)")


class UsageError(Exception):
    """An argument that cannot be used; its message says which and why."""


def options_from(ns: argparse.Namespace):  # -> Options (import deferred)
    """Analysis options from the flags; a pricing file is checked now, not mid-load."""
    from traceview.analysis.options import Options
    from traceview.analysis.pricing import Pricing, PricingError

    if ns.pricing:
        try:
            Pricing.load(ns.pricing)
        except PricingError as exc:
            raise UsageError(str(exc)) from None
    return Options(deposit_min_tokens=ns.deposit_min_tokens, deposit_ratio=ns.deposit_ratio,
                   compaction_min_drop=ns.compaction_min_drop, pricing_path=ns.pricing,
                   from_format=getattr(ns, "from_format", None))


def _report_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help=COMMANDS["report"], description=COMMANDS["report"])
    p.add_argument("paths", nargs="+", metavar="CAPTURE",
                   help="capture files, directories of captures, .gz, or - for stdin")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    p.add_argument("--width", type=int, default=None, help="text width (default: terminal)")
    p.add_argument("--explain", action="store_true",
                   help="JSON: write each turn's sentences too (text and markdown always do)")
    add_analysis_options(p)
    p.set_defaults(run=_run_report)


def _run_report(ns: argparse.Namespace) -> int:
    from traceview.report.command import run_report

    try:
        options = options_from(ns)
    except UsageError as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return run_report(ns, options)


def _optional(sub: argparse._SubParsersAction, name: str, module: str,
              add: str, run: str) -> None:
    """Register a command whose implementation may not be installed in this build."""
    p = sub.add_parser(name, help=COMMANDS[name], description=COMMANDS[name])
    try:
        mod = __import__(module, fromlist=[add])
        getattr(mod, add)(p)
        fn: Callable[[argparse.Namespace], int] = getattr(mod, run)
    except (ImportError, AttributeError) as exc:
        def fn(ns: argparse.Namespace, _e: Exception = exc) -> int:
            print(f"traceview {name}: not available in this build ({_e})", file=sys.stderr)
            return EXIT_USAGE
    p.set_defaults(run=fn)


def build_command_parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="traceview")
    sub = parser.add_subparsers(dest="command", required=True)
    if command == "report":
        _report_parser(sub)
    elif command == "screenshot":
        _optional(sub, "screenshot", "traceview.ui.screenshot", "add_arguments", "run")
    elif command == "fetch":
        _optional(sub, "fetch", "traceview.provider.commands", "add_fetch_arguments", "run_fetch")
    elif command == "diff":
        _optional(sub, "diff", "traceview.provider.commands", "add_diff_arguments", "run_diff")
    elif command == "fidelity":
        _optional(sub, "fidelity", "traceview.provider.fidelity_command", "add_arguments", "run")
    elif command == "sim":
        _optional(sub, "sim", "traceview.sim.cli", "add_arguments", "run")
    elif command == "demo":
        _optional(sub, "demo", "traceview.sim.demo", "add_arguments", "run")
    elif command == "hydrate":
        _optional(sub, "hydrate", "traceview.provider.hydrate", "add_arguments", "run")
    elif command == "proxy":
        _optional(sub, "proxy", "traceview.record.proxy_server", "add_arguments", "run")
    elif command == "ab":
        _optional(sub, "ab", "traceview.experiment.command", "add_arguments", "run")
    elif command == "compare":
        _optional(sub, "compare", "traceview.report.compare_output", "add_arguments", "run")
    elif command == "export":
        _optional(sub, "export", "traceview.export.command", "add_export_arguments", "run_export")
    elif command == "sql":
        _optional(sub, "sql", "traceview.export.command", "add_sql_arguments", "run_sql")
    return parser


def build_inspector_parser() -> argparse.ArgumentParser:
    cmds = "\n".join(f"  {k:<11} {v}" for k, v in COMMANDS.items())
    p = argparse.ArgumentParser(
        prog="traceview",
        description="Inspect captures of OpenAI API traffic: bytes sent vs tokens billed, "
                    "context that arrived without a request, hosted tool evidence, compaction.",
        epilog=f"commands (traceview COMMAND --help):\n{cmds}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="CAPTURE",
                   help="capture files, directories of captures, .gz, or - for stdin")
    p.add_argument("--version", action="version", version=f"traceview {__version__}")
    p.add_argument("--screenshot-dir", metavar="DIR", help="where `s` writes screenshots "
                   "(default ./screenshots)")
    p.add_argument("--items", metavar="FILE", help="a provider-copy snapshot (or a capture with "
                   "a recorded items listing) to diff against offline")
    p.add_argument("--follow", action="store_true", help="keep reading the capture as it is "
                   "written (F toggles, R reloads a replaced file)")
    p.add_argument("--theme", metavar="NAME", help="colour theme (e.g. nord, gruvbox, "
                   "textual-light); the last one picked is remembered")
    add_analysis_options(p)
    return p


def main(argv: list[str] | None = None) -> int:
    from traceview.safety.sanitise import install_safe_stderr

    install_safe_stderr()  # every message: secrets masked, control made visible
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in COMMANDS:
        ns = build_command_parser(argv[0]).parse_args(argv)
        return int(ns.run(ns) or 0)
    if not argv or argv[0] in ("-h", "--help"):
        build_inspector_parser().print_help()
        return EXIT_OK if argv else EXIT_USAGE
    ns = build_inspector_parser().parse_args(argv)
    try:
        from traceview.ui.app import run_inspector
    except ImportError as exc:
        print(f"traceview: the inspector is not available ({exc}); "
              "try `traceview report CAPTURE`", file=sys.stderr)
        return EXIT_USAGE
    try:
        options = options_from(ns)
    except UsageError as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return int(run_inspector(ns.paths, options, screenshot_dir=ns.screenshot_dir,
                             items=ns.items, follow=ns.follow, theme=ns.theme) or 0)
