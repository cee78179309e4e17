"""Background mode: a response created queued or in progress, its outcome read from a
later GET /v1/responses/{id} the capture holds, with how many polls it took.

Apart from the reader (reader.py), which finds the poll that answers a turn: this makes
the turn's response of it.
"""

from __future__ import annotations

from typing import Any

from traceview.capture.model import ResponseFacts, Turn
from traceview.capture.response_facts import response_facts


def polled_response(turn: Turn, body: dict[str, Any], ts: Any) -> ResponseFacts:
    """The response a poll's `body` says `turn` ended with: the create call's elapsed time
    kept, the polls counted."""
    facts = response_facts({"body": body, "elapsed_ms": None})
    elapsed = turn.res.elapsed_ms if turn.res else None
    facts.elapsed_ms = elapsed
    _count_poll(facts, turn, ts, body)
    return facts


def _count_poll(facts: ResponseFacts, turn: Turn, ts: Any, body: dict[str, Any]) -> None:
    """A background job's polls so far, when the latest answer arrived (the recorder's
    `ts`: its wall time runs from the create request to the terminal status) and, without
    a `ts`, the provider's own created_at -> completed_at (whole seconds)."""
    before = turn.res.extra if turn.res is not None else None
    polls = (before or {}).get("background", {}).get("polls", 0) + 1
    created, completed = body.get("created_at"), body.get("completed_at")
    span = completed - created if type(created) is int and type(completed) is int \
        and completed >= created else None
    if facts.extra is None:
        facts.extra = {}
    facts.extra["background"] = {
        "polls": polls, "done_ts": ts if type(ts) in (int, float) else None, "span_s": span}
