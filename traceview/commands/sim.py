"""``traceview sim``: run the simulator standalone (for your own tests, or ``--base-url``)."""

from __future__ import annotations

import argparse
import ipaddress
import sys

from traceview.commands.numbers import PORT
from traceview.sim.server import SimServer, parse_fault

LOOPBACK_NAMES = ("localhost",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1, loopback only)")
    parser.add_argument("--port", type=PORT, default=0,
                        help="port to listen on (default: a free port, printed at start)")
    parser.add_argument("--seed", default=None,
                        help="deterministic ids and a frozen clock (same input, same output)")
    parser.add_argument("--quiet", action="store_true", help="do not log each request")
    parser.add_argument(
        "--fault", action="append", default=[], metavar="KIND[:TIMES][@PATH]",
        help="rehearse a failure (repeatable): an HTTP status (401, 403, 404, 429 with "
             "Retry-After, 500, 503), slow[=SECONDS], cut (stream cut mid-way), malformed (a "
             "page that is not JSON), endless (a listing whose cursor never ends). TIMES: how "
             "many requests get it (default 1; 0 = every request); PATH: only requests whose "
             "path starts with it, e.g. 429:2@/v1/responses")
    parser.add_argument(
        "--costs", action="append", default=[], metavar="FILE",
        help="serve these saved Costs/Usage API pages at /v1/organization/… (repeatable; "
             "admin keys sk-admin-… only), to rehearse `traceview reconcile --live`")


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(ns: argparse.Namespace) -> int:
    if not 0 <= ns.port <= 65535:
        print(f"traceview sim: --port must be between 0 and 65535, not {ns.port}",
              file=sys.stderr)
        return 2
    try:
        faults = [parse_fault(spec) for spec in ns.fault]
    except ValueError as exc:
        print(f"traceview sim: {exc}", file=sys.stderr)
        return 2
    try:
        sim = SimServer(ns.host, ns.port, seed=ns.seed, log=None if ns.quiet else sys.stderr)
    except OSError as exc:
        host = f"[{ns.host}]" if ":" in ns.host else ns.host
        print(f"traceview sim: cannot listen on {host}:{ns.port}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    if not _is_loopback(ns.host):
        print(f"traceview sim: warning: listening on {ns.host}, not loopback; anyone who can "
              "reach this address can use it (it accepts any key)", file=sys.stderr)
    for fault in faults:
        sim.inject(**fault)  # type: ignore[arg-type]
    if ns.costs:
        from traceview.provider.org_pages import PageError, load_saved

        try:
            sim.org.load(load_saved(ns.costs))
        except PageError as exc:
            sim.httpd.server_close()
            print(f"traceview sim: {exc}", file=sys.stderr)
            return 2
    print(f"traceview sim listening on {sim.base_url}", flush=True)
    print(f"  OPENAI_BASE_URL={sim.base_url} OPENAI_API_KEY=sk-anything  (Ctrl-C to stop)",
          flush=True)
    if faults:
        print(f"  faults: {', '.join(ns.fault)}", flush=True)
    try:
        sim.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        sim.httpd.server_close()
    return 0
