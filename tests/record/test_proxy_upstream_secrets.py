"""The upstream URL the proxy was started with is the operator's: its password or key never
reaches a client in the proxy's own error answers (the banner on stderr masks it too)."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx2

from traceview.record.proxy_server import ProxyServer


def _free_port() -> int:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_502_does_not_tell_the_client_the_upstreams_password(tmp_path: Path) -> None:
    upstream = f"http://ops:Hunter2Password99@127.0.0.1:{_free_port()}/v1"
    with ProxyServer(tmp_path / "down.jsonl", upstream=upstream) as proxy:
        reply = httpx2.post(proxy.base_url + "/responses", json={"model": "m", "input": "x"})
    assert reply.status_code == 502 and "cannot reach the upstream" in reply.text
    assert "Hunter2Password99" not in reply.text
    assert "127.0.0.1" in reply.text  # still says which upstream
