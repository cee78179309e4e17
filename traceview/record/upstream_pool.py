"""The proxy's HTTP client: keep-alive connections per upstream, each an `upstream_io`
connection (httptools parses the responses), given to the recording transport as an
``httpx2.AsyncBaseTransport``.

A request's head and body leave in one write; a streamed upload follows its head as it
arrives (chunked when its length is unknown), waiting whenever the upstream's socket is
full. A response is returned at its head; its body is read by whoever relays it, one chunk
per arrival, and the connection goes back to the pool once the body has ended whole. A
connection is never reused after a response that was cut, was not read to its end, or
said ``Connection: close``; an idle one is let go after KEEPALIVE_S. An outgoing proxy
(``HTTPS_PROXY``…) is reached as the SDK would: a CONNECT tunnel for an https upstream,
the full URL as the request target for an http one.
"""

from __future__ import annotations

import asyncio
import base64
import ssl
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx2

from traceview.record.upstream_io import UpstreamConnection

KEEPALIVE_S = 5.0  # an idle connection older than this is closed, not reused (httpcore's)
IDLE_PER_ORIGIN = 100  # idle connections kept per upstream (the SDK's keep-alive limit)

Origin = tuple[bytes, bytes, int]


def ssl_context() -> ssl.SSLContext:
    """The SDK's own: the system's (or ``SSL_CERT_FILE``'s) trusted certificates, HTTP/1.1."""
    context = httpx2.create_ssl_context()
    context.set_alpn_protocols(["http/1.1"])
    return context


class UpstreamPool(httpx2.AsyncBaseTransport):
    """Requests sent on pooled upstream connections (optionally through ``proxy``)."""

    def __init__(self, proxy: str | None = None,
                 context: ssl.SSLContext | None = None) -> None:
        self._context = context or ssl_context()
        self._proxy = urlsplit(proxy) if proxy else None
        self._idle: dict[Origin, list[UpstreamConnection]] = {}
        self._open: set[UpstreamConnection] = set()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        timeouts = request.extensions.get("timeout", {})
        url = request.url
        origin = (url.raw_scheme, url.raw_host, url.port or (443 if url.raw_scheme == b"https"
                                                               else 80))
        conn = self._reuse(origin) or await self._connect(origin, timeouts.get("connect"))
        handed = False
        try:
            conn.busy = True
            conn.begin(request.method == "HEAD")
            await _send(conn, request, self._target(url), timeouts.get("write"))
            while not conn.has_head:
                if conn.closed:
                    raise conn.error or httpx2.RemoteProtocolError(
                        "Server disconnected without sending a response.")
                await conn.wait("reader", timeouts.get("read"), httpx2.ReadTimeout)
            response = httpx2.Response(
                conn.status, headers=conn.headers,
                stream=_Body(self, origin, conn, timeouts.get("read")),
                extensions={"http_version": b"HTTP/" + conn.parser.get_http_version().encode()})
            handed = True
            return response
        finally:
            if not handed:
                self._drop(conn)

    def _target(self, url: httpx2.URL) -> bytes:
        """The request target: the path, or the whole URL for a plain-HTTP outgoing proxy."""
        if self._proxy is not None and url.raw_scheme == b"http":
            return url.raw_scheme + b"://" + url.netloc + url.raw_path
        return url.raw_path

    def _reuse(self, origin: Origin) -> UpstreamConnection | None:
        idle = self._idle.get(origin)
        while idle:
            conn = idle.pop()
            if conn.closed or conn.loop.time() - conn.idle_since > KEEPALIVE_S:
                self._drop(conn)
                continue
            return conn
        return None

    def release(self, origin: Origin, conn: UpstreamConnection) -> None:
        """Keep a connection whose response ended whole, or close it."""
        conn.busy = False
        idle = self._idle.setdefault(origin, [])
        if not conn.reusable() or len(idle) >= IDLE_PER_ORIGIN:
            self._drop(conn)
            return
        conn.begin(False)
        conn.idle_since = conn.loop.time()
        idle.append(conn)

    def _drop(self, conn: UpstreamConnection) -> None:
        conn.busy = False
        self._open.discard(conn)
        if conn.transport is not None:
            conn.transport.close()

    async def _connect(self, origin: Origin, timeout: float | None) -> UpstreamConnection:
        scheme, host, port = origin
        name = host.decode("ascii")
        proxy = self._proxy
        tls = self._context if scheme == b"https" else None
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                if proxy is None:
                    _, conn = await loop.create_connection(
                        lambda: UpstreamConnection(loop), name, port, ssl=tls,
                        server_hostname=name if tls else None)
                else:
                    conn = await self._via_proxy(proxy, name, port, tls)
        except TimeoutError as exc:
            raise httpx2.ConnectTimeout(f"no connection in {timeout:g} s") from exc
        except (OSError, ssl.SSLError) as exc:
            raise httpx2.ConnectError(str(exc)) from exc
        self._open.add(conn)
        return conn

    async def _via_proxy(self, proxy: Any, host: str, port: int,
                         tls: ssl.SSLContext | None) -> UpstreamConnection:
        """A connection to the outgoing proxy; tunnelled to the upstream for TLS."""
        loop = asyncio.get_running_loop()
        secure = ssl_context() if proxy.scheme == "https" else None
        _, conn = await loop.create_connection(
            lambda: UpstreamConnection(loop), proxy.hostname, proxy.port or (443 if secure else 80),
            ssl=secure, server_hostname=proxy.hostname if secure else None)
        if tls is None:
            return conn
        authority = f"{host}:{port}".encode()
        head = b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (
            authority, authority, _proxy_auth(proxy))
        conn.busy = True
        conn.begin(True)
        conn.transport.write(head)
        while not conn.has_head:
            if conn.closed:
                raise conn.error or httpx2.ProxyError("the proxy closed the connection")
            await conn.wait("reader", None, httpx2.ConnectTimeout)
        if not 200 <= conn.status < 300:
            conn.transport.close()
            raise httpx2.ProxyError(f"the proxy answered CONNECT with {conn.status}")
        transport = await loop.start_tls(conn.transport, conn, tls, server_hostname=host)
        if transport is None:  # closed during the handshake
            raise httpx2.ConnectError("the tunnel closed during the TLS handshake")
        fresh = UpstreamConnection(loop)
        fresh.connection_made(transport)
        transport.set_protocol(fresh)
        return fresh

    async def aclose(self) -> None:
        for conn in list(self._open):
            self._drop(conn)
        self._idle.clear()


