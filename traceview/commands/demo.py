"""``traceview demo``: record the claims scenario against the simulator, then inspect it;
``traceview demo --ab``: a small hosted-vs-owned experiment, then its comparison.

Needs no API key and no network. Exit 1 when the capture cannot be written, 2 when --out
already holds one or is no regular file (a FIFO, a device).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from traceview.commands.outputs import PathRefused, refuse_output
from traceview.sim.demo import DEMO_KEY, record_claims, record_demo


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", metavar="PATH", default=None,
                        help="capture to write (default ./traceview-demo-<timestamp>.jsonl)")
    parser.add_argument("--include", action="store_true",
                        help='ask for include=["file_search_call.results"] (evidence captured)')
    parser.add_argument("--stream", action="store_true", help="stream the responses")
    parser.add_argument("--no-open", action="store_true",
                        help="only record; do not open the inspector")
    parser.add_argument("--ab", action="store_true",
                        help="run a small hosted-vs-owned experiment on the simulator "
                             "(simulated latencies) and open the comparison; --out is the "
                             "results folder")


def run(ns: argparse.Namespace) -> int:
    if getattr(ns, "ab", False):
        return run_ab(ns.out, no_open=ns.no_open)
    path = Path(ns.out or f"traceview-demo-{time.strftime('%Y%m%d-%H%M%S')}.jsonl")
    if path.exists() and path.stat().st_size:
        print(f"traceview demo: {path} already exists; choose another --out", file=sys.stderr)
        return 2
    try:  # an empty file is written into; a FIFO, a device or a dangling link is not
        refuse_output(path, [], force=True)
    except PathRefused as exc:
        print(f"traceview demo: --out {exc}", file=sys.stderr)
        return 2
    if ns.no_open:
        try:
            conversation = record_demo(path, include=ns.include, stream=ns.stream)
        except OSError as exc:
            print(f"traceview demo: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print(f"traceview demo: recorded conversation {conversation} (4 turns) to {path}")
        print(f"  inspect it with: traceview {path}   or: traceview report {path}")
        return 0
    return record_and_inspect(path, include=ns.include, stream=ns.stream)


@contextmanager
def _provider_env(base_url: str) -> Iterator[None]:
    """The SDK's environment pointed at the simulator while the inspector is open."""
    saved = {k: os.environ.get(k) for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    os.environ["OPENAI_BASE_URL"] = base_url
    os.environ["OPENAI_API_KEY"] = DEMO_KEY
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def record_and_inspect(path: Path, *, include: bool = False, stream: bool = False) -> int:
    """Record, then open the inspector while the simulator keeps running, so `d` fetches
    the simulator's live provider copy (the environment points the diff at it)."""
    from traceview.sim.server import SimServer

    with SimServer() as sim:
        try:
            conversation = record_claims(path, sim.base_url, include=include, stream=stream)
        except OSError as exc:
            print(f"traceview demo: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print(f"traceview demo: recorded conversation {conversation} (4 turns) to {path}")
        try:
            from traceview.ui.app import run_inspector
        except ImportError:
            print(f"  inspect it with: traceview report {path}")
            return 0
        with _provider_env(sim.base_url):
            return run_inspector([str(path)])


def run_ab(out: str | None, *, no_open: bool = False) -> int:
    """``traceview demo --ab [--out DIR] [--no-open]``."""
    from traceview.experiment.demo import run_ab_demo

    folder = Path(out or f"traceview-ab-demo-{time.strftime('%Y%m%d-%H%M%S')}")
    if (folder / "manifest.json").exists():
        print(f"traceview demo: {folder} already holds a run; choose another --out",
              file=sys.stderr)
        return 2
    try:
        m = run_ab_demo(folder, progress=sys.stderr)
    except (OSError, sqlite3.Error) as exc:  # arm A's store is SQLite: a full disk is its error
        print(f"traceview demo: cannot write {folder}: {getattr(exc, 'strerror', None) or exc}",
              file=sys.stderr)
        return 1
    print(f"traceview demo: {m['status']} — {len(m['completed'])} units in {folder} "
          "(latencies simulated)")
    if no_open:
        print(f"  read it with: traceview compare {folder}")
        return 0
    try:
        from traceview.ui.compare_app import run_compare_app
    except ImportError:
        print(f"  read it with: traceview compare {folder}")
        return 0
    return run_compare_app([str(folder)])
