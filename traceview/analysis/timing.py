"""Time as the caller saw it, per turn: when the output began (time to first token), how
long it took to generate, the provider's processing share against network and queue, what
the caller waited over every attempt (backoff included), a background job's wall time,
and what the stream's events say as evidence (counts by type, sequence faults, text that
disagrees with itself).

One small immutable record per turn (TurnTiming), made when read from the turn's facts: the
arrival offsets the recorder and proxy keep beside stream events (``event_ms``), the
``ts`` of each attempt's request, ``openai-processing-ms``. What a capture cannot say is
None, never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from traceview.capture.model import Attempt

# How caller latency was measured (TurnTiming.caller_latency_basis).
BASIS_TS = "ts"  # first attempt's request sent -> final response received, recorder clock
BASIS_ELAPSED = "elapsed"  # one attempt: its elapsed_ms is the whole wait
BASIS_NO_TS = "elapsed_sum_no_ts"  # retried, no ts: the attempts' elapsed, backoff left out


class TurnTiming(NamedTuple):
    """One turn's timing and stream evidence (report key "timing"): a tuple, made for
    every turn a report writes."""

    ttft_ms: int | None = None  # request sent -> first output text or output item event
    generation_ms: int | None = None  # first output event -> last event
    output_tokens_per_s: float | None = None  # output tokens over the generation time
    processing_ms: int | None = None  # openai-processing-ms of the final attempt
    processing_share: float | None = None  # processing_ms / elapsed_ms (None: header past it)
    network_queue_ms: int | None = None  # elapsed_ms - processing_ms
    hosted_ms: int | None = None  # streamed: time inside hosted calls (item added -> done)
    caller_latency_ms: int | None = None  # first attempt sent -> final response received
    caller_latency_basis: str | None = None  # BASIS_TS | BASIS_ELAPSED | BASIS_NO_TS
    backoff_ms: int | None = None  # what the caller waited between attempts (ts only)
    background_ms: int | None = None  # background job: create -> terminal status
    background_polls: int | None = None  # GETs that read its status (0: streamed)
    background_basis: str | None = None  # "ts" | "provider_seconds" | "stream"
    stream_events_by_type: dict[str, int] | None = None
    stream_sequence_faults: int | None = None  # duplicate, missing, out-of-order numbers
    stream_text_mismatch: str | None = None  # deltas disagree with .done or the body

    def to_dict(self) -> dict[str, Any]:
        """The report's dict, written out: made for every turn, a dict display is made
        at its size (pairs zipped in grew it twice on the way)."""
        (ttft, gen, rate, processing, share, queue, hosted, caller, basis, backoff, wall,
         polls, wall_basis, types, faults, mismatch) = self
        return {"ttft_ms": ttft, "generation_ms": gen, "output_tokens_per_s": rate,
                "processing_ms": processing, "processing_share": share,
                "network_queue_ms": queue, "hosted_ms": hosted, "caller_latency_ms": caller,
                "caller_latency_basis": basis, "backoff_ms": backoff, "background_ms": wall,
                "background_polls": polls, "background_basis": wall_basis,
                "stream_events_by_type": None if types is None else dict(types),
                "stream_sequence_faults": faults, "stream_text_mismatch": mismatch}


NO_TIMING = TurnTiming()


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


def caller_latency(attempts: Sequence[Attempt], elapsed_ms: int | None,
                   sent_ts: Any) -> tuple[int | None, str | None, int | None]:
    """(caller latency ms, its basis, backoff ms). With the recorder's ``ts`` of the first
    attempt's request and the final one's: the final request's start less the first's,
    plus the final attempt's own elapsed time — the waits between attempts included."""
    if elapsed_ms is None:
        return None, None, None
    if not attempts:
        return elapsed_ms, BASIS_ELAPSED, None
    tried = sum(a.elapsed_ms or 0 for a in attempts)
    first = attempts[0].sent_ts
    if type(first) in (int, float) and type(sent_ts) in (int, float) and sent_ts >= first:
        total = _ms(sent_ts - first) + elapsed_ms
        return total, BASIS_TS, max(0, total - tried - elapsed_ms)
    return elapsed_ms + tried, BASIS_NO_TS, None