def _proxy_auth(proxy: Any) -> bytes:
    if proxy.username is None:
        return b""
    token = f"{unquote(proxy.username)}:{unquote(proxy.password or '')}".encode()
    return b"Proxy-Authorization: Basic " + base64.b64encode(token) + b"\r\n"


async def _send(conn: UpstreamConnection, request: httpx2.Request, target: bytes,
                timeout: float | None) -> None:
    """The request on the wire: head and body in one write, or a streamed body after its
    head as it arrives (chunked when the head says so)."""
    head = b"%s %s HTTP/1.1\r\n%s\r\n" % (
        request.method.encode(), target,
        b"".join(k + b": " + v + b"\r\n" for k, v in request.headers.raw))
    try:
        body: bytes | None = request.content
    except httpx2.RequestNotRead:
        body = None
    if conn.closed:
        raise conn.error or httpx2.WriteError("the upstream connection is closed")
    conn.transport.write(head + body if body is not None else head)
    if body is not None:
        return await _drained(conn, timeout)
    chunked = any(k.lower() == b"transfer-encoding" for k, _ in request.headers.raw)
    async for part in request.stream:  # type: ignore[union-attr]
        if conn.closed or conn.has_head:  # answered (or hung up on) before it ended
            conn.sent_whole = False
            return
        if part:
            conn.transport.write(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)
            await _drained(conn, timeout)
    if chunked and not conn.closed:
        conn.transport.write(b"0\r\n\r\n")


async def _drained(conn: UpstreamConnection, timeout: float | None) -> None:
    while not conn.writable and not conn.closed:
        await conn.wait("drained", timeout, httpx2.WriteTimeout)


class _Body(httpx2.AsyncByteStream):
    """A response's body as it arrives: each arrival's bytes one chunk."""

    def __init__(self, pool: UpstreamPool, origin: Origin, conn: UpstreamConnection,
                 timeout: float | None) -> None:
        self._pool, self._origin, self._conn, self._timeout = pool, origin, conn, timeout
        self._done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        conn = self._conn
        try:
            while True:
                if conn.body:
                    yield conn.take_body()
                elif conn.ended():
                    break
                else:
                    await conn.wait("reader", self._timeout, httpx2.ReadTimeout)
        except BaseException:
            self._finish(False)
            raise
        self._finish(True)

    def _finish(self, whole: bool) -> None:
        if self._done:
            return
        self._done = True
        if whole:
            self._pool.release(self._origin, self._conn)
        else:
            self._pool._drop(self._conn)

    async def aclose(self) -> None:
        self._finish(False)  # a body not read to its end leaves its connection unusable
