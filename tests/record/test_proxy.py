"""`traceview proxy`: any client, recorded exactly as `traceview.record` records the SDK.

Both the simulator (upstream) and the proxy run on loopback in this process; the proxy's
socket is bound before it starts and `start()` returns once uvicorn is serving, so no test
waits by sleeping.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

import traceview.record
from tests.record.conftest import API_KEY, proxy_process, read_records
from traceview.capture.capture import load
from traceview.record.proxy_server import ProxyServer
from traceview.record.recorder import Recorder
from traceview.record.upstream import upstream_url
from traceview.sim import SimServer

TIMING = ("ts", "elapsed_ms", "id", "event_ms")


def _scenario(client: openai.OpenAI) -> None:
    """Every endpoint family the recorder covers, streams included."""
    conv = client.conversations.create()
    first = client.responses.create(model="gpt-4.1", conversation=conv.id, input="Hi")
    client.responses.retrieve(first.id)
    list(client.responses.input_items.list(first.id))
    list(client.conversations.items.list(conv.id, limit=1, include=["file_search_call.results"]))
    for _ in client.responses.create(model="gpt-4.1", conversation=conv.id, input="More",
                                     stream=True):
        pass
    client.responses.compact(model="gpt-4.1", input="Summarise: hi")
    client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    client.conversations.delete(conv.id)


def _untimed(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in TIMING} for r in records]


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[tuple[SimServer, ProxyServer, Path]]:
    out = tmp_path / "proxy.jsonl"
    with SimServer(seed="proxy") as sim, ProxyServer(out, upstream=sim.base_url) as proxy:
        yield sim, proxy, out


def _sdk(proxy: ProxyServer, **kw: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.base_url, api_key=API_KEY, max_retries=0, **kw)


def test_proxy_capture_equals_the_recorders_for_the_same_calls(proxied, tmp_path):
    sim, proxy, out = proxied
    _scenario(_sdk(proxy))
    direct = tmp_path / "direct.jsonl"
    with SimServer(seed="proxy") as twin:
        _scenario(traceview.record.client(direct, base_url=twin.base_url, api_key=API_KEY,
                                          max_retries=0))
    proxy.flush()  # the proxy writes records just after each answer
    via_proxy, recorded = read_records(out), read_records(direct)
    assert len(via_proxy) == 20
    assert _untimed(via_proxy) == _untimed(recorded)
    # the fields that differ are still there, per request, measured at the proxy
    for rec in via_proxy:
        assert isinstance(rec["ts"], float) and rec["id"].startswith("rec_")
        if rec["dir"] == "res":
            assert isinstance(rec["elapsed_ms"], int) and rec["status_code"] == 200
    stream_res = [r for r in via_proxy if r.get("events")][0]
    assert stream_res["events"][-1]["type"] == "response.completed"
    assert stream_res["body"] == stream_res["events"][-1]["response"]
    # each event's arrival, measured at the proxy: one offset per event, never decreasing
    ms = stream_res["event_ms"]
    assert len(ms) == len(stream_res["events"]) and ms == sorted(ms)


def test_the_key_is_forwarded_but_never_written(proxied):
    _, proxy, out = proxied
    # the simulator answers 401 without a key: a 200 proves the header went through
    reply = _sdk(proxy).responses.create(model="gpt-4.1", input=f"my key is {API_KEY}")
    assert reply.status == "completed"
    proxy.flush()  # the proxy writes records just after each answer
    raw = out.read_bytes()
    assert API_KEY.encode() not in raw and b"Bearer" not in raw
    assert b"authorization" not in raw.lower()
    assert b"[redacted]" in raw  # the key quoted in the body is masked too (core redactor)


async def test_async_sdk_streams_and_32_concurrent_clients(proxied):
    _, proxy, out = proxied
    client = openai.AsyncOpenAI(base_url=proxy.base_url, api_key=API_KEY, max_retries=0)
    replies = await asyncio.gather(*(client.responses.create(model="gpt-4.1", input=f"task {n}")
                                     for n in range(32)))
    stream = await client.responses.create(model="gpt-4.1", input="streamed", stream=True)
    types = [event.type async for event in stream]
    await client.close()
    proxy.flush()  # the proxy writes records just after each answer
    records = read_records(out)
    assert len(records) == 66
    reqs = {r["id"]: r for r in records if r["dir"] == "req"}
    ress = {r["id"]: r for r in records if r["dir"] == "res"}
    assert reqs.keys() == ress.keys()
    assert {r["body"]["id"] for r in ress.values() if r["body"]} >= {r.id for r in replies}
    for link, req in reqs.items():  # each response is linked to its own request
        if not req["body"].get("stream"):
            assert ress[link]["body"]["status"] == "completed"
    assert [e["type"] for e in records[-1]["events"]] == types


def test_a_stream_reaches_the_client_before_the_upstream_finishes(proxied):
    sim, proxy, out = proxied
    gate = sim.hold_stream(after=2)  # the model stalls after two events
    with _sdk(proxy).responses.create(model="gpt-4.1", input="Hi", stream=True) as stream:
        events = iter(stream)
        first = next(events)  # arrives while the upstream is still stalled: no buffering
        assert first.type == "response.created" and not gate.is_set()
        gate.set()
        rest = [e.type for e in events]
    assert rest[-1] == "response.completed"
    proxy.flush()  # the proxy writes records just after each answer
    assert read_records(out)[1]["events"][-1]["type"] == "response.completed"


class _Watched(Recorder):
    """Signals when a response record has been written."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.responded = threading.Event()

    def response(self, *args: Any, **kwargs: Any) -> None:
        super().response(*args, **kwargs)
        self.responded.set()


