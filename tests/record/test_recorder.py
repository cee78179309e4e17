"""The recorder writes what went over the wire, linked, for every SDK call it covers."""

from __future__ import annotations

import asyncio
import json

import httpx2
import openai

import traceview.record
from tests.record.conftest import API_KEY, read_records


def _client(capture, sim, **kw):
    return traceview.record.client(capture, base_url=sim.base_url, api_key=API_KEY,
                                   max_retries=0, **kw)


def test_request_and_response_are_linked_with_wire_bytes(sim, capture):
    client = _client(capture, sim)
    resp = client.responses.create(model="gpt-4.1", input="Hello there", store=True)
    req, res = read_records(capture)
    assert req["dir"] == "req" and res["dir"] == "res"
    assert req["id"] == res["id"]
    assert req["endpoint"] == "POST /v1/responses"
    assert req["body"] == {"model": "gpt-4.1", "input": "Hello there", "store": True}
    # bytes is the length of what the SDK actually sent, not of a re-serialisation
    assert req["bytes"] == len(json.dumps(req["body"], separators=(",", ":")).encode())
    assert res["status_code"] == 200 and isinstance(res["elapsed_ms"], int)
    assert res["body"]["id"] == resp.id
    assert res["body"]["usage"]["input_tokens"] == resp.usage.input_tokens
    assert req["ts"] <= res["ts"]


def test_stream_is_recorded_as_events_plus_final_body(sim, capture):
    client = _client(capture, sim)
    stream = client.responses.create(model="gpt-4.1", input="Hello", stream=True)
    seen = [event.type for event in stream]
    req, res = read_records(capture)
    assert [e["type"] for e in res["events"]] == seen
    assert res["events"][-1]["type"] == "response.completed"
    assert res["body"] == res["events"][-1]["response"]
    assert res["body"]["usage"]["output_tokens"] > 0


def test_abandoned_stream_is_recorded_without_a_final_body(sim, capture):
    client = _client(capture, sim)
    with client.responses.create(model="gpt-4.1", input="Hello", stream=True) as stream:
        next(iter(stream))
    res = read_records(capture)[1]
    assert res["dir"] == "res" and res["body"] is None
    assert res["events"] and res["events"][0]["type"] == "response.created"


def test_every_covered_endpoint_is_recorded(sim, capture):
    client = _client(capture, sim)
    conv = client.conversations.create()
    first = client.responses.create(model="gpt-4.1", conversation=conv.id, input="Hi")
    client.responses.retrieve(first.id)
    list(client.responses.input_items.list(first.id))
    list(client.conversations.items.list(conv.id, limit=1, include=["file_search_call.results"]))
    client.responses.compact(model="gpt-4.1", input="Summarise: hi")
    client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    client.conversations.delete(conv.id)
    endpoints = [r["endpoint"] for r in read_records(capture) if r["dir"] == "req"]
    assert endpoints[:3] == [
        "POST /v1/conversations", "POST /v1/responses", f"GET /v1/responses/{first.id}"
    ]
    assert f"GET /v1/responses/{first.id}/input_items" in endpoints
    assert any(e.startswith(f"GET /v1/conversations/{conv.id}/items?") and
               "include[]=file_search_call.results" in e for e in endpoints)
    assert "POST /v1/responses/compact" in endpoints
    assert "POST /v1/chat/completions" in endpoints
    assert endpoints[-1] == f"DELETE /v1/conversations/{conv.id}"
    bodies = {r["id"]: r for r in read_records(capture) if r["dir"] == "res"}
    assert all(r["status_code"] == 200 for r in bodies.values())


def test_attach_records_an_existing_client(sim, capture):
    client = openai.OpenAI(base_url=sim.base_url, api_key=API_KEY, max_retries=0)
    assert traceview.record.attach(client, capture) is client
    client.responses.create(model="gpt-4.1", input="Hi")
    assert [r["dir"] for r in read_records(capture)] == ["req", "res"]


def test_fsync_mode_writes_the_same_records(sim, capture):
    client = _client(capture, sim, fsync=True)
    client.responses.create(model="gpt-4.1", input="Hi")
    assert len(read_records(capture)) == 2


async def test_async_client_records_concurrent_tasks(sim, capture):
    client = traceview.record.async_client(capture, base_url=sim.base_url, api_key=API_KEY,
                                           max_retries=0)
    await asyncio.gather(*(client.responses.create(model="gpt-4.1", input=f"task {n}")
                           for n in range(10)))
    stream = await client.responses.create(model="gpt-4.1", input="streamed", stream=True)
    async for _ in stream:
        pass
    await client.close()
    records = read_records(capture)
    assert len(records) == 22
    reqs = {r["id"] for r in records if r["dir"] == "req"}
    assert reqs == {r["id"] for r in records if r["dir"] == "res"}
    assert records[-1]["events"][-1]["type"] == "response.completed"


def test_multipart_upload_is_recorded_as_non_json(sim, capture):
    client = _client(capture, sim)
    uploaded = client.files.create(file=("notes.txt", b"hello world"), purpose="assistants")
    req, res = read_records(capture)
    assert req["body"]["non_json"] is True
    assert req["body"]["content_type"].startswith("multipart/form-data")
    assert res["status_code"] == 200 and res["body"]["filename"] == "notes.txt"
    assert res["body"]["id"] == uploaded.id


def test_gzip_responses_are_recorded_decoded(capture):
    payload = {"id": "resp_1", "object": "response"}
    import gzip

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-encoding": "gzip",
                                             "content-type": "application/json"},
                               content=gzip.compress(json.dumps(payload).encode()))

    recorder = traceview.record.Recorder(capture)
    http = httpx2.Client(transport=traceview.record.RecordingTransport(
        recorder, httpx2.MockTransport(handler)))
    assert http.get("http://127.0.0.1:9/v1/responses/resp_1").json() == payload
    assert read_records(capture)[1]["body"] == payload


def test_a_body_that_is_not_the_gzip_it_claims_is_not_said_to_be_over_the_cap(capture):
    """Its record said "over 33,554,432 bytes (decoded)" of a 30-byte body."""
    body = b'{"id": "resp_1"} is not gzip'

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-encoding": "gzip",
                                             "content-type": "application/json"},
                               stream=httpx2.ByteStream(body))

    recorder = traceview.record.Recorder(capture)
    tx = traceview.record.RecordingTransport(recorder, httpx2.MockTransport(handler))
    response = tx.handle_request(httpx2.Request("GET", "http://127.0.0.1:9/v1/responses/r"))
    assert b"".join(response.stream) == body  # relayed as it came
    response.stream.close()
    kept = read_records(capture)[1]["body"]
    assert kept["bytes"] == len(body) and "not recorded" in kept["not_kept"]
    assert "over" not in kept["not_kept"] and "gzip" in kept["not_kept"]
