"""A recording reverse proxy: any language's client, recorded like ``traceview.record``.

The application only changes its base URL (``OPENAI_BASE_URL=http://127.0.0.1:8080/v1``).
This module is the ASGI application; the listening side is uvicorn (``proxy_server.py``),
the request sent upstream is made in ``upstream.py`` and carried by a small keep-alive
client whose responses httptools parses (``upstream_pool.py``), wrapped in the recorder's
own :class:`AsyncRecordingTransport` — so a proxied exchange is written by exactly the code
that writes a recorded SDK call: same records, same redaction, same whole-line writes.

Request bodies are read whole (the record keeps their exact bytes), except large and
multipart uploads (also chunked ones of unknown length, once past 8 MB), which stream
upstream as they arrive; responses are relayed chunk by chunk as the upstream sends them,
never buffered, and recorded up to a cap (transport.BODY_CAP). Records are built and
written right after the relay, never on its path (`backlog.py`): a request's once it has
left, a response's once the client has its last byte.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2

from traceview.record.backlog import RecordBacklog
from traceview.record.limits import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from traceview.record.recorder import Recorder
from traceview.record.transport import EXCHANGE_EXTENSION, AsyncRecordingTransport
from traceview.record.upstream import (
    DEFAULT_UPSTREAM,
    HOP_BY_HOP_BYTES,
    Scope,
    outgoing,
    upstream_host,
    upstream_transport,
    upstream_url,
)
from traceview.safety.redact import redact_text

# Request bodies up to this size are read whole (the record keeps their exact bytes);
# larger ones, and every multipart upload, are streamed upstream as they arrive.
STREAM_UPLOADS_ABOVE = 8 << 20

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def _error_body(kind: str, message: str) -> bytes:
    import json

    return json.dumps({"error": {"message": message, "type": kind, "param": None,
                                 "code": kind}}).encode()


class RecordingProxy:
    """The ASGI app: forward each request upstream through a recording transport."""

    def __init__(self, recorder: Recorder, upstream: str = DEFAULT_UPSTREAM, *,
                 timeout: float = DEFAULT_TIMEOUT,
                 inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self.recorder = recorder
        self.upstream = upstream
        self._shown = redact_text(upstream)  # its password or key: the operator's, not a client's
        self.timeout = timeout
        self._inner = inner
        self._transport: AsyncRecordingTransport | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timeouts = {"connect": min(timeout, 10.0), "read": timeout, "write": timeout,
                          "pool": timeout}
        # This proxy's name in the Via header it adds upstream (RFC 9110 §7.6.3): a request
        # that comes back carrying it has gone round a loop of proxies (two pointed at each
        # other multiplied one call into thousands of records); the self-address check at
        # start cannot see a loop through another proxy.
        self._via = f"1.1 traceview-{secrets.token_hex(6)}".encode()

    def _upstream(self) -> AsyncRecordingTransport:
        """Built on first use, inside the server's event loop (its pool belongs to it).

        The transport is used without an ``httpx2.AsyncClient`` on purpose: a client keeps
        cookies from responses and sends them on later requests (one application's cookies
        would reach another's), adds headers of its own and follows redirects. A proxy
        wants none of that, and skipping it halves the proxy's own time per request.
        The recorder's records go through a backlog of this loop (`backlog.py`).
        """
        if self._transport is None:
            self._loop = asyncio.get_running_loop()  # kept: asking again reads the pid
            self.recorder.backlog = RecordBacklog(self._loop)
            inner = self._inner or upstream_transport(self.upstream)
            self._transport = AsyncRecordingTransport(self.recorder, inner)
        return self._transport

    async def aclose(self) -> None:
        """Close the upstream's connections and write every record still waiting."""
        if self._transport is not None:
            await self._transport.aclose()
            self._transport = None
        backlog, self.recorder.backlog = self.recorder.backlog, None
        if backlog is not None:
            backlog.drain()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._exchange(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            try:
                message = await receive()
            except asyncio.CancelledError:  # stopped at once (Ctrl-C twice): no shutdown
                asyncio.current_task().uncancel()  # type: ignore[union-attr]
                await self.aclose()  # event comes, and the loop's end cancels this task
                return
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _exchange(self, scope: Scope, receive: Receive, send: Send) -> None:
        first = await receive()
        if first["type"] == "http.disconnect":
            return
        length = _content_length(scope)
        content: bytes | AsyncIterator[bytes]
        if first.get("more_body") and length is not None and (
                length > STREAM_UPLOADS_ABOVE or _is_multipart(scope)):
            # A large upload goes on as it arrives, never held whole; like the recorder
            # with the SDK's multipart stream, its record keeps its length, not its bytes.
            content = _rest_of_body(first, receive)
        else:
            try:
                read = await _read_body(first, receive)
            except asyncio.CancelledError:  # stopped while the client was still sending:
                asyncio.current_task().uncancel()  # type: ignore[union-attr]
                await _reply_error(send, 503, "proxy_stopped", "traceview proxy: stopped "
                                   "before this request's body arrived; it was not sent")
                return  # nothing was forwarded, so nothing happened to record
            if read is None:
                return  # the client hung up mid-upload
            content = read
            if isinstance(read, bytes):
                length = None
        if any(k.lower() == b"via" and self._via in v for k, v in scope["headers"]):
            await _reply_error(send, 508, "proxy_loop", "traceview proxy: this request came "
                               "back to the proxy that sent it (a loop of proxies: check "
                               "each one's --upstream); not sent again")
            return
        # raw_path: the path as the client encoded it (``path`` is percent-decoded).
        raw_path = scope.get("raw_path")
        path = raw_path.decode("latin-1") if raw_path else scope["path"]
        request = outgoing(scope, upstream_url(self.upstream, path, scope["query_string"]),
                            upstream_host(self.upstream), content, length, self._timeouts,
                            self._via)
        try:
            response = await self._upstream().handle_async_request(request)
        except httpx2.TimeoutException as exc:
            await _reply_error(send, 504, "upstream_timeout",
                               f"traceview proxy: the upstream did not answer in time ({exc})")
            return
        except httpx2.HTTPError as exc:
            await _reply_error(send, 502, "upstream_unreachable",
                               f"traceview proxy: cannot reach the upstream {self._shown} "
                               f"({type(exc).__name__}: {exc})")
            return
        except ClientGone:
            return  # recorded by the transport as a failure of kind ClientGone
        await self._relay(response, receive, send)

    async def _relay(self, response: httpx2.Response, receive: Receive, send: Send) -> None:
        """Pass the body through as it arrives; a client that hangs up cancels the upstream.

        The body is pumped in this task; one watcher task waits for the client's
        disconnect and, if it comes first, cancels this task (a task and an
        ``asyncio.wait`` fewer per request than racing two tasks: bench/proxy.py). The
        watcher is started when the loop's current step ends, i.e. before the pump first
        waits; a body that is in whole (most answers) reaches the client first, and then
        no watcher is needed at all."""
        loop = self._loop or asyncio.get_running_loop()
        me = asyncio.current_task(loop)
        state = {"pumping": True, "cut": False}
        watchers: list[asyncio.Future[None]] = []

        def gone(fut: asyncio.Future[None]) -> None:
            if state["pumping"] and not fut.cancelled() and fut.exception() is None:
                state["cut"] = True
                me.cancel()  # type: ignore[union-attr]

        def watch() -> None:
            watcher = asyncio.ensure_future(_disconnected(receive))
            watcher.add_done_callback(gone)
            watchers.append(watcher)

        start = loop.call_soon(watch)
        try:
            try:
                await self._pump(response, send)
            except asyncio.CancelledError:
                # The client hung up, or the proxy was stopped with the answer still open
                # (Ctrl-C twice: the loop cancels it). Either way the record says it was cut;
                # the second was a traceback in uvicorn's log and a record that read whole.
                me.uncancel()  # type: ignore[union-attr]
                exchange = response.extensions.get(EXCHANGE_EXTENSION)
                if exchange is not None:
                    exchange.cut(*_CUT["client" if state["cut"] else "stopped"])
            finally:
                state["pumping"] = False
        finally:
            start.cancel()
            for watcher in watchers:
                watcher.cancel()
            # Closing the stream closes the upstream connection and writes the record.
            await response.stream.aclose()  # type: ignore[union-attr]

    async def _pump(self, response: httpx2.Response, send: Send) -> None:
        """Relay the body chunk by chunk, each as it arrives. The record is handed to the
        backlog when the upstream body ends and written after the client has the end. The
        head goes with the first body bytes when they are already in (one send to the
        client, proxy_server._HeadJoined)."""
        headers, sized = [], False
        for k, v in response.headers.raw:  # one pass, as read: no Headers lookups
            name = k.lower()
            if name == b"content-length":
                sized = True
            elif name in HOP_BY_HOP_BYTES:
                continue
            headers.append((k, v))
        await send({"type": "http.response.start", "status": response.status_code,
                    "headers": headers})
        try:
            async for chunk in response.stream:  # type: ignore[union-attr]
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except httpx2.HTTPError:
            # The upstream broke mid-body (recorded by the transport). A body of known length
            # cannot be ended short: what arrived was sent and the connection is left
            # unfinished, which the server closes — the client sees the cut, the log no
            # traceback. A stream is ended where it broke (no terminal event).
            if sized:
                return
        await send({"type": "http.response.body", "body": b"", "more_body": False})


_CUT = {"client": ("client_disconnected", "the client closed the connection before the "
                    "response ended; the upstream request was cancelled"),
        "stopped": ("proxy_stopped", "the proxy was stopped before the response ended; the "
                    "upstream request was cancelled")}


class ClientGone(Exception):
    """The client hung up while its request body was still being sent upstream."""


def _content_length(scope: Scope) -> int | None:
    for k, v in scope["headers"]:
        if k.lower() == b"content-length" and v.strip().isdigit():
            return int(v)
    return None


def _is_multipart(scope: Scope) -> bool:
    return any(k.lower() == b"content-type" and v.lower().startswith(b"multipart/")
               for k, v in scope["headers"])


async def _read_body(first: dict[str, Any],
                     receive: Receive) -> bytes | AsyncIterator[bytes] | None:
    """The request body whole when it ends within STREAM_UPLOADS_ABOVE (the record keeps
    its bytes); else, as soon as it passes that, what was read followed by the rest as it
    arrives (a chunked upload of unknown length is never held whole: its record says it
    was not kept). None when the client hangs up first."""
    body = bytearray(first.get("body", b""))
    more = first.get("more_body", False)
    while more and len(body) <= STREAM_UPLOADS_ABOVE:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        body += message.get("body", b"")
        more = message.get("more_body", False)
    if not more:
        return bytes(body)
    return _rest_of_body({"body": bytes(body), "more_body": True}, receive)


async def _rest_of_body(first: dict[str, Any], receive: Receive) -> AsyncIterator[bytes]:
    yield first.get("body", b"")
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone("the client hung up during its upload")
        yield message.get("body", b"")
        more = message.get("more_body", False)


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _reply_error(send: Send, status: int, kind: str, message: str) -> None:
    payload = _error_body(kind, message)
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload, "more_body": False})
