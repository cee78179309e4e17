"""Flags several commands share: the analysis thresholds, and how to reach the provider."""

from __future__ import annotations

import argparse
import errno
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
        "$TRACEVIEW_CONFIG) as deposit_min_tokens = 800 …, pricing = \"FILE\"; a flag "
        "overrides the file")
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
    """Analysis options from the flags and the config file (a flag overrides the file); a
    pricing file is checked now, not mid-load."""
    from traceview.analysis.options import Options

    path, configured = config_thresholds(
        flags=all(hasattr(ns, name) for name in THRESHOLDS))  # compare has none
    given = {name: getattr(ns, name, None) for name in (*THRESHOLDS, "pricing")}
    taken = tuple(n for n in (*THRESHOLDS, "pricing") if given[n] is None and n in configured)
    values: dict[str, Any] = {n: given[n] if given[n] is not None else configured[n]
                              for n in THRESHOLDS if given[n] is not None or n in configured}
    pricing = given["pricing"] or configured.get("pricing")
    if pricing:
        _check_pricing(pricing, None if given["pricing"] else path)
    return Options(**values, pricing_path=pricing,
                   from_format=getattr(ns, "from_format", None),
                   config=str(path) if taken else None, from_config=taken)


def _check_pricing(pricing: str, config: Path | None) -> None:
    """UsageError unless `pricing` (from --pricing, or the `config` file) is a pricing
    table, said in the loader's own words, a missing file too."""
    from traceview.analysis.pricing import Pricing, PricingError
    from traceview.commands.outputs import PathRefused, regular_input

    where = "" if config is None else f"config file {config}: "
    try:
        if os.path.lexists(pricing):
            regular_input(pricing, "pricing" if config else "--pricing")
    except PathRefused as exc:
        raise UsageError(f"{where}{exc}") from None
    try:
        Pricing.load(pricing)
    except PricingError as exc:
        raise UsageError(f"{where}{'pricing ' if config else ''}{exc}") from None


#: The thresholds a config file may set, each checked by its flag's own rule.
THRESHOLDS = {"deposit_min_tokens": COUNT, "deposit_ratio": RATIO, "compaction_min_drop": COUNT}


def config_thresholds(*, flags: bool = True) -> tuple[Path, dict[str, Any]]:
    """The thresholds and pricing file the config file sets (the inspector's settings
    file); UsageError naming the file and key when one is unusable or unknown, or when the
    file $TRACEVIEW_CONFIG names is not there — a setting silently ignored would change
    the markers without saying so. `flags`: whether the command has the threshold flags
    that override the file (`compare` has not)."""
    import tomllib

    from traceview.config import CONFIG_MAX_BYTES, KEYS, config_path, named_config, wrong_setting
    from traceview.safety.outputs import read_bounded

    path = config_path()
    named = " (named by $TRACEVIEW_CONFIG)" if named_config() else ""
    try:
        text = read_bounded(path, CONFIG_MAX_BYTES).decode("utf-8")
    except FileNotFoundError:
        if named:
            raise UsageError(f"config file {path}{named}: no such file") from None
        return path, {}
    except OSError as exc:  # its strerror: str() would add "[Errno N]" and the file again
        if exc.errno == errno.EISDIR:
            raise UsageError(f"config file {path}{named}: is a directory, not a config "
                             "file") from None
        raise UsageError(f"config file {path}{named}: cannot read "
                         f"({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"config file {path}{named}: cannot read ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"config file {path}: not TOML ({exc})") from None
    for name in data:
        if name not in KEYS:
            raise UsageError(f"config file {path}: {_unknown(name, sorted(KEYS))}")
        wrong = wrong_setting(name, data[name])
        if wrong:
            raise UsageError(f"config file {path}: {wrong}")
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
            fix = f"fix it or override it with --{name.replace('_', '-')}" if flags \
                else "fix it"
            raise UsageError(f"config file {path}: {name} {exc}; {fix}") from None
    if "pricing" in data:
        if not isinstance(data["pricing"], str) or not data["pricing"]:
            raise UsageError(f"config file {path}: pricing must be a file's path, not "
                             f"{data['pricing']!r}")
        out["pricing"] = str(path.parent / Path(data["pricing"]).expanduser())
    return path, out


def _unknown(name: str, known: list[str]) -> str:
    """An unknown key said with the known one it most likely misspells, else all of them."""
    import difflib

    from traceview.safety.sanitise import visible

    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean '{close[0]}'?" if close else f"the keys are {', '.join(known)}"
    return f"unknown key '{visible(name)}' ({hint})"
