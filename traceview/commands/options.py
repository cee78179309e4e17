"""Flags several commands share: the analysis thresholds, and how to reach the provider."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from traceview.commands.numbers import COUNT, number

if TYPE_CHECKING:  # the analysis package is loaded by the commands that analyse, not by --help
    from traceview.analysis.options import Options


RATIO = number(0)


class UsageError(Exception):
    """An argument that cannot be used; its message says which and why."""


def add_analysis_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "analysis thresholds",
        "each also settable in the config file (~/.config/traceview/config.toml, or "
        "$TRACEVIEW_CONFIG) as deposit_min_tokens = 800 …; a flag overrides the file")
    g.add_argument("--deposit-min-tokens", type=COUNT, default=None, metavar="N",
                   help="smallest unexplained rise marked as a deposit (default 500)")
    g.add_argument("--deposit-ratio", type=RATIO, default=None, metavar="R",
                   help="…and at least this fraction of the expected input (default 0.25)")
    g.add_argument("--compaction-min-drop", type=COUNT, default=None, metavar="N",
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
    path, configured = config_thresholds()
    given = {name: getattr(ns, name, None) for name in THRESHOLDS}
    taken = tuple(n for n in THRESHOLDS if given[n] is None and n in configured)
    values: dict[str, Any] = {n: given[n] if given[n] is not None else configured[n]
              for n in THRESHOLDS if given[n] is not None or n in configured}
    return Options(**values, pricing_path=ns.pricing,
                   from_format=getattr(ns, "from_format", None),
                   config=str(path) if taken else None, from_config=taken)


#: The thresholds a config file may set, each checked by its flag's own rule.
THRESHOLDS = {"deposit_min_tokens": COUNT, "deposit_ratio": RATIO, "compaction_min_drop": COUNT}


def config_thresholds() -> tuple[Path, dict[str, Any]]:
    """The thresholds the config file sets (the inspector's settings file); UsageError
    naming the file and key when one is unusable — a threshold silently ignored would
    change the markers without saying so."""
    import tomllib

    from traceview.config import CONFIG_MAX_BYTES, config_path
    from traceview.safety.outputs import read_bounded

    path = config_path()
    try:
        text = read_bounded(path, CONFIG_MAX_BYTES).decode("utf-8")
    except FileNotFoundError:
        return path, {}
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"config file {path}: cannot read ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"config file {path}: not TOML ({exc})") from None
    out: dict[str, Any] = {}
    for name, parse in THRESHOLDS.items():
        if name not in data:
            continue
        value = data[name]
        try:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise argparse.ArgumentTypeError(f"must be a number, not {value!r}")
            out[name] = parse(str(value))
        except argparse.ArgumentTypeError as exc:
            raise UsageError(f"config file {path}: {name} {exc}; fix it or override it "
                             f"with --{name.replace('_', '-')}") from None
    return path, out

