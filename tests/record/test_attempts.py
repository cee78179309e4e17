"""The SDK's own retries, recorded and read back: one turn with its attempts (issue #10)."""

from __future__ import annotations

import traceview.record
from tests.record.conftest import API_KEY
from traceview.analysis import analyze


def test_sdk_retry_after_a_server_error_is_one_turn_with_two_attempts(sim, capture):
    sim.inject(status=500, times=1)
    client = traceview.record.client(capture, base_url=sim.base_url, api_key=API_KEY,
                                     max_retries=1)
    first = client.with_options(timeout=5).responses.create(model="gpt-4.1", input="hi")
    client.responses.create(model="gpt-4.1", input="and then?", previous_response_id=first.id)
    a = analyze(str(capture))
    assert [t.index for t in a.turns] == [1, 2] and len(a.conversations) == 1
    t1 = a.turns[0]
    assert t1.markers == ["retried"] and t1.status == "completed"
    assert [(x["status"], x["http_status"]) for x in t1.attempts] == [
        ("failed", 500), ("completed", 200)]
    assert t1.caller_elapsed_ms == t1.elapsed_ms + (t1.attempts[0]["elapsed_ms"] or 0)
