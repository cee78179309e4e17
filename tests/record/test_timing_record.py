"""Arrival times and rate-limit headers, recorded through the real openai SDK against the
simulator — by the recorder and by the proxy — and read back as each turn's timing
(issue #34): plain, streamed, retried after a 429 with Retry-After, background polled."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai

import traceview.record
from tests.record.conftest import API_KEY, read_records
from traceview.cli import main
from traceview.record.proxy_server import ProxyServer
from traceview.record.recorder import FrozenClock, Recorder
from traceview.sim import SimServer


def _report(path: Path, capsys: Any) -> dict[str, Any]:
    assert main(["report", str(path), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _drain(client: openai.OpenAI, text: str) -> None:
    with client.responses.create(model="gpt-4.1", input=text, stream=True) as stream:
        for _ in stream:
            pass


def test_recorder_keeps_an_arrival_offset_per_event_and_the_report_reads_them(
        sim: SimServer, capture: Path, capsys: Any) -> None:
    client = traceview.record.client(capture, base_url=sim.base_url, api_key=API_KEY,
                                     max_retries=2)
    client.responses.create(model="gpt-4.1", input="plain")
    _drain(client, "streamed")
    sim.inject(status=429, times=1)
    client.responses.create(model="gpt-4.1", input="retried")  # the SDK waits Retry-After
    job = client.responses.create(model="gpt-4.1", input="in the background", background=True)
    while job.status in ("queued", "in_progress"):
        job = client.responses.retrieve(job.id)
    records = read_records(capture)
    [streamed] = [r for r in records if r.get("events")]
    ms = streamed["event_ms"]
    assert len(ms) == len(streamed["events"]) and ms == sorted(ms) and ms[0] >= 0
    assert "event_ms" not in {k for r in records if not r.get("events") for k in r}
    limited = [r for r in records if r.get("status_code") == 429]
    assert limited[0]["headers"]["retry-after"] == "2"
    assert limited[0]["headers"]["x-ratelimit-remaining-requests"] == "0"

    doc = _report(capture, capsys)
    plain, stream, retried, background = (t["timing"] for t in doc["turns"])
    assert plain["caller_latency_basis"] == "elapsed" and plain["ttft_ms"] is None
    assert stream["ttft_ms"] is not None and stream["generation_ms"] is not None
    assert stream["stream_events_by_type"]["response.output_text.delta"] > 1
    assert stream["stream_sequence_faults"] == 0 and stream["stream_text_mismatch"] is None
    # first attempt sent -> final response received: the 2 s Retry-After wait is in it
    assert retried["caller_latency_basis"] == "ts" and retried["backoff_ms"] >= 1900
    assert retried["caller_latency_ms"] >= 2000 > doc["turns"][2]["caller_elapsed_ms"]
    assert doc["turns"][2]["attempts"][0]["limits"]["retry-after"] == "2"
    assert background["background_polls"] == 3  # queued, in_progress twice, then its end
    assert background["background_basis"] == "ts" and background["background_ms"] >= 0
    totals = doc["totals"]
    assert totals["ttft_ms"]["turns"] == 1 and totals["ttft_ms"]["p50"] == stream["ttft_ms"]
    assert totals["caller_latency_ms"]["p95"] >= 1000


def test_the_proxy_records_arrival_offsets_the_report_turns_into_ttft(
        tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "proxy.jsonl"
    with SimServer(seed="timing") as sim, ProxyServer(out, upstream=sim.base_url) as proxy:
        _drain(openai.OpenAI(base_url=proxy.base_url, api_key=API_KEY, max_retries=0),
               "through the proxy")
    [res] = [r for r in read_records(out) if r["dir"] == "res"]
    assert len(res["event_ms"]) == len(res["events"])
    timing = _report(out, capsys)["turns"][0]["timing"]
    assert timing["ttft_ms"] is not None and timing["ttft_ms"] <= res["elapsed_ms"]


def test_a_frozen_clock_writes_no_arrival_offsets(sim: SimServer, capture: Path) -> None:
    recorder = Recorder(capture, clock=FrozenClock())
    client = traceview.record.client(recorder, base_url=sim.base_url, api_key=API_KEY)
    _drain(client, "deterministic")
    assert all("event_ms" not in r for r in read_records(capture))
