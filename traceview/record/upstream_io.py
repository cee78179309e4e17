"""The proxy's upstream connections: httpcore2's network interface on asyncio transports.

httpcore2's default backend (anyio) pays on every read a cancel scope for the timeout, a
pause and a resume of the socket's reading, and a yield to the event loop even when bytes
are already there. The proxy reads once per stream chunk when a provider paces its tokens,
so that is paid per chunk. Here the protocol fills a buffer as bytes arrive; a read takes
from it without waiting when it holds something, and otherwise waits with one timer.

Writes are joined: httpcore2 writes a request's head and its body apart, and each write on
its own is a send, a segment and a wake-up of the upstream. A small write is held until the
next write, the first read (the request is whole once its response is awaited) or the end
of the event loop's current step, whichever comes first, so a request leaves in one send.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore2

# Past this much unread upstream data the socket stops being read (back-pressure), and
# below half of it reading resumes: memory per connection stays bounded.
HIGH_WATER = 256 * 1024
# Writes up to this size are held to be joined with the next (a request's head and body);
# a larger one goes at once, after what is held.
JOIN_BELOW = 64 * 1024


class _Buffered(asyncio.Protocol):
    """Bytes as they arrive, and whoever waits for them or for the writer to drain."""

    def __init__(self) -> None:
        self.transport: Any = None  # the one reads and writes go through (TLS or not)
        self.buffer = bytearray()
        self.paused = False
        self.closed = False
        self.error: Exception | None = None
        self.reader: asyncio.Future[None] | None = None
        self.writable = True
        self.drained: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # until a TLS layer takes its place (_Stream)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > HIGH_WATER and not self.paused:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.closed = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed, self.error, self.writable = True, exc, True
        self._wake()

    def pause_writing(self) -> None:
        self.writable = False

    def resume_writing(self) -> None:
        self.writable = True
        self._wake()

    def _wake(self) -> None:
        for waiter in (self.reader, self.drained):
            if waiter is not None and not waiter.done():
                waiter.set_result(None)


async def _wait(proto: _Buffered, slot: str, timeout: float | None, late: type[Exception]) -> None:
    """Wait for ``proto`` to wake ``slot``; ``late`` after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[None] = loop.create_future()
    setattr(proto, slot, waiter)

    def expire() -> None:
        if not waiter.done():
            waiter.set_exception(late(f"no progress from the upstream in {timeout:g} s"))

    timer = loop.call_later(timeout, expire) if timeout is not None else None
    try:
        await waiter
    finally:
        setattr(proto, slot, None)
        if timer is not None:
            timer.cancel()


class _Stream(httpcore2.AsyncNetworkStream):
    def __init__(self, transport: Any, proto: _Buffered,
                 loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._transport = transport
        self._proto = proto
        proto.transport = transport
        self._loop = loop
        self._held = b""  # written, not yet handed to the transport (see the module's doc)

    def _flush(self) -> None:
        """Hand what is held to the transport (a closed one drops it: the read says why)."""
        held, self._held = self._held, b""
        if held and not self._transport.is_closing():
            self._transport.write(held)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._held:
            self._flush()
        proto = self._proto
        while not proto.buffer and not proto.closed:
            await _wait(proto, "reader", timeout, httpcore2.ReadTimeout)
        if not proto.buffer:
            if proto.error is not None:
                raise httpcore2.ReadError(str(proto.error))
            return b""
        if len(proto.buffer) <= max_bytes:  # the usual case: all of it, copied once
            data = bytes(proto.buffer)
            proto.buffer.clear()
        else:
            data = bytes(proto.buffer[:max_bytes])
            del proto.buffer[:max_bytes]
        if proto.paused and len(proto.buffer) <= HIGH_WATER // 2:
            proto.paused = False
            self._transport.resume_reading()
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        if self._proto.closed or self._transport.is_closing():
            raise httpcore2.WriteError("the upstream connection is closed")
        if len(buffer) >= JOIN_BELOW or self._loop is None:
            self._flush()
            self._transport.write(buffer)
        elif self._held:
            self._held += buffer
            if len(self._held) >= JOIN_BELOW:  # what is held stays bounded
                self._flush()
        else:
            self._held = bytes(buffer)
            self._loop.call_soon(self._flush)  # at the latest when this step ends
        while not self._proto.writable:
            await _wait(self._proto, "drained", timeout, httpcore2.WriteTimeout)

    async def aclose(self) -> None:
        self._flush()
        self._transport.close()

    async def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore2.AsyncNetworkStream:
        self._flush()
        loop = asyncio.get_running_loop()
        try:
            transport = await loop.start_tls(self._transport, self._proto, ssl_context,
                                             server_hostname=server_hostname,
                                             ssl_handshake_timeout=timeout)
        except TimeoutError as exc:
            self._transport.close()
            raise httpcore2.ConnectTimeout(str(exc)) from exc
        except (OSError, ssl.SSLError) as exc:
            self._transport.close()
            raise httpcore2.ConnectError(str(exc)) from exc
        return _Stream(transport, self._proto, loop)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # an idle connection the upstream spoke on or closed
            return bool(self._proto.buffer) or self._proto.closed
        name = {"client_addr": "sockname", "server_addr": "peername"}.get(info, info)
        if name in ("ssl_object", "sockname", "peername", "socket"):
            return self._transport.get_extra_info(name)
        return None


class AsyncioBackend(httpcore2.AsyncNetworkBackend):
    """Connections for httpcore2's pool, read through :class:`_Buffered`."""

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None,
                          ) -> httpcore2.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = (local_address, 0) if local_address else None
        transport, proto = await _connect(loop.create_connection(
            _Buffered, host, port, local_addr=local), timeout)
        for option in socket_options or ():
            transport.get_extra_info("socket").setsockopt(*option)
        return _Stream(transport, proto, loop)

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None,
                                  ) -> httpcore2.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        transport, proto = await _connect(loop.create_unix_connection(_Buffered, path),
                                          timeout)
        return _Stream(transport, proto, loop)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _connect(opening: Any, timeout: float | None) -> tuple[Any, _Buffered]:
    try:
        async with asyncio.timeout(timeout):
            transport, proto = await opening
    except TimeoutError as exc:
        raise httpcore2.ConnectTimeout(f"no connection in {timeout:g} s") from exc
    except OSError as exc:
        raise httpcore2.ConnectError(str(exc)) from exc
    return transport, proto
