"""One upstream connection of the proxy: an asyncio protocol whose response parser is httptools.

The proxy's upstream side was httpcore2 over h11: a pure-Python parser walked every
response, and httpcore2's state machine wrapped each read and write. httptools (llhttp,
the parser uvicorn already uses for the client side; in the ``[proxy]`` extra) parses the
bytes as they arrive, in C, inside ``data_received``: a response's head and its body are
ready when the reader wakes, and the body bytes of one arrival are handed on as one chunk.

Past HIGH_WATER of unread body the socket stops being read (back-pressure) and below half
of it reading resumes, so memory per connection stays bounded. A request leaves in one
write (`upstream_pool.py` joins its head and body). The pool and the request's framing are
in `upstream_pool.py`.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httptools
import httpx2

# Past this much unread upstream body the socket stops being read (back-pressure), and
# below half of it reading resumes: memory per connection stays bounded.
HIGH_WATER = 256 * 1024


class UpstreamConnection(asyncio.Protocol):
    """A connection to the upstream and the response in progress on it, parsed as it
    arrives. One exchange at a time; :meth:`begin` readies it for the next. It keeps its
    event loop: asking for the running one reads the process id (a syscall) each time."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: Any = None  # the one reads and writes go through (TLS or not)
        self.parser = httptools.HttpResponseParser(self)
        self.closed = False  # the upstream closed, or the connection failed
        self.error: httpx2.TransportError | None = None
        self.writable = True
        self.reader: asyncio.Future[None] | None = None
        self.drained: asyncio.Future[None] | None = None
        self.busy = False
        self.idle_since = 0.0
        self.begin(False)

    def begin(self, head_only: bool) -> None:
        """Ready for the next response; ``head_only`` for one with no body whatever its
        headers say (the answer to HEAD or to CONNECT: llhttp cannot be told)."""
        self.head_only = head_only
        self.sent_whole = True  # the request went whole (an upload may be answered early)
        self.status = 0
        self.headers: list[tuple[bytes, bytes]] = []
        self.has_head = False  # a final (non-1xx) response's head is in
        self.framed = False  # its body has a length or chunks (else it ends at close)
        self.length: int | None = None  # its Content-Length
        self.received = 0  # its body bytes so far
        self.complete = False
        self.keep_alive = False
        self.body: list[bytes] = []
        self.buffered = 0
        self.paused = False

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # until a TLS layer takes its place

    def data_received(self, data: bytes) -> None:
        if not self.busy or self.complete:  # bytes nobody asked for: never reused
            self.fail(httpx2.RemoteProtocolError("the upstream sent bytes after its response"))
            return
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self.fail(httpx2.RemoteProtocolError(f"the upstream's response is not HTTP/1.1: "
                                                 f"{exc}"))
            return
        except httptools.HttpParserUpgrade:  # 101: the proxy never asks for another protocol
            self.fail(httpx2.RemoteProtocolError("the upstream switched protocols"))
            return
        if self.buffered > HIGH_WATER and not self.paused:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.closed = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed, self.writable = True, True
        if exc is not None and self.error is None:
            self.error = httpx2.ReadError(str(exc))
        self._wake()

    def pause_writing(self) -> None:
        self.writable = False

    def resume_writing(self) -> None:
        self.writable = True
        self._wake()

    # httptools callbacks
    def on_message_begin(self) -> None:
        self.headers = []

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self.status = self.parser.get_status_code()
        if 100 <= self.status < 200:
            return  # an interim answer (100 Continue): the final one follows
        self.has_head = True
        for name, value in self.headers:
            name = name.lower()
            if name == b"content-length" and value.strip().isdigit():
                self.length = int(value)
            self.framed = self.framed or name in (b"content-length", b"transfer-encoding")
        if self.head_only:
            self.complete = True

    def on_body(self, body: bytes) -> None:
        if not self.complete:
            self.body.append(body)
            self.buffered += len(body)
            self.received += len(body)

    def on_message_complete(self) -> None:
        if self.has_head and not self.head_only:
            self.complete = True
            self.keep_alive = self.parser.should_keep_alive()

    # used by the pool
    def fail(self, error: httpx2.TransportError) -> None:
        """The connection cannot go on: ``error`` is what its reader is told."""
        if self.error is None:
            self.error = error
        self.closed = True
        if self.transport is not None:
            self.transport.close()
        self._wake()

    def take_body(self) -> bytes:
        """The body bytes in so far, as one chunk (resumes reading below half the mark)."""
        data = self.body[0] if len(self.body) == 1 else b"".join(self.body)
        self.body, self.buffered = [], 0
        if self.paused:
            self.paused = False
            self.transport.resume_reading()
        return data

    def ended(self) -> bool:
        """Whether the body has ended, or raise why it cannot: a body with no length ends
        when the upstream closes; one with a length or chunks must arrive whole."""
        if self.complete:
            return True
        if not self.closed:
            return False
        if self.error is not None:
            raise self.error
        if self.framed:  # h11's words, as the records said before
            raise httpx2.RemoteProtocolError(
                "peer closed connection without sending complete message body " + (
                    f"(received {self.received} bytes, expected {self.length})"
                    if self.length is not None else "(incomplete chunked read)"))
        self.complete = True  # read until close: this is its end
        return True

    def reusable(self) -> bool:
        return (self.complete and self.keep_alive and self.sent_whole and not self.head_only
                and not self.closed and not self.body and not self.transport.is_closing())

    async def wait(self, slot: str, timeout: float | None, late: type[Exception]) -> None:
        """Wait for the protocol to wake ``slot`` ("reader" or "drained"); ``late`` after
        ``timeout`` seconds."""
        loop = self.loop
        waiter: asyncio.Future[None] = loop.create_future()
        setattr(self, slot, waiter)

        def expire() -> None:
            if not waiter.done():
                waiter.set_exception(late(f"no progress from the upstream in {timeout:g} s"))

        timer = loop.call_later(timeout, expire) if timeout is not None else None
        try:
            await waiter
        finally:
            setattr(self, slot, None)
            if timer is not None:
                timer.cancel()

    def _wake(self) -> None:
        for waiter in (self.reader, self.drained):
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
