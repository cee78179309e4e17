"""Failures are part of the capture: HTTP errors with their bodies, timeouts without."""

from __future__ import annotations

import httpx2
import openai
import pytest

import traceview.record
from tests.record.conftest import API_KEY, read_records


def _client(capture, sim, **kw):
    kw.setdefault("max_retries", 0)
    return traceview.record.client(capture, base_url=sim.base_url, api_key=API_KEY, **kw)


def test_missing_key_is_recorded_as_401(sim, capture):
    http = traceview.record.http_client(capture)
    response = http.post(f"{sim.base_url}/responses", json={"model": "gpt-4.1", "input": "hi"})
    assert response.status_code == 401
    res = read_records(capture)[1]
    assert res["status_code"] == 401
    assert "didn't provide an API key" in res["body"]["error"]["message"]


def test_unknown_id_is_recorded_as_404(sim, capture):
    with pytest.raises(openai.NotFoundError):
        _client(capture, sim).responses.retrieve("resp_doesnotexist")
    res = read_records(capture)[1]
    assert res["status_code"] == 404
    assert res["body"]["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize(("status", "error"), [(429, openai.RateLimitError),
                                                (500, openai.InternalServerError)])
def test_injected_server_errors_are_recorded(sim, capture, status, error):
    sim.inject(status=status)
    with pytest.raises(error):
        _client(capture, sim).responses.create(model="gpt-4.1", input="hi")
    req, res = read_records(capture)
    assert req["id"] == res["id"] and res["status_code"] == status
    assert res["body"]["error"]["message"]


def test_each_retry_is_its_own_exchange(sim, capture):
    sim.inject(status=500, times=1)
    client = _client(capture, sim, max_retries=1)
    client.with_options(timeout=5).responses.create(model="gpt-4.1", input="hi")
    statuses = [r["status_code"] for r in read_records(capture) if r["dir"] == "res"]
    assert statuses == [500, 200]


def test_timeout_is_recorded_with_an_error_and_no_body(sim, capture):
    gate = sim.hold()
    client = _client(capture, sim, timeout=httpx2.Timeout(0.3))
    try:
        with pytest.raises(openai.APITimeoutError):
            client.responses.create(model="gpt-4.1", input="hi")
    finally:
        gate.set()
    req, res = read_records(capture)
    assert req["id"] == res["id"]
    assert res["error"]["type"] == "timeout" and res["body"] is None
    assert res["status_code"] is None


def test_refused_connection_is_recorded(capture):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = traceview.record.client(capture, base_url=f"http://127.0.0.1:{port}/v1",
                                     api_key=API_KEY, max_retries=0)
    with pytest.raises(openai.APIConnectionError):
        client.responses.create(model="gpt-4.1", input="hi")
    res = read_records(capture)[1]
    assert res["error"]["type"] == "connection_error" and res["body"] is None
