"""``traceview sample [NAME]``: open a capture that ships with the package.

An installed tool has no ``sample_traces/`` beside it; the claims sample (and its provider
snapshot, so ``d`` works offline) travel as package data instead.
"""

from __future__ import annotations

import argparse
import sys
from importlib.resources import as_file, files

from traceview.commands import EXIT_USAGE
from traceview.samples import BUNDLED


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", default="claims", choices=sorted(BUNDLED),
                   help="which bundled sample (default: claims)")
    p.add_argument("--path", action="store_true",
                   help="print where the sample is installed instead of opening it")


def run(ns: argparse.Namespace) -> int:
    capture_name, snapshot_name = BUNDLED[ns.name]
    root = files("traceview.samples")
    with as_file(root / capture_name) as capture, as_file(root / snapshot_name) as snapshot:
        if not capture.is_file():
            print(f"traceview sample: {capture_name} is missing from this installation",
                  file=sys.stderr)
            return EXIT_USAGE
        if ns.path:
            print(capture)
            return 0
        from traceview.commands.inspect import main as inspect

        return inspect([str(capture), "--items", str(snapshot)])
