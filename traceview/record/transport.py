"""httpx2 transports that record every exchange while delegating to a real transport.

The openai SDK accepts ``http_client=httpx2.Client(transport=...)``; recording at this
layer stores the exact request bytes the SDK put on the wire, every retry as its own
exchange, and streams as they are consumed (the response record is finished when the
SDK closes the stream, i.e. before ``responses.create`` hands the last event back).
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import AsyncIterator, Iterator
from functools import partial
from time import perf_counter
from typing import Any

import httpx2

from traceview.record.recorder import SAFE_REQUEST_HEADERS, SAFE_RESPONSE_HEADERS, Recorder
from traceview.safety.redact import SECRET_KEYS

# Every request header whose value is a secret: the names the redactor masks as fields
# (Authorization, api-key, Ocp-Apim-Subscription-Key, x-goog-api-key, …). Their values are
# masked wherever a record holds them, an upstream's echo included.
SECRET_HEADERS = tuple(sorted({name.replace("_", "-") for name in SECRET_KEYS}
                              | {"openai-api-key"}))


_BEGIN_HEADERS = frozenset(name.encode() for name in (
    *SECRET_HEADERS, *SAFE_REQUEST_HEADERS, "content-type", "content-length"))


def header_values(headers: httpx2.Headers, wanted: frozenset[bytes]) -> dict[str, str]:
    """``headers.get(name)`` for each wanted (lower-case) name, in one pass over the raw
    headers (each ``get`` re-derives the encoding and scans every header: a proxy pays it
    per request). Repeated headers are joined with ", ", as ``get`` joins them. An ASCII value
    reads the same in every encoding: the headers' own (a decode of all of them) is
    worked out only for a value that is not."""
    found: dict[bytes, list[bytes]] = {}
    for key, value in headers.raw:
        name = key.lower()
        if name in wanted:
            found.setdefault(name, []).append(value)
    out: dict[str, str] = {}
    for name, values in found.items():
        try:
            out[name.decode()] = ", ".join(v.decode("ascii") for v in values)
        except UnicodeDecodeError:
            out[name.decode()] = ", ".join(v.decode(headers.encoding) for v in values)
    return out


_SECRET_HEADERS = frozenset(SECRET_HEADERS)


def _begin(recorder: Recorder, request: httpx2.Request) -> str:
    """The exchange's link; its request record (headers read, secrets noted) is made by
    `_record_request`, now or, with a backlog (the proxy), once the request has gone."""
    link = recorder.new_link()
    try:
        size = len(request.content)
    except httpx2.RequestNotRead:  # streamed: its bytes are not kept
        size = 0
    recorder.later(partial(_record_request, recorder, request, link, recorder.clock.now()), size)
    return link


def _record_request(recorder: Recorder, request: httpx2.Request, link: str, ts: float) -> None:
    values = header_values(request.headers, _BEGIN_HEADERS)
    for name, value in values.items():  # the secret headers the request holds
        if name in _SECRET_HEADERS:
            recorder.note_secret(value)
    content_type = values.get("content-type", "")
    try:
        content = request.content
        raw: bytes | None = content
        length: int | None = len(content)
    except httpx2.RequestNotRead:  # multipart uploads and other generators
        raw = None
        header = values.get("content-length")
        length = int(header) if header and header.isdigit() else None
    raw_path = request.url.raw_path.decode("ascii", errors="replace")
    kept = {k: values[k] for k in SAFE_REQUEST_HEADERS if k in values}
    recorder.write_request(link, ts, request.method, raw_path, raw, content_type, length,
                           kept or None)


def _failure_kind(exc: BaseException) -> str:
    if isinstance(exc, httpx2.TimeoutException):
        return "timeout"
    if isinstance(exc, httpx2.ConnectError):
        return "connection_error"
    return type(exc).__name__


# The most of one body a record keeps: beyond it the body is relayed whole but recorded as
# its size only, so the proxy's memory does not grow with what it relays.
BODY_CAP = 32 * 1024 * 1024


def _decode(status: int, headers: httpx2.Headers, raw: bytes) -> bytes | None:
    """Undo a content-encoding other than gzip and deflate (br, zstd …; those two are
    decoded as the body passes, `_Exchange.keep`) the way the client itself would; None
    when the decoded body would pass BODY_CAP."""
    try:
        out = httpx2.Response(status, headers=headers, content=raw).read()
    except Exception:
        return raw
    return None if len(out) > BODY_CAP else out


# Read once per response, at its start: its type and encoding (how the body is kept and
# decoded) and the headers its record keeps.
_RESPONSE_HEADERS = frozenset(name.encode() for name in (
    *SAFE_RESPONSE_HEADERS, "content-type", "content-encoding"))
_INFLATED = {"gzip": 47, "x-gzip": 47, "deflate": 15}  # zlib's wbits for each encoding


def _inflater(encoding: str) -> Any:
    """A decoder fed as the body passes, for gzip and deflate; None for anything else."""
    wbits = _INFLATED.get(encoding.strip().lower())
    return None if wbits is None else zlib.decompressobj(wbits)


class _Exchange:
    """Collects one response body and writes its record exactly once."""

    def __init__(
        self, recorder: Recorder, link: str, started: float, response: httpx2.Response
    ) -> None:
        self.recorder = recorder
        self.link = link
        self.started = started
        self.status = response.status_code
        self.headers = response.headers
        self.values = start = header_values(response.headers, _RESPONSE_HEADERS)
        content_type = start.get("content-type", "")
        self.content_type = content_type
        self.stream = content_type.startswith("text/event-stream")
        # A stream's chunks stamped as they arrive (one clock read and two appends each):
        # their end offsets and arrival times, for each event's arrival (``event_ms``).
        self.stamped = self.stream and recorder.clock.timed
        self.ends: list[int] = []
        self.arrived: list[float] = []
        self.chunks: list[bytes] = []
        self.pending: bytes | None = None  # handed on, not yet kept
        self.size = 0  # bytes relayed, kept or not
        self.kept = 0  # bytes held for the record (decoded, for gzip and deflate)
        self.over = False  # passed BODY_CAP (or not its encoding): nothing more kept
        self.why: str | None = None  # why not, when not for the cap (the record says it)
        self.inflate = _inflater(start.get("content-encoding", ""))
        self.error: dict[str, str] | None = None
        self._done = False
        self._lock = threading.Lock()

    def arrive(self, chunk: bytes) -> None:
        """A chunk is in, about to be handed on: stamped now, kept once it has gone
        (`keep`), so nothing but a clock read stands between its arrival and its relay."""
        self.pending = chunk
        if self.stamped:
            self.arrived.append(perf_counter())

    def keep(self, chunk: bytes) -> None:
        """Hold a chunk handed on for the record, up to BODY_CAP in all. A gzip or deflate
        body is decoded as it passes, never past the cap: a small gzip of gigabytes
        costs at most BODY_CAP, and nothing is left to decode when the body ends."""
        self.pending = None
        self.size += len(chunk)
        if self.stamped:
            self.ends.append(self.size)
        if self.over:
            return
        if self.inflate is not None:
            try:
                chunk = self.inflate.decompress(chunk, BODY_CAP - self.kept + 1)
            except zlib.error:  # not the encoding it claims: recorded by size only
                self._drop(f"not the {self.values['content-encoding'].strip()} it is "
                           "labelled (content-encoding)")
                return
            if self.inflate.unconsumed_tail:
                self._drop()
                return
        self.kept += len(chunk)
        if self.kept > BODY_CAP:
            self._drop()
            return
        self.chunks.append(chunk)

    def _drop(self, why: str | None = None) -> None:
        """Past the cap: nothing more is kept, and what was is let go — the chunks' arrival
        stamps too (they index a body no longer kept): an endless stream held ~70 bytes a
        chunk for as long as it ran. ``why``: another reason than the cap, for the record."""
        self.over = True
        self.why = why
        self.chunks = []
        self.inflate = None
        self.stamped = False
        self.arrived = []
        self.ends = []

    def fail(self, exc: Exception) -> None:
        """The body stopped with an error: recorded with what arrived before it."""
        self.error = {"type": _failure_kind(exc), "message": str(exc)}

    def cut(self, kind: str, message: str) -> None:
        """The reader of the body went away (the proxy's client hung up)."""
        self.error = {"type": kind, "message": message}

    def finish(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        if self.pending is not None:  # a reader that stopped mid-body was handed it
            self.keep(self.pending)
        headers = self.values
        raw: bytes | None = None if self.over else b"".join(self.chunks)
        self.chunks = []
        chunk_ms = None
        if raw is not None and self.inflate is not None:
            raw += self.inflate.flush()
            raw = raw if len(raw) <= BODY_CAP else None
        elif raw is not None and headers.get("content-encoding"):
            raw = _decode(self.status, self.headers, raw)  # br, zstd: decoded at the end
        elif self.stamped and self.ends:  # offsets index the bytes as they arrived
            chunk_ms = (self.ends, [int(round((t - self.started) * 1000))
                                    for t in self.arrived])
        self.recorder.response(
            self.link,
            status_code=self.status,
            elapsed_ms=self.recorder.clock.elapsed_ms(self.started, headers),
            raw=raw if raw is not None else b"",
            not_kept=None if raw is not None else (
                self.size, self.why or f"over {BODY_CAP:,} bytes (decoded)"),
            content_type=self.content_type,
            headers=headers,
            stream=self.stream,
            error=self.error,
            chunk_ms=chunk_ms,
        )


class _TeeStream(httpx2.SyncByteStream):
    def __init__(self, inner: httpx2.SyncByteStream, exchange: _Exchange) -> None:
        self._inner = inner
        self._exchange = exchange

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self._inner:
                self._exchange.arrive(chunk)
                yield chunk
                self._exchange.keep(chunk)
        except Exception as exc:
            self._exchange.fail(exc)
            raise
        self._exchange.finish()

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            # A stream abandoned half-way is recorded with what arrived (no terminal event).
            self._exchange.finish()


class _AsyncTeeStream(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, exchange: _Exchange) -> None:
        self._inner = inner
        self._exchange = exchange

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                self._exchange.arrive(chunk)
                yield chunk
                self._exchange.keep(chunk)
        except Exception as exc:
            self._exchange.fail(exc)
            raise
        self._exchange.finish()

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            self._exchange.finish()


def _record_failure(recorder: Recorder, link: str, started: Any, exc: Exception) -> None:
    """A transport error (timeout, refused connection) becomes the response record."""
    recorder.failure(link, kind=_failure_kind(exc), message=str(exc),
                     elapsed_ms=recorder.clock.elapsed_ms(started, {}))


EXCHANGE_EXTENSION = "traceview.exchange"


def _teed(response: httpx2.Response, stream: Any) -> httpx2.Response:
    """The same response, its body read through the recording tee; the exchange rides in
    the extensions so a caller (the proxy) can say why a body was abandoned."""
    return httpx2.Response(status_code=response.status_code, headers=response.headers,
                           stream=stream, extensions={**response.extensions,
                                                      EXCHANGE_EXTENSION: stream._exchange})


class RecordingTransport(httpx2.BaseTransport):
    """Records through ``recorder`` and sends through ``inner`` (default: plain HTTP)."""

    def __init__(self, recorder: Recorder, inner: httpx2.BaseTransport | None = None) -> None:
        self.recorder = recorder
        self.inner = inner or httpx2.HTTPTransport(limits=_default_limits())

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        link = _begin(self.recorder, request)
        started = self.recorder.clock.start()
        try:
            response = self.inner.handle_request(request)
        except Exception as exc:
            _record_failure(self.recorder, link, started, exc)
            raise
        assert isinstance(response.stream, httpx2.SyncByteStream)
        return _teed(response, _TeeStream(response.stream,
                                          _Exchange(self.recorder, link, started, response)))

    def close(self) -> None:
        self.inner.close()


class AsyncRecordingTransport(httpx2.AsyncBaseTransport):
    """The asyncio twin of :class:`RecordingTransport`."""

    def __init__(
        self, recorder: Recorder, inner: httpx2.AsyncBaseTransport | None = None
    ) -> None:
        self.recorder = recorder
        self.inner = inner or httpx2.AsyncHTTPTransport(limits=_default_limits())

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        link = _begin(self.recorder, request)
        started = self.recorder.clock.start()
        try:
            response = await self.inner.handle_async_request(request)
        except Exception as exc:
            _record_failure(self.recorder, link, started, exc)
            raise
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        return _teed(response, _AsyncTeeStream(response.stream,
                                               _Exchange(self.recorder, link, started, response)))

    async def aclose(self) -> None:
        await self.inner.aclose()


def _default_limits() -> Any:
    """The SDK's own connection limits, so recording does not change pooling behaviour.

    Read from the SDK only when it is already loaded (an application recording its own
    client): importing the whole `openai` package just for two numbers would grow the
    proxy's memory and make its first request wait for the import."""
    import sys

    if "openai" not in sys.modules:
        return httpx2.Limits(max_connections=1000, max_keepalive_connections=100)
    try:
        from openai._constants import DEFAULT_CONNECTION_LIMITS

        return DEFAULT_CONNECTION_LIMITS
    except ImportError:  # pragma: no cover - older/newer SDK layouts
        return httpx2.Limits(max_connections=1000, max_keepalive_connections=100)
