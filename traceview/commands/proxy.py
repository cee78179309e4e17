"""``traceview proxy -o CAPTURE``: record any client's OpenAI traffic through a local proxy.

Exit 2 on an unusable flag or upstream, checked once at start so a bad URL is one line now
rather than a traceback (or a 502 on every request) later.
"""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import socket
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from traceview.commands.outputs import PathRefused, refuse_output
from traceview.record.limits import DEFAULT_TIMEOUT, LOOPBACK


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", required=True, metavar="CAPTURE",
                   help="capture file to append to (with --rotate: a symlink to the current "
                        "file, the files beside it named CAPTURE-DATE.jsonl)")
    p.add_argument("--port", type=int, default=8080, help="port to listen on (default 8080)")
    p.add_argument("--host", default=LOOPBACK,
                   help="address to listen on (default 127.0.0.1: loopback only)")
    p.add_argument("--upstream", metavar="URL", default=None,
                   help="where requests go (default: $OPENAI_BASE_URL of this process, else "
                        "https://api.openai.com/v1)")
    p.add_argument("--rotate", metavar="daily|SIZE", default=None,
                   help="start a new capture file each day or at a size such as 100MB")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"upstream timeout per request (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--fsync", action="store_true",
                   help="force each record to disk as it is written (just after the "
                   "exchange is relayed)")


WILDCARD = ("", "0.0.0.0", "::")


def _addresses(name: str) -> set[str]:
    try:
        return {str(info[4][0]) for info in socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)}
    except (OSError, UnicodeError):
        return set()


def _is_local(address: str) -> bool:
    """An address of this machine: one a socket can bind to."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.bind((address, 0))
    except OSError:
        return False
    return True


def _same_endpoint(upstream: str, host: str, port: int) -> bool:
    """Whether the upstream is this proxy: compared by resolved address, so a name, another
    loopback address or (listening on every interface) any address of this machine counts."""
    parts = urlsplit(upstream)
    default = 443 if parts.scheme == "https" else 80
    if (parts.port or default) != port or not parts.hostname:
        return False
    theirs = _addresses(parts.hostname)
    if host in WILDCARD:
        return any(_is_local(a) for a in theirs)
    mine = _addresses(host)
    loopback = {a for a in mine | theirs if ipaddress.ip_address(a.split("%")[0]).is_loopback}
    return bool(mine & theirs) or (bool(loopback) and loopback == mine | theirs)


def _beyond_loopback(host: str) -> bool:
    addresses = _addresses(host) if host not in WILDCARD else {"0.0.0.0"}
    return not addresses or any(
        not ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addresses)


def _upstream_fault(upstream: str) -> str | None:
    """Why ``upstream`` cannot be forwarded to, or None: checked once at start, so a bad
    URL is one line now rather than a traceback (or a 502 on every request) later."""
    import httpx2

    try:
        parts = urlsplit(upstream)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
        httpx2.URL(upstream)
    except (ValueError, httpx2.InvalidURL) as exc:
        return f"not a usable URL ({exc})"
    if not parts.scheme.startswith("http") or not parts.hostname:
        return "expected an http(s) URL"
    if parts.query or parts.fragment or upstream.rstrip().endswith(("?", "#")):
        # Each client's path is joined after it: behind a query it went nowhere it should.
        return "a query or fragment (?…, #…) cannot be joined to each request's path; give " \
               "the base URL alone (a client's own query is forwarded)"
    return None


def run(ns: argparse.Namespace) -> int:
    from traceview.safety.redact import redact_text
    from traceview.safety.sanitise import visible as _visible

    def visible(text: str) -> str:
        return _visible(redact_text(text))

    missing = [m for m in ("uvicorn", "httptools") if importlib.util.find_spec(m) is None]
    if missing:  # the [proxy] extra: the listening side and the upstream's parser
        print(f"traceview proxy: {' and '.join(missing)} "
              f"{'is' if len(missing) == 1 else 'are'} not installed: pip install "
              "'traceview[proxy]' (in a clone: .venv/bin/pip install -e '.[proxy]')",
              file=sys.stderr)
        return 2
    # Imported only now: the upstream's connections need httptools, and the parser above
    # must not (without the extra, `--help` listed no option and every flag was refused).
    from traceview.record.proxy_server import ProxyServer
    from traceview.record.rotate import RotateError
    from traceview.record.upstream import default_upstream

    upstream = ns.upstream or default_upstream()
    if not 0 <= ns.port <= 65535 or not ns.timeout > 0:
        print("traceview proxy: --port must be 0-65535 and --timeout above 0", file=sys.stderr)
        return 2
    fault = _upstream_fault(upstream)
    if fault:
        print(f"traceview proxy: --upstream {visible(upstream)}: {fault}", file=sys.stderr)
        return 2
    if _same_endpoint(upstream, ns.host, ns.port):
        print(f"traceview proxy: the upstream {visible(upstream)} is this proxy itself "
              "(is OPENAI_BASE_URL set to the proxy in this shell?); pass --upstream",
              file=sys.stderr)
        return 2
    try:
        refuse_output(ns.output, [], force=True)  # appending is the point; a FIFO or device is not
    except PathRefused as exc:
        print(f"traceview proxy: -o {visible(str(exc))}", file=sys.stderr)
        return 2
    if _beyond_loopback(ns.host):
        print(f"traceview proxy: warning: listening on {visible(ns.host)}, beyond loopback: "
              "any host that can reach this port can send requests through it upstream, and "
              "every call is recorded here",
              file=sys.stderr)
    try:
        server = ProxyServer(ns.output, upstream=upstream, host=ns.host, port=ns.port,
                             rotate=ns.rotate, timeout=ns.timeout, fsync=ns.fsync)
    except (RotateError, OSError) as exc:
        print(f"traceview proxy: {visible(str(exc))}", file=sys.stderr)
        return 2
    current = Path(ns.output)
    print(f"traceview proxy: recording into {visible(str(current))}; point clients at\n"
          f"  OPENAI_BASE_URL={server.base_url}\n"
          f"forwarding to {visible(upstream)} (Ctrl-C to stop)", file=sys.stderr)
    _say_when_stopping(server)
    try:
        server.serve_forever()
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it shut down on
        pass
    finally:
        server.recorder.close()
    print("traceview proxy: stopped", file=sys.stderr)
    return 0


def _say_when_stopping(server: Any) -> None:
    """On the first Ctrl-C with answers still open, say what the proxy waits for: it
    waited for them in silence, for ever when a client had stopped reading."""
    uvicorn = server.server
    handle_exit = uvicorn.handle_exit

    def handle(sig: int, frame: Any) -> None:
        open_now = len(uvicorn.server_state.tasks)
        if not uvicorn.should_exit and open_now:
            print(f"traceview proxy: stopping once {open_now} open response(s) end; Ctrl-C "
                  "again to stop now (they are recorded as cut)", file=sys.stderr, flush=True)
        handle_exit(sig, frame)

    uvicorn.handle_exit = handle
