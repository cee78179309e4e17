"""A client that goes away mid-stream: the proxy's log said "socket.send() raised
exception." once for every chunk it still had to relay (720 lines for five dropped
clients); now nothing, and the capture records the cut (client_disconnected)."""

from __future__ import annotations

import logging
import socket
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.loopback import serve_each
from tests.record.conftest import read_records
from traceview.record.proxy_server import ProxyServer

EVENT = b'data: {"type":"response.output_text.delta","delta":"' + b"x" * 200 + b'"}\n\n'
BODY = b'{"model":"gpt-4.1","input":"hi","stream":true}'


def _burst(conn: socket.socket) -> None:
    """One request read, then a stream of 20,000 events as fast as the socket takes them."""
    try:
        data = b""
        while b"\r\n\r\n" not in data:
            data += conn.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        size = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length")))
        while len(body) < size:
            body += conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                     b"transfer-encoding: chunked\r\n\r\n")
        for _ in range(20_000):
            conn.sendall(b"%x\r\n%s\r\n" % (len(EVENT), EVENT))
        conn.sendall(b"0\r\n\r\n")
    except OSError:
        pass  # the proxy cancelled the upstream request
    finally:
        conn.close()


@pytest.fixture
def upstream() -> Iterator[str]:
    server = socket.create_server(("127.0.0.1", 0))
    serve_each(server, _burst)
    yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    server.close()


def _drop(port: int) -> None:
    """Ask for the stream, read its first bytes, then reset the connection."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: application/json"
                  b"\r\ncontent-length: %d\r\n\r\n%s" % (len(BODY), BODY))
        assert s.recv(4096).startswith(b"HTTP/1.1 200")
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def test_dropped_clients_leave_no_log_lines_and_are_recorded_as_cut(
        upstream: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    out = tmp_path / "proxy.jsonl"
    caplog.set_level(logging.WARNING)
    with ProxyServer(out, upstream=upstream) as proxy:
        port = int(proxy.base_url.rsplit(":", 1)[1].split("/")[0])
        for _ in range(3):
            _drop(port)
        proxy.flush()
    records = read_records(out)
    assert [r["error"]["type"] for r in records if r["dir"] == "res"] == \
        ["client_disconnected"] * 3
    assert [r.getMessage() for r in caplog.records] == []


def test_stopped_at_once_with_a_response_open_records_it_as_cut(
        upstream: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Ctrl-C twice while a client (here one that stopped reading) still has an answer
    open: the record said a whole 200, and uvicorn logged two tracebacks (the answer's
    task and the lifespan's, both cancelled)."""
    out = tmp_path / "proxy.jsonl"
    caplog.set_level(logging.WARNING)
    proxy = ProxyServer(out, upstream=upstream).start()
    port = int(proxy.base_url.rsplit(":", 1)[1].split("/")[0])
    with socket.create_connection(("127.0.0.1", port)) as stalled:
        stalled.sendall(b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: "
                        b"application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(BODY), BODY))
        assert stalled.recv(4096).startswith(b"HTTP/1.1 200")
        proxy.server.force_exit = True  # as uvicorn takes a second Ctrl-C
        proxy.stop()
    res = [r for r in read_records(out) if r["dir"] == "res"]
    assert [r["error"]["type"] for r in res] == ["proxy_stopped"]
    assert [r for r in caplog.records if r.exc_info] == []


def test_ctrl_c_with_a_response_open_says_what_the_proxy_waits_for(
        upstream: str, tmp_path: Path) -> None:
    """The first Ctrl-C waited, in silence, for the open answer (for ever: its client had
    stopped reading); now it says so, and a second stops at once, no traceback."""
    import select
    import signal
    import subprocess

    from tests.record.conftest import proxy_process

    out = tmp_path / "proxy.jsonl"
    with proxy_process(out, upstream, signal.SIGINT) as (proc, client):
        port = int(str(client.base_url).rsplit(":", 1)[1].split("/")[0])
        stalled = socket.create_connection(("127.0.0.1", port))
        stalled.sendall(b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: "
                        b"application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(BODY), BODY))
        assert stalled.recv(4096).startswith(b"HTTP/1.1 200")
        assert proc.stderr is not None
        assert proc.stderr.readline().startswith("forwarding to ")  # the banner's last line
        proc.send_signal(signal.SIGINT)
        assert select.select([proc.stderr], [], [], 30)[0], "nothing said on Ctrl-C"
        assert proc.stderr.readline() == ("traceview proxy: stopping once 1 open response(s) "
                                          "end; Ctrl-C again to stop now (they are recorded "
                                          "as cut)\n")
    try:
        err = proc.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    finally:
        stalled.close()
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert err.endswith("traceview proxy: stopped\n")
    assert [r["error"]["type"] for r in read_records(out) if r["dir"] == "res"] == \
        ["proxy_stopped"]


def test_stop_ends_an_exchange_whose_client_stalled_mid_body(tmp_path, monkeypatch):
    """A client that sent a request's head and part of its body, then nothing: stop()
    gives it its grace and returns (it waited forever); the client is told the request
    was not sent, and nothing is recorded, because nothing was forwarded."""
    import socket
    import threading

    import traceview.record.proxy as proxy_module
    from traceview.record.proxy_server import ProxyServer
    from traceview.sim import SimServer

    reading = threading.Event()
    real_read = proxy_module._read_body

    async def read_body(first, receive):
        reading.set()
        return await real_read(first, receive)

    monkeypatch.setattr(proxy_module, "_read_body", read_body)
    out = tmp_path / "c.jsonl"
    with SimServer(seed="stall") as sim:
        server = ProxyServer(out, upstream=sim.base_url).start()
        host, port = server.sock.getsockname()[:2]
        with socket.create_connection((host, port), timeout=10) as client:
            client.sendall(b"POST /v1/responses HTTP/1.1\r\nHost: x\r\n"
                           b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                           b'{"model":')
            assert reading.wait(10)
            stopped = threading.Thread(target=server.stop, kwargs={"grace": 1})
            stopped.start()
            stopped.join(10)
            assert not stopped.is_alive()
            answer = client.recv(4096)
    assert answer.startswith(b"HTTP/1.1 503")
    assert b"proxy_stopped" in answer and b"it was not sent" in answer
    assert not out.exists() or out.read_text() == ""