def _generation(stream: dict[str, Any], output_tokens: int | None) -> tuple[
        int | None, float | None]:
    ttft, last = stream.get("ttft_ms"), stream.get("last_ms")
    if ttft is None or last is None:
        return None, None
    gen = max(0, last - ttft)
    rate = round(output_tokens * 1000 / gen, 1) if output_tokens and gen > 0 else None
    return gen, rate


def _background(req_extra: dict[str, Any] | None, res_extra: dict[str, Any] | None,
                stream: dict[str, Any] | None) -> tuple[int | None, int | None, str | None]:
    """(wall ms, polls) of a background job: polled (create request's ts -> the ts of the
    poll that read the terminal status; without ts the provider's created_at ->
    completed_at, whole seconds), or streamed (the last event's arrival)."""
    polled = res_extra.get("background") if res_extra else None
    if polled is not None:
        sent = req_extra.get("ts") if req_extra else None
        done = polled.get("done_ts")
        if sent is not None and done is not None and done >= sent:
            return _ms(done - sent), polled["polls"], "ts"
        span = polled.get("span_s")
        if span is not None:
            return span * 1000, polled["polls"], "provider_seconds"
        return None, polled["polls"], None
    if stream is not None and stream.get("last_ms") is not None:
        return stream["last_ms"], 0, "stream"
    return None, None, None


def turn_timing(attempts: Sequence[Attempt], elapsed_ms: int | None,
                output_tokens: int | None, background: bool,
                req_extra: dict[str, Any] | None,
                res_extra: dict[str, Any] | None) -> TurnTiming:
    """The turn's TurnTiming from its facts (see the module's docstring)."""
    sent_ts = req_extra.get("ts") if req_extra else None
    caller, basis, backoff = caller_latency(attempts, elapsed_ms, sent_ts)
    processing = res_extra.get("processing_ms") if res_extra else None
    share = queue = None
    if processing is not None and elapsed_ms and processing <= elapsed_ms:
        # A header past the measured elapsed time comes from another clock (a simulator's
        # model of server time): no share is claimed then.
        share = round(processing / elapsed_ms, 3)
        queue = elapsed_ms - processing
    stream = res_extra.get("stream") if res_extra else None
    gen, rate = _generation(stream, output_tokens) if stream else (None, None)
    polled = res_extra is not None and "background" in res_extra
    wall, polls, wall_basis = _background(req_extra, res_extra, stream) \
        if background or polled else (None, None, None)
    if stream is None:
        if caller is None and processing is None and wall is None:
            return NO_TIMING
        return TurnTiming(processing_ms=processing, processing_share=share,
                          network_queue_ms=queue, caller_latency_ms=caller,
                          caller_latency_basis=basis, backoff_ms=backoff,
                          background_ms=wall, background_polls=polls,
                          background_basis=wall_basis)
    return TurnTiming(
        stream.get("ttft_ms"), gen, rate, processing, share, queue, stream.get("hosted_ms"),
        caller, basis, backoff,
        wall, polls, wall_basis, dict(stream["types"]), stream["sequence_faults"],
        stream["text_mismatch"])


def timing_of(report: Any) -> dict[str, Any]:
    """A TurnReport's timing as the report writes it (its `timing` property, made when
    read, like `cost`)."""
    req, res = report.req, report.res
    if res is None:
        return timing_dict(False, (), None, None, False, None, None)
    return timing_dict(True, report.turn.attempts, res.elapsed_ms, res.output_tokens,
                       bool(req.background) if req is not None else False,
                       req.extra if req is not None else None, res.extra)


def timing_dict(answered: bool, attempts: Sequence[Attempt], elapsed_ms: int | None,
                output_tokens: int | None, background: bool,
                req_extra: dict[str, Any] | None,
                res_extra: dict[str, Any] | None) -> dict[str, Any]:
    """A turn's timing as the report writes it: nothing known of a turn without a
    response (`answered` False), else `turn_timing` of its facts."""
    if not answered:
        return NO_TIMING.to_dict()
    return turn_timing(attempts, elapsed_ms, output_tokens, background, req_extra,
                       res_extra).to_dict()


def response_limits(res: Any) -> dict[str, str] | None:
    """Retry-After and x-ratelimit-* of a response, as the recorder kept them."""
    x = res.extra if res is not None else None
    return x.get("limits") if x else None
