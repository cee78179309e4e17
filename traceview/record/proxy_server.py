"""The recording proxy on a socket (uvicorn), in a thread or in the foreground (`traceview proxy`).

In-process use (tests, benchmarks)::

    with ProxyServer("trace.jsonl", upstream=sim.base_url) as proxy:
        client = OpenAI(base_url=proxy.base_url, api_key=...)

The listening socket is bound before the server starts, so ``base_url`` is known (port 0
picks a free port) and a client may connect at once: the kernel queues it until uvicorn
accepts. ``start()`` returns only once uvicorn has finished starting.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from typing import Any

from traceview.record.limits import LOOPBACK as LOOPBACK
from traceview.record.proxy import DEFAULT_TIMEOUT, RecordingProxy
from traceview.record.recorder import Clock, Recorder
from traceview.record.rotate import RotatingCaptureWriter, parse_rotate
from traceview.record.upstream import default_upstream
from traceview.record.writer import CaptureWriter

HEAD_TIMEOUT_S = 20.0  # a connection sends a whole request head within this, or is closed
BODY_GAP_S = 60.0  # …and, once its head is in, some of its body at least this often
JOIN_BELOW = 64 * 1024  # body bytes up to this size go out in one write with the head


class _HeadJoined:
    """A connection's transport as a response's writer sees it: the response head (uvicorn
    writes it alone, on ``http.response.start``) is held and goes out with the first body
    bytes, or when the event loop's current step ends: one send, one segment and one
    wake-up of the client for a whole small response instead of two. Body bytes are
    never held."""

    def __init__(self, transport: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._head = b""

    def write(self, data: bytes) -> None:
        if self._transport.is_closing():
            # The client is gone (its reset failed a send): the loop would drop this write
            # and log each one as "socket.send() raised exception." (hundreds a dropped
            # stream). The cut is recorded in the capture; a real send error still is logged.
            return
        if self._head:
            head, self._head = self._head, b""
            if len(data) < JOIN_BELOW:
                self._transport.write(head + data)
                return
            self._transport.write(head)
        elif data.startswith(b"HTTP/"):
            self._head = data
            self._loop.call_soon(self._release)
            return
        self._transport.write(data)

    def _release(self) -> None:
        head, self._head = self._head, b""
        if head and not self._transport.is_closing():
            self._transport.write(head)

    def close(self) -> None:
        self._release()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def _protocol() -> object:
    """uvicorn's HTTP protocol with a deadline on each request head: a connection that
    sends nothing, or half a head, is closed after HEAD_TIMEOUT_S (uvicorn only times out
    the idle gap *after* a response), so a thousand of them cannot take every descriptor;
    a body that stops arriving for BODY_GAP_S is closed too (its upstream request with it),
    unless the proxy itself paused reading it; and each response written through
    :class:`_HeadJoined`."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HeadDeadline(HttpToolsProtocol):
        _head_timer = None
        _joined: _HeadJoined | None = None

        def _arm(self, seconds: float | None = None) -> None:
            self._disarm()
            wait = HEAD_TIMEOUT_S if seconds is None else seconds
            self._head_timer = self.loop.call_later(wait, self._head_late)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_late(self) -> None:
            self._head_timer = None
            if self.flow.read_paused:  # the proxy holds the body back, not the client
                self._arm(BODY_GAP_S)
            elif not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: object) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            self._joined = _HeadJoined(transport, self.loop)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm()

        def on_headers_complete(self) -> None:
            self._arm(BODY_GAP_S)  # disarmed when the body is whole
            super().on_headers_complete()
            if self.cycle is not None and self._joined is not None:
                self.cycle.transport = self._joined  # type: ignore[assignment]

        def on_body(self, body: bytes) -> None:
            self._arm(BODY_GAP_S)
            super().on_body(body)

        def on_message_complete(self) -> None:
            self._disarm()
            super().on_message_complete()

    return HeadDeadline


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


GRACE = 5  # seconds an in-process stop() waits for exchanges in flight


class ProxyServer:
    """uvicorn serving :class:`RecordingProxy` on one pre-bound socket; a context manager."""

    def __init__(self, output: str | os.PathLike[str] | Recorder, *, upstream: str | None = None,
                 host: str = LOOPBACK, port: int = 0, rotate: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT, fsync: bool = False,
                 clock: Clock | None = None) -> None:
        import uvicorn

        # Bound first: a port another process holds makes no capture file.
        try:
            self.sock = _bind(host, port)
        except OSError as exc:
            shown = f"[{host}]" if ":" in host else host
            raise OSError(f"cannot listen on {shown}:{port}: {exc.strerror or exc}") from None
        try:
            self.recorder = output if isinstance(output, Recorder) else Recorder(
                _writer(output, rotate, fsync), clock=clock)
        except BaseException:
            self.sock.close()
            raise
        self.upstream = upstream or default_upstream()
        self.app = RecordingProxy(self.recorder, self.upstream, timeout=timeout)
        # The upstream's own `date` and `server` headers are relayed: uvicorn adding its
        # own gave each response two of each; nor are X-Forwarded-* read (proxy_headers).
        config = uvicorn.Config(self.app, lifespan="on", log_level="warning", access_log=False,
                                timeout_keep_alive=75, loop="auto", http=_protocol(),  # type: ignore[arg-type]
                                proxy_headers=False, server_header=False, date_header=False)
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def base_url(self) -> str:
        host, port = self.sock.getsockname()[:2]
        host = f"[{host}]" if ":" in str(host) else host
        return f"http://{host}:{port}/v1"

    def _serve(self) -> None:
        import asyncio

        async def main() -> None:
            self._loop = asyncio.get_running_loop()
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

    def flush(self, timeout: float = 30.0) -> None:
        """Write the records still waiting (the proxy writes them just after each answer):
        for a caller in another thread that reads the capture while the proxy runs."""
        loop = self._loop
        backlog = self.recorder.backlog
        if loop is None or backlog is None or loop.is_closed():
            return

        async def drain() -> None:
            backlog.drain()

        asyncio.run_coroutine_threadsafe(drain(), loop).result(timeout)

    def serve_forever(self) -> None:
        """Run in this thread until Ctrl-C (uvicorn handles the signals)."""
        self.server.run(sockets=[self.sock])

    def stop(self, grace: int = GRACE) -> None:
        """Stop serving: exchanges in flight get `grace` seconds to finish, then are
        cancelled (a client that sent half a request and stalled held stop() forever)."""
        self.server.config.timeout_graceful_shutdown = grace
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join()
        self.sock.close()
        self.recorder.close()

    def __enter__(self) -> ProxyServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
