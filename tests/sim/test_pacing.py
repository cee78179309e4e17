"""Stream pacing: a provider sends a stream's tokens spaced out, not in one burst; the
simulator does the same when given ``stream_gap_ms`` (bench/proxy.py measures the proxy's
per-chunk delay on such streams). Off by default: a stream is a burst."""

from __future__ import annotations

import time

import openai

from traceview.sim import SimServer

GAP_MS = 10


def _stream(sim: SimServer) -> tuple[list[float], float]:
    """Each event's arrival (s after the request went out), and the request's own time."""
    client = openai.OpenAI(base_url=sim.base_url, api_key="sk-sim-test-000000000000",
                           max_retries=0)
    sent = time.perf_counter()
    with client.responses.create(model="gpt-4.1", input="Tell me a story", stream=True) as s:
        arrivals = [time.perf_counter() - sent for _ in s]
    client.close()
    return arrivals, time.perf_counter() - sent


def test_a_paced_stream_spreads_its_events_over_the_gap_times_their_count():
    with SimServer(stream_gap_ms=GAP_MS) as sim:
        arrivals, _ = _stream(sim)
    # event n leaves n gaps after the first: the last cannot arrive sooner than that
    assert len(arrivals) > 10
    assert arrivals[-1] >= (len(arrivals) - 1) * GAP_MS / 1000


def test_by_default_a_stream_is_one_burst():
    with SimServer() as sim:
        assert sim.stream_gap == 0
        arrivals, took = _stream(sim)
    assert len(arrivals) > 10 and took < (len(arrivals) - 1) * 5 * GAP_MS / 1000
