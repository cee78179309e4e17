"""The proxy's upstream connections (record/upstream_io.py, upstream_pool.py), as a client
of the proxy sees them: TLS verified against the trusted certificates, a large body relayed
whole, an upstream that closes its idle connections, an outgoing proxy's tunnel.

The simulator serves TLS on loopback with a test-only certificate (tests/fixtures/tls);
the proxy trusts it through SSL_CERT_FILE, as a user behind a private CA would set it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2
import openai
import pytest

from tests.loopback import accepted as accepted_conns
from tests.record.conftest import API_KEY, read_records
from traceview.record.proxy_server import ProxyServer
from traceview.record.upstream_io import HIGH_WATER, UpstreamConnection
from traceview.sim import SimServer

TLS = Path(__file__).parents[1] / "fixtures" / "tls"


@contextlib.contextmanager
def _tls_sim(host: str = "127.0.0.1") -> Iterator[str]:
    """The simulator serving TLS with the test certificate (for 127.0.0.1 and localhost)
    on ``host``; its base URL."""
    sim = SimServer(host, seed="tls")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(TLS / "cert.pem", TLS / "key.pem")
    sim.httpd.socket = context.wrap_socket(sim.httpd.socket, server_side=True)
    sim.start()
    try:
        yield sim.base_url.replace("http://", "https://")
    finally:
        sim.stop()


def test_a_tls_upstream_is_relayed_and_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS / "cert.pem"))
    out = tmp_path / "tls.jsonl"
    with _tls_sim() as upstream, ProxyServer(out, upstream=upstream) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key=API_KEY, max_retries=0)
        plain = client.responses.create(model="gpt-4.1", input="Hi")
        with client.responses.create(model="gpt-4.1", input="More", stream=True) as stream:
            kinds = [event.type for event in stream]
    assert plain.status == "completed"
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    records = read_records(out)
    assert [r.get("status_code") for r in records[1::2]] == [200, 200]
    assert [e["type"] for e in records[3]["events"]] == kinds
    assert len(records[3]["event_ms"]) == len(kinds)


@pytest.mark.parametrize(("trusted", "host", "why"), [
    (False, "127.0.0.1", "self-signed certificate"),
    (True, "127.0.0.2", "certificate is not valid for '127.0.0.2'"),
])
def test_an_upstream_certificate_not_valid_for_it_is_refused(trusted, host, why, tmp_path,
                                                             monkeypatch):
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    if trusted:
        monkeypatch.setenv("SSL_CERT_FILE", str(TLS / "cert.pem"))
    else:
        monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    out = tmp_path / "refused.jsonl"
    with _tls_sim(host) as upstream, ProxyServer(out, upstream=upstream) as proxy:
        reply = httpx2.post(proxy.base_url + "/responses", json={"model": "m", "input": "x"},
                            headers={"authorization": f"Bearer {API_KEY}"})
    assert reply.status_code == 502 and why in reply.text
    assert read_records(out)[1]["error"]["type"] == "connection_error"


def _upstream(answer: bytes, close_after: bool, answered: threading.Event | None = None,
              ) -> tuple[str, threading.Event, list[int]]:
    """A loopback upstream answering each request with ``answer`` as soon as it has its
    head (closing each connection after it when ``close_after``, without saying so);
    ``closed`` is set once it has, ``answered`` once it has answered; ``accepted`` counts
    connections."""
    server = socket.create_server(("127.0.0.1", 0))
    closed, accepted = threading.Event(), []

    def serve() -> None:
        for conn in accepted_conns(server):
            accepted.append(1)
            with conn:
                while True:
                    data = b""
                    while b"\r\n\r\n" not in data:
                        more = conn.recv(65536)
                        if not more:
                            break
                        data += more
                    if not data:
                        break
                    conn.sendall(answer)
                    if answered is not None:
                        answered.set()
                    if close_after:
                        break
            closed.set()

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{server.getsockname()[1]}/v1", closed, accepted


def test_an_upstream_that_closes_idle_connections_costs_no_request(tmp_path):
    ok = b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}'
    upstream, closed, accepted = _upstream(ok, close_after=True)
    with ProxyServer(tmp_path / "idle.jsonl", upstream=upstream) as proxy, \
            httpx2.Client() as http:
        first = http.get(proxy.base_url + "/models")
        assert closed.wait(10)  # the upstream dropped the connection the proxy keeps
        second = http.get(proxy.base_url + "/models")
    assert (first.status_code, second.status_code) == (200, 200)
    assert len(accepted) == 2  # the dropped connection was noticed, not reused


def test_a_large_body_is_relayed_whole(tmp_path):
    size = 4 << 20  # many times what the proxy holds per connection before it stops reading
    body = bytes(range(256)) * (size // 256)
    head = b"HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\n"
    upstream, _, _ = _upstream(head + b"content-length: %d\r\n\r\n" % size + body, False)
    got = bytearray()
    with ProxyServer(tmp_path / "big.jsonl", upstream=upstream) as proxy, \
            httpx2.Client() as http, http.stream("GET", proxy.base_url + "/files/x") as r:
        for part in r.iter_raw(1 << 16):
            got += part
    assert len(got) == size and got == body


class _Socket:
    """A transport that notes whether it is being read."""

    reading = True

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True


def _busy(transport: _Socket) -> UpstreamConnection:
    """A connection on ``transport`` awaiting a response (its loop is never run)."""
    loop = asyncio.new_event_loop()
    loop.close()
    conn = UpstreamConnection(loop)
    conn.connection_made(transport)  # type: ignore[arg-type]
    conn.busy = True
    return conn


def test_an_upstream_faster_than_the_client_is_held_back_not_buffered():
    transport = _Socket()
    conn = _busy(transport)
    conn.data_received(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % (HIGH_WATER * 2))
    conn.data_received(b"x" * HIGH_WATER)
    assert transport.reading
    conn.data_received(b"y")  # past the mark: the socket is no longer read
    assert not transport.reading
    got = conn.take_body()
    assert got == b"x" * HIGH_WATER + b"y" and transport.reading  # in order, read again
    assert not conn.ended()  # the rest of its length is still to come


def _tunnel(seen: list[bytes]) -> str:
    """A loopback outgoing proxy that serves CONNECT (each request head noted in ``seen``)
    and then passes bytes both ways; its URL, with a user and password."""
    server = socket.create_server(("127.0.0.1", 0))

    def pipe(a: socket.socket, b: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := a.recv(65536):
                b.sendall(data)
        with contextlib.suppress(OSError):
            b.shutdown(socket.SHUT_WR)

    def serve() -> None:
        for conn in accepted_conns(server):
            head = b""
            while b"\r\n\r\n" not in head:
                head += conn.recv(65536)
            seen.append(head)
            host, _, port = head.split(b" ")[1].decode().rpartition(":")
            upstream = socket.create_connection((host, int(port)))
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            threading.Thread(target=pipe, args=(conn, upstream), daemon=True).start()
            threading.Thread(target=pipe, args=(upstream, conn), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return f"http://me:s%40cret@127.0.0.1:{server.getsockname()[1]}"


def test_a_tls_upstream_is_reached_through_the_outgoing_proxys_tunnel(tmp_path, monkeypatch):
    # HTTPS_PROXY as a company network sets it (loopback never goes through one, so the
    # proxy's choice is set directly): a CONNECT tunnel, its credentials sent, TLS inside.
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS / "cert.pem"))
    seen: list[bytes] = []
    tunnel = _tunnel(seen)
    monkeypatch.setattr("traceview.record.upstream.env_proxy", lambda upstream: tunnel)
    out = tmp_path / "tunnel.jsonl"
    with _tls_sim() as upstream, ProxyServer(out, upstream=upstream) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key=API_KEY, max_retries=0)
        answers = [client.responses.create(model="gpt-4.1", input=f"Hi {n}") for n in range(2)]
    assert [a.status for a in answers] == ["completed", "completed"]
    port = upstream.rsplit(":", 1)[1].split("/")[0]
    assert len(seen) == 1  # one tunnel, kept alive for both calls
    assert seen[0].startswith(b"CONNECT 127.0.0.1:%s HTTP/1.1\r\n" % port.encode())
    assert b"Proxy-Authorization: Basic bWU6c0BjcmV0\r\n" in seen[0]  # me:s@cret
    assert [r.get("status_code") for r in read_records(out)[1::2]] == [200, 200]


def test_a_request_and_a_response_each_cross_the_proxy_in_one_send(tmp_path):
    # Head and body written apart cost a send, a segment and a wake-up of the other side
    # each: the upstream reads the proxy's whole request in its first read, and the client
    # the whole response, head and body, in its first (uvicorn writes the head alone on
    # `http.response.start`; the proxy holds it for the body). The upstream answers in one
    # write, so the body is in when the proxy reads the head: written apart, the proxy
    # could read the head alone and rightly send it without waiting (the test then raced).
    server = socket.create_server(("127.0.0.1", 0))
    first_reads: list[bytes] = []

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            first_reads.append(conn.recv(65536))
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                         b'content-length: 11\r\n\r\n{"ok":true}')
            conn.recv(1)  # until the proxy lets the connection go

    threading.Thread(target=serve, daemon=True).start()
    body = b'{"model":"gpt-4.1","input":"hi"}'
    upstream = f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    with ProxyServer(tmp_path / "one.jsonl", upstream=upstream) as proxy:
        host, port = proxy.sock.getsockname()[:2]
        with socket.create_connection((host, port)) as client:
            client.sendall(b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: "
                           b"application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
            reply = client.recv(65536)
    assert first_reads[0].startswith(b"POST /v1/responses HTTP/1.1\r\n")
    assert first_reads[0].endswith(b"\r\n\r\n" + body)
    assert reply.startswith(b"HTTP/1.1 200 OK\r\n") and reply.endswith(b'\r\n\r\n{"ok":true}')
    assert [r["dir"] for r in read_records(tmp_path / "one.jsonl")] == ["req", "res"]


@pytest.mark.parametrize(("head", "ending"), [
    (b"content-length: 10\r\n", "(received 4 bytes, expected 10)"),
    (b"transfer-encoding: chunked\r\n", "(incomplete chunked read)"),
    (b"", None),  # no length, no chunks: the body ends where the upstream closes
])
def test_a_body_cut_short_is_an_error_one_without_a_length_ends_at_close(head, ending):
    conn = _busy(_Socket())
    body = b"4\r\nabcd\r\n" if b"chunked" in head else b"abcd"
    conn.data_received(b"HTTP/1.1 200 OK\r\n" + head + b"\r\n" + body)
    assert conn.take_body() == b"abcd" and not conn.ended()
    conn.eof_received()
    if ending is None:
        assert conn.ended() and not conn.reusable()
    else:
        with pytest.raises(httpx2.RemoteProtocolError, match=re.escape(ending)):
            conn.ended()


def test_the_answer_to_head_has_no_body_whatever_its_length_says(tmp_path):
    # llhttp cannot be told a response answers HEAD: read as any other, this one would
    # wait for 5 body bytes that never come; its connection is not reused after it.
    head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 5\r\n\r\n"
    upstream, _, accepted = _upstream(head, close_after=False)
    with ProxyServer(tmp_path / "head.jsonl", upstream=upstream, timeout=5) as proxy, \
            httpx2.Client() as http:
        replies = [http.head(proxy.base_url + "/models") for _ in range(2)]
    assert [(r.status_code, r.headers["content-length"], r.content) for r in replies] == [
        (200, "5", b"")] * 2
    assert len(accepted) == 2
    assert [r.get("status_code") for r in read_records(tmp_path / "head.jsonl")[1::2]] == [
        200, 200]


def test_an_upload_answered_before_it_ended_leaves_its_connection_unused(tmp_path,
                                                                          monkeypatch):
    # The upstream refuses a streamed upload at its head; what the proxy had not yet sent
    # of the body is never sent, so the connection is mid-request: the next call must not
    # go on it (the upstream would read it as the rest of the upload).
    monkeypatch.setattr("traceview.record.proxy.STREAM_UPLOADS_ABOVE", 64 << 10)
    answer = b"HTTP/1.1 413 Payload Too Large\r\ncontent-length: 2\r\n\r\n{}"
    answered = threading.Event()
    upstream, _, accepted = _upstream(answer, close_after=False, answered=answered)
    first = b"u" * (100 << 10)
    with ProxyServer(tmp_path / "early.jsonl", upstream=upstream, timeout=10) as proxy:
        host, port = proxy.sock.getsockname()[:2]
        with socket.create_connection((host, port)) as client:
            client.sendall(b"POST /v1/files HTTP/1.1\r\nhost: x\r\ntransfer-encoding: "
                           b"chunked\r\n\r\n%x\r\n%s\r\n" % (len(first), first))
            assert answered.wait(10)  # the upstream has answered; the upload goes on
            client.sendall(b"4\r\nmore\r\n0\r\n\r\n")
            assert client.recv(65536).startswith(b"HTTP/1.1 413")
        with httpx2.Client() as http:
            assert http.get(proxy.base_url + "/models").status_code == 413
    assert len(accepted) == 2