def test_client_disconnect_mid_stream_leaves_a_stream_cut_record(tmp_path):
    out = tmp_path / "cut.jsonl"
    recorder = _Watched(out)
    with SimServer() as sim, ProxyServer(recorder, upstream=sim.base_url) as proxy:
        gate = sim.hold_stream(after=2)
        try:
            with _sdk(proxy).responses.create(model="gpt-4.1", input="Hi", stream=True) as s:
                # Both events reach the client (so the proxy has relayed both) before it
                # hangs up: after one, the second may still be on its way upstream.
                events = iter(s)
                next(events), next(events)
            # the record is written while the upstream is still stalled: it was cancelled
            assert recorder.responded.wait(10) and not gate.is_set()
        finally:
            gate.set()
    req, res = read_records(out)
    assert res["id"] == req["id"] and res["body"] is None
    assert [e["type"] for e in res["events"]] == ["response.created", "response.in_progress"]
    assert res["error"]["type"] == "client_disconnected"
    turn = load(str(out)).turns[0]
    assert turn.res is not None and turn.res.stream_cut


def test_raw_http_any_endpoint_status_and_query_are_relayed(proxied):
    _, proxy, out = proxied
    with httpx2.Client(base_url=proxy.base_url,
                       headers={"authorization": f"Bearer {API_KEY}"}) as http:
        created = http.post("/conversations", content=b'{"metadata": {"k": "v"}}',
                            headers={"content-type": "application/json"})
        assert created.status_code == 200
        cid = created.json()["id"]
        listed = http.get(f"/conversations/{cid}/items", params={"limit": 2, "order": "asc"})
        assert listed.status_code == 200 and listed.json()["object"] == "list"
        missing = http.get("/vector_stores/vs_nope")
        assert missing.status_code == 404
        no_key = http.get("/models", headers={"authorization": ""})
        assert no_key.status_code == 401
    proxy.flush()  # the proxy writes records just after each answer
    records = read_records(out)
    reqs = [r for r in records if r["dir"] == "req"]
    assert reqs[0]["endpoint"] == "POST /v1/conversations"
    assert reqs[0]["bytes"] == len(b'{"metadata": {"k": "v"}}')  # the raw length, not re-dumped
    assert reqs[1]["endpoint"] == f"GET /v1/conversations/{cid}/items?limit=2&order=asc"
    assert [r["status_code"] for r in records if r["dir"] == "res"] == [200, 200, 404, 401]


def test_the_upstreams_headers_reach_the_client_as_sent(proxied):
    """One `date` and one `server`, the upstream's: the proxy adds none of its own."""
    sim, proxy, _ = proxied
    body = b'{"model": "gpt-4.1", "input": "Hi"}'
    auth = {"authorization": f"Bearer {API_KEY}", "content-type": "application/json"}
    direct = httpx2.post(f"{sim.base_url}/responses", content=body, headers=auth)
    relayed = httpx2.post(f"{proxy.base_url}/responses", content=body, headers=auth)
    names = [[k.lower() for k, _ in r.headers.raw] for r in (direct, relayed)]
    assert names[1] == names[0] and names[1].count(b"date") == 1
    assert relayed.headers["server"] == direct.headers["server"] == "traceview-sim"


def test_upstream_500_is_relayed_and_recorded(proxied):
    sim, proxy, out = proxied
    sim.inject(500)
    with pytest.raises(openai.InternalServerError) as err:
        _sdk(proxy).responses.create(model="gpt-4.1", input="Hi")
    assert err.value.status_code == 500
    proxy.flush()  # the proxy writes records just after each answer
    res = read_records(out)[1]
    assert res["status_code"] == 500 and res["body"]["error"]["type"] == "server_error"


def test_upstream_timeout_is_relayed_as_504_and_recorded(tmp_path):
    out = tmp_path / "timeout.jsonl"
    with SimServer() as sim, ProxyServer(out, upstream=sim.base_url, timeout=0.3) as proxy:
        gate = sim.hold()
        try:
            with pytest.raises(openai.APIStatusError) as err:
                _sdk(proxy).responses.create(model="gpt-4.1", input="Hi")
        finally:
            gate.set()
    assert err.value.status_code == 504
    assert "did not answer in time" in json.dumps(err.value.body)
    req, res = read_records(out)
    assert res["id"] == req["id"] and res["status_code"] is None
    assert res["error"]["type"] == "timeout"


