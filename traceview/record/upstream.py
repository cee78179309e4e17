"""Where the recording proxy sends a request and what it sends: the upstream's URL for a
client's path, the outgoing request (the client's end-to-end headers, the body whole or
streamed) and the keep-alive client that carries it, through the environment's outgoing
proxy. The proxy itself (proxy.py) relays and records."""

from __future__ import annotations

import functools
import os
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx2

from traceview.record.upstream_pool import UpstreamPool

DEFAULT_UPSTREAM = "https://api.openai.com/v1"

# Connection-level headers belong to one hop, not to the exchange (RFC 9110 §7.6.1);
# host and content-length are set again by the upstream client for the bytes it sends.
HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
    "transfer-encoding", "upgrade", "host", "content-length",
})

HOP_BY_HOP_BYTES = frozenset(h.encode() for h in HOP_BY_HOP)

Scope = dict[str, Any]


def default_upstream(env: Mapping[str, str] | None = None) -> str:
    """``OPENAI_BASE_URL`` of the proxy's own environment, else the provider's public API."""
    found = (os.environ if env is None else env).get("OPENAI_BASE_URL")
    return (found or "").strip() or DEFAULT_UPSTREAM


def outgoing(scope: Scope, url: str, host: bytes, content: bytes | AsyncIterator[bytes],
             length: int | None, timeouts: dict[str, float], via: bytes) -> httpx2.Request:
    """The upstream request: the client's end-to-end headers as bytes, as the server read
    them, with ``Host``, this proxy's ``Via`` and the body's framing (its length, or
    chunked) that the upstream needs. Given as a stream, so httpx2 adds no headers of its
    own: building the headers once is a third of what ``content=`` cost per request."""
    method = scope["method"]
    headers = [(b"Host", host)]
    headers += [(k, v) for k, v in scope["headers"] if k.lower() not in HOP_BY_HOP_BYTES]
    headers.append((b"via", via))
    stream: httpx2.ByteStream | _Upload
    if isinstance(content, bytes):
        if content or method in ("POST", "PUT", "PATCH", "QUERY"):
            headers.append((b"Content-Length", str(len(content)).encode()))
        stream = httpx2.ByteStream(content)
    else:  # streamed upload: the upstream needs its length up front, else chunks
        headers.append((b"content-length", str(length).encode()) if length is not None
                       else (b"Transfer-Encoding", b"chunked"))
        stream = _Upload(content)
    request = httpx2.Request(method, url, headers=headers, stream=stream,
                             extensions={"timeout": timeouts})
    if isinstance(content, bytes):
        request.read()  # its bytes are its content (the record keeps them)
    return request


class _Upload(httpx2.AsyncByteStream):
    """A request body streamed upstream as the client sends it."""

    def __init__(self, chunks: AsyncIterator[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._chunks:
            yield chunk


def upstream_url(upstream: str, path: str, query: bytes) -> str:
    """Where a request for ``path`` goes.

    Clients are pointed at ``http://proxy/v1``, so their paths start with ``/v1``; an
    upstream whose base already ends in ``/v1`` takes the rest of the path after its own.
    """
    path = _without_dot_segments(path)
    base, v1, _ = _base(upstream)
    if v1 and (path == "/v1" or path.startswith("/v1/")):
        path = path[3:]
    url = base + path
    return f"{url}?{query.decode('latin-1')}" if query else url


@functools.lru_cache(maxsize=8)
def _base(upstream: str) -> tuple[str, bool, bytes]:
    """The upstream without its trailing slash, whether its path ends in ``/v1``, and its
    ``Host`` header (a proxy has one upstream: split once, not per request)."""
    base = upstream.rstrip("/")
    netloc = httpx2.URL(base).netloc
    if netloc.startswith(b"["):  # an IPv6 zone means something on this host only
        host, bracket, port = netloc.partition(b"]")
        netloc = host.partition(b"%")[0] + bracket + port
    return base, urlsplit(base).path.endswith("/v1"), netloc


def upstream_host(upstream: str) -> bytes:
    """The ``Host`` header of requests to the upstream."""
    return _base(upstream)[2]


def _without_dot_segments(path: str) -> str:
    """``path`` with ``.`` and ``..`` (also percent-encoded) resolved, never above its root:
    the HTTP client would resolve them against the upstream's URL, and ``/v1/../../x``
    would leave the upstream's base path."""
    kept: list[str] = []
    for segment in path.split("/"):
        plain = segment.lower().replace("%2e", ".")
        if plain in ("", "."):
            continue
        if plain == "..":
            if kept:
                kept.pop()
            continue
        kept.append(segment)
    return "/" + "/".join(kept)


def env_proxy(upstream: str) -> str | None:
    """The outgoing proxy the environment names for the upstream (HTTPS_PROXY, NO_PROXY…),
    as an httpx2 client would use it: the upstream is fixed, so this is decided once."""
    from urllib.request import getproxies, proxy_bypass

    parts = urlsplit(upstream)
    proxies = getproxies()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if not proxy or parts.hostname in ("localhost", "127.0.0.1", "::1") or (
            parts.hostname and proxy_bypass(parts.hostname)):
        return None
    return proxy


def upstream_transport(upstream: str) -> UpstreamPool:
    """The HTTP client side of the proxy: keep-alive connections whose responses httptools
    parses as they arrive (`upstream_pool.py`; h11 and httpcore2 were half the proxy's time
    on the relay's path), through the environment's outgoing proxy, trusting what the SDK
    trusts (SSL_CERT_FILE…)."""
    return UpstreamPool(proxy=env_proxy(upstream))

