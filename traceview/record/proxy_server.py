"""`traceview proxy`: the recording proxy on a socket (uvicorn), in a thread or in the CLI.

In-process use (tests, benchmarks)::

    with ProxyServer("trace.jsonl", upstream=sim.base_url) as proxy:
        client = OpenAI(base_url=proxy.base_url, api_key=...)

The listening socket is bound before the server starts, so ``base_url`` is known (port 0
picks a free port) and a client may connect at once: the kernel queues it until uvicorn
accepts. ``start()`` returns only once uvicorn has finished starting.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

from traceview.record.proxy import DEFAULT_TIMEOUT, RecordingProxy, default_upstream
from traceview.record.recorder import Clock, Recorder
from traceview.record.rotate import RotateError, RotatingCaptureWriter, parse_rotate
from traceview.record.writer import CaptureWriter

LOOPBACK = "127.0.0.1"


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY only on sockets that say they are TCP;
    # without it every response waits ~40 ms for the client's delayed ACK (Nagle).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.setblocking(False)
    return sock


def _writer(output: str | os.PathLike[str], rotate: str | None, fsync: bool) -> CaptureWriter:
    if rotate:
        return RotatingCaptureWriter(output, parse_rotate(rotate), fsync=fsync)
    return CaptureWriter(output, fsync=fsync)


class ProxyServer:
    """uvicorn serving :class:`RecordingProxy` on one pre-bound socket; a context manager."""

    def __init__(self, output: str | os.PathLike[str] | Recorder, *, upstream: str | None = None,
                 host: str = LOOPBACK, port: int = 0, rotate: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT, fsync: bool = False,
                 clock: Clock | None = None) -> None:
        import uvicorn

        self.recorder = output if isinstance(output, Recorder) else Recorder(
            _writer(output, rotate, fsync), clock=clock)
        self.upstream = upstream or default_upstream()
        self.sock = _bind(host, port)
        self.app = RecordingProxy(self.recorder, self.upstream, timeout=timeout)
        config = uvicorn.Config(self.app, lifespan="on", log_level="warning", access_log=False,
                                timeout_keep_alive=75, loop="auto", http="auto")
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def base_url(self) -> str:
        host, port = self.sock.getsockname()[:2]
        host = f"[{host}]" if ":" in str(host) else host
        return f"http://{host}:{port}/v1"

    def _serve(self) -> None:
        import asyncio

        async def main() -> None:
            config = self.server.config
            if not config.loaded:
                config.load()
            self.server.lifespan = config.lifespan_class(config)
            await self.server.startup(sockets=[self.sock])
            self._ready.set()
            if self.server.should_exit:
                return
            await self.server.main_loop()
            await self.server.shutdown(sockets=[self.sock])

        try:
            asyncio.run(main())
        finally:
            self._ready.set()

    def start(self) -> ProxyServer:
        self._thread = threading.Thread(target=self._serve, name="traceview-proxy", daemon=True)
        self._thread.start()
        self._ready.wait()
        return self

    def serve_forever(self) -> None:
        """Run in this thread until Ctrl-C (uvicorn handles the signals)."""
        self.server.run(sockets=[self.sock])

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join()
        self.sock.close()
        self.recorder.close()

    def __enter__(self) -> ProxyServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ---- the command ------------------------------------------------------------------------------

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
                   help="force each record to disk before the response is relayed")


def _same_endpoint(upstream: str, host: str, port: int) -> bool:
    parts = urlsplit(upstream)
    names = {host, "localhost", "127.0.0.1", "::1"} if host in (LOOPBACK, "localhost") else {host}
    return parts.hostname in names and (parts.port or 80) == port


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
    return None


def run(ns: argparse.Namespace) -> int:
    from traceview.safety.redact import redact_text
    from traceview.safety.sanitise import visible as _visible

    def visible(text: str) -> str:
        return _visible(redact_text(text))

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
        server = ProxyServer(ns.output, upstream=upstream, host=ns.host, port=ns.port,
                             rotate=ns.rotate, timeout=ns.timeout, fsync=ns.fsync)
    except (RotateError, OSError) as exc:
        print(f"traceview proxy: {visible(str(exc))}", file=sys.stderr)
        return 2
    current = Path(ns.output)
    print(f"traceview proxy: recording into {visible(str(current))}; point clients at\n"
          f"  OPENAI_BASE_URL={server.base_url}\n"
          f"forwarding to {visible(upstream)} (Ctrl-C to stop)", file=sys.stderr)
    try:
        server.serve_forever()
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it shut down on
        pass
    finally:
        server.recorder.close()
    print("traceview proxy: stopped", file=sys.stderr)
    return 0