def test_unreachable_upstream_is_a_502(tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "down.jsonl"
    with ProxyServer(out, upstream=f"http://127.0.0.1:{port}/v1") as proxy:
        reply = httpx2.post(proxy.base_url + "/responses", json={"model": "m", "input": "x"})
    assert reply.status_code == 502 and "cannot reach the upstream" in reply.text
    assert read_records(out)[1]["error"]["type"] == "connection_error"


def test_upstream_paths_join_without_doubling_v1():
    assert upstream_url("https://api.openai.com/v1", "/v1/responses", b"") == \
        "https://api.openai.com/v1/responses"
    assert upstream_url("http://h:1/v1/", "/v1/files", b"purpose=x") == \
        "http://h:1/v1/files?purpose=x"
    assert upstream_url("http://h:1", "/v1/responses", b"") == "http://h:1/v1/responses"


def test_default_upstream_honours_the_proxys_own_environment():
    from traceview.record.upstream import DEFAULT_UPSTREAM, default_upstream

    assert default_upstream({}) == DEFAULT_UPSTREAM == "https://api.openai.com/v1"
    assert default_upstream({"OPENAI_BASE_URL": "http://gw:9/v1"}) == "http://gw:9/v1"


def test_proxy_binds_loopback_by_default(tmp_path):
    with ProxyServer(tmp_path / "x.jsonl", upstream="http://127.0.0.1:9/v1") as proxy:
        assert proxy.sock.getsockname()[0] == "127.0.0.1"


def test_cli_refuses_an_upstream_that_is_the_proxy_itself(tmp_path, capsys, monkeypatch):
    from traceview.cli import main

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    assert main(["proxy", "--port", "8080", "-o", str(tmp_path / "t.jsonl")]) == 2
    assert "is this proxy itself" in capsys.readouterr().err


def test_multipart_uploads_are_recorded_like_the_recorder_does(proxied):
    _, proxy, out = proxied
    uploaded = _sdk(proxy).files.create(file=("notes.txt", b"hello world"),
                                        purpose="assistants")
    proxy.flush()  # the proxy writes records just after each answer
    req, res = read_records(out)
    assert req["endpoint"] == "POST /v1/files"
    assert req["body"]["non_json"] is True
    assert req["body"]["content_type"].startswith("multipart/form-data")
    assert req["bytes"] == req["body"]["bytes"] > len(b"hello world")
    assert res["status_code"] == 200 and res["body"]["id"] == uploaded.id


def test_rotating_proxy_records_through_the_current_file_link(tmp_path):
    import os

    link = tmp_path / "trace.jsonl"
    with SimServer() as sim, ProxyServer(link, upstream=sim.base_url, rotate="1MB") as proxy:
        _sdk(proxy).responses.create(model="gpt-4.1", input="Hi")
    assert link.is_symlink() and os.readlink(link).startswith("trace-")
    assert [r["dir"] for r in read_records(link)] == ["req", "res"]


def test_the_proxy_command_serves_and_stops_cleanly(tmp_path):
    """`traceview proxy` as a user runs it: its own process, Ctrl-C to stop."""
    import signal

    out = tmp_path / "cli.jsonl"
    with SimServer() as sim:
        with proxy_process(out, sim.base_url, signal.SIGINT) as (proc, client):
            assert client.responses.create(model="gpt-4.1", input="Hi").status == "completed"
        assert proc.wait(30) == 0
    assert [r["dir"] for r in read_records(out)] == ["req", "res"]


def test_the_upstream_goes_through_the_environments_proxy(monkeypatch):
    from traceview.record.upstream import env_proxy

    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY",
                 "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://corp-proxy:3128")
    monkeypatch.setenv("NO_PROXY", "internal.example")
    assert env_proxy("https://api.openai.com/v1") == "http://corp-proxy:3128"
    assert env_proxy("https://gw.internal.example/v1") is None
    monkeypatch.setenv("HTTP_PROXY", "http://corp-proxy:3128")
    assert env_proxy("http://127.0.0.1:9/v1") is None  # loopback never goes through a proxy


def test_a_large_upload_is_streamed_upstream_and_recorded_by_length(proxied):
    _, proxy, out = proxied
    payload = bytes(range(256)) * (3 * 4096)  # 3 MB: arrives in many pieces
    uploaded = _sdk(proxy).files.create(file=("big.bin", payload), purpose="assistants")
    proxy.flush()  # the proxy writes records just after each answer
    req, res = read_records(out)
    assert uploaded.bytes == req["bytes"] > len(payload)  # the whole body reached the upstream
    assert req["body"] == {"non_json": True, "content_type": req["body"]["content_type"],
                           "bytes": req["bytes"]}
    assert req["body"]["content_type"].startswith("multipart/form-data")
    assert res["status_code"] == 200 and len(out.read_bytes()) < 10_000  # no bytes stored
