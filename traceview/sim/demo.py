"""``traceview demo``: record the claims scenario against the simulator, then inspect it.

Needs no API key and no network: the simulator runs on a free loopback port and the
real openai SDK talks to it through the recorder.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

DEMO_KEY = "sk-traceview-demo-0000000000000000"  # not a key; the simulator accepts any


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


def record_demo(path: str | Path, *, include: bool = False, stream: bool = False) -> str:
    """Run the scenario into ``path``; returns the conversation id."""
    import traceview.record
    from traceview.sim.scenario import run_claims
    from traceview.sim.server import SimServer

    with SimServer() as sim:
        client = traceview.record.client(path, base_url=sim.base_url, api_key=DEMO_KEY,
                                         max_retries=0)
        try:
            return run_claims(client, include=include, stream=stream)
        finally:
            client.close()


def run(ns: argparse.Namespace) -> int:
    if getattr(ns, "ab", False):
        from traceview.experiment.demo import run as run_ab

        return run_ab(ns)
    path = Path(ns.out or f"traceview-demo-{time.strftime('%Y%m%d-%H%M%S')}.jsonl")
    if path.exists() and path.stat().st_size:
        print(f"traceview demo: {path} already exists; choose another --out", file=sys.stderr)
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


def record_and_inspect(path: Path, *, include: bool = False, stream: bool = False) -> int:
    """Record, then open the inspector while the simulator keeps running, so `d` fetches
    the simulator's live provider copy (the environment points the diff at it)."""
    import os

    import traceview.record
    from traceview.sim.scenario import run_claims
    from traceview.sim.server import SimServer

    with SimServer() as sim:
        client = traceview.record.client(path, base_url=sim.base_url, api_key=DEMO_KEY,
                                         max_retries=0)
        try:
            conversation = run_claims(client, include=include, stream=stream)
        except OSError as exc:
            print(f"traceview demo: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        finally:
            client.close()
        print(f"traceview demo: recorded conversation {conversation} (4 turns) to {path}")
        try:
            from traceview.ui.app import run_inspector
        except ImportError:
            print(f"  inspect it with: traceview report {path}")
            return 0
        saved = {k: os.environ.get(k) for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
        os.environ["OPENAI_BASE_URL"] = sim.base_url
        os.environ["OPENAI_API_KEY"] = DEMO_KEY
        try:
            return run_inspector([str(path)])
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
