"""Round 3's proxy findings on memory: a chunked upload (no length) was held whole before
it went upstream (200 MB -> 1.47 GB RSS); a gzip body is decoded as it passes, never past
the cap; an endless stream is kept up to the cap only. bench/proxy.py --big measures RSS."""

from __future__ import annotations

import asyncio
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

import traceview.record
from tests.record.conftest import read_records
from traceview.record import proxy as proxy_module
from traceview.record import transport
from traceview.record.proxy import RecordingProxy
from traceview.record.recorder import Recorder

PIECE = 16 << 10


class _Upstream(httpx2.AsyncBaseTransport):
    """Reads the request body as it streams; notes how much the client had sent by the
    time the first bytes arrived."""

    def __init__(self, sent: list[int]) -> None:
        self.sent, self.first_at, self.received = sent, -1, 0

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        async for part in request.stream:  # type: ignore[union-attr]
            if self.first_at < 0:
                self.first_at = self.sent[0]
            self.received += len(part)
        return httpx2.Response(200, json={"received": self.received})


def test_a_chunked_upload_goes_upstream_as_it_arrives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proxy_module, "STREAM_UPLOADS_ABOVE", 64 << 10)
    pieces = 64  # 1 MB in 16 KB pieces, with no content-length: chunked
    sent = [0]
    upstream = _Upstream(sent)
    capture = tmp_path / "c.jsonl"
    app = RecordingProxy(Recorder(capture), "http://upstream.test/v1", inner=upstream)
    replies: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if sent[0] < pieces:
            sent[0] += 1
            return {"type": "http.request", "body": b"u" * PIECE,
                    "more_body": sent[0] < pieces}
        await asyncio.Event().wait()  # the client never hangs up
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        replies.append(message)

    scope = {"type": "http", "method": "POST", "path": "/v1/uploads/part",
             "raw_path": b"/v1/uploads/part", "query_string": b"",
             "headers": [(b"content-type", b"application/octet-stream"),
                         (b"transfer-encoding", b"chunked")]}
    asyncio.run(app(scope, receive, send))
    assert upstream.received == pieces * PIECE  # all of it went upstream
    assert upstream.first_at <= (64 << 10) // PIECE + 1  # before the client was done
    assert replies[0]["status"] == 200
    body = b"".join(m.get("body", b"") for m in replies[1:])
    assert json.loads(body) == {"received": pieces * PIECE}
    req, res = read_records(capture)
    assert req["body"]["bytes"] is None and "not recorded" in req["body"]["not_kept"]
    assert res["body"] == {"received": pieces * PIECE}


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    for at in range(0, len(data), size):
        yield data[at:at + size]


def _record_stream(capture: Path, chunks: list[bytes], headers: dict[str, str],
                   seen: list[int], stamps: list[int] | None = None) -> dict[str, Any]:
    """One response relayed through the recording transport in `chunks`, each stamped
    on arrival and then kept, as the relay does; `seen` gets the bytes the exchange held
    after each chunk, `stamps` how many arrival stamps it held."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=headers, stream=httpx2.ByteStream(b""))

    recorder = Recorder(capture)
    tx = traceview.record.RecordingTransport(recorder, httpx2.MockTransport(handler))
    response = tx.handle_request(httpx2.Request("GET", "http://up.test/v1/x"))
    exchange = response.extensions[transport.EXCHANGE_EXTENSION]
    for chunk in chunks:
        exchange.arrive(chunk)
        exchange.keep(chunk)
        seen.append(sum(map(len, exchange.chunks)))
        if stamps is not None:
            stamps.append(len(exchange.arrived) + len(exchange.ends))
    exchange.finish()
    return read_records(capture)[-1]


def test_a_gzip_body_is_decoded_as_it_passes_and_never_past_the_cap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "BODY_CAP", 1 << 20)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = b"".join([*(packer.compress(bytes(1 << 20)) for _ in range(64)), packer.flush()])
    seen: list[int] = []
    res = _record_stream(tmp_path / "bomb.jsonl", list(_chunks(bomb, 4096)),
                         {"content-encoding": "gzip", "content-type": "application/json"}, seen)
    assert max(seen) <= 1 << 20  # 64 MB decoded never held
    assert res["body"]["bytes"] == len(bomb) and "not recorded" in res["body"]["not_kept"]
    payload = {"object": "response", "id": "resp_1", "text": "z" * 50_000}
    gz = zlib.compressobj(6, zlib.DEFLATED, 31)
    small = gz.compress(json.dumps(payload).encode()) + gz.flush()
    seen = []
    res = _record_stream(tmp_path / "small.jsonl", list(_chunks(small, 7)),
                         {"content-encoding": "gzip", "content-type": "application/json"}, seen)
    assert res["body"] == payload  # decoded piece by piece, whole


def test_an_endless_stream_is_kept_up_to_the_cap_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "BODY_CAP", 256 << 10)
    event = b'data: {"type":"response.output_text.delta","delta":"' + b"y" * 4000 + b'"}\n\n'
    seen: list[int] = []
    stamps: list[int] = []
    res = _record_stream(tmp_path / "endless.jsonl", [event] * 1000,
                         {"content-type": "text/event-stream"}, seen, stamps)
    assert max(seen) <= 256 << 10 and seen[-1] == 0
    # nor the chunks' arrival stamps: they held ~70 bytes a chunk for as long as it ran
    assert max(stamps) <= 2 * (256 << 10) // len(event) + 2 and stamps[-1] == 0
    assert res["body"]["bytes"] == 1000 * len(event) and res["body"]["not_kept"]
