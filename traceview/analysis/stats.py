"""Totals over turns: tokens, hosted calls, cost, latency percentiles."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from itertools import accumulate
from typing import Any


def percentiles(values: list[int]) -> dict[str, float | None]:
    """p50 / p95 by linear interpolation (statistics' inclusive method); null when empty."""
    if not values:
        return {"p50": None, "p95": None}
    if len(values) == 1:
        return {"p50": float(values[0]), "p95": float(values[0])}
    import statistics  # pulls in fractions and decimal: only when used

    q = statistics.quantiles(values, n=100, method="inclusive")
    return {"p50": round(q[49], 1), "p95": round(q[94], 1)}


def _order_stats(counts: Counter[int], wanted: Sequence[int]) -> dict[int, int]:
    """The values at the sorted positions `wanted` (0-based) of the multiset `counts`: the
    first distinct value whose running count passes the position."""
    values = sorted(counts)
    ends = list(accumulate(map(counts.__getitem__, values)))  # one past each value's last
    return {w: values[bisect_right(ends, w)] for w in set(wanted)}


def latency_percentiles(*parts: Sequence[int]) -> dict[str, float | None]:
    """`percentiles` of the values of `parts` together, with the same arithmetic as
    statistics.quantiles(method="inclusive"), reading only the two order statistics each
    percentile interpolates between: the values are counted (one entry per distinct
    latency), not copied into a sorted list of int objects (40 bytes a turn)."""
    size = sum(map(len, parts))
    if size < 2:
        return percentiles([v for p in parts for v in p])
    counts: Counter[int] = Counter()
    for p in parts:
        counts.update(p)
    m, n = size - 1, 100
    at = {i: divmod(i * m, n) for i in (50, 95)}
    values = _order_stats(counts, [j + d for j, _ in at.values() for d in (0, 1)])
    q = {i: (values[j] * (n - delta) + values[j + 1] * delta) / n
         for i, (j, delta) in at.items()}
    return {"p50": round(q[50], 1), "p95": round(q[95], 1)}


LATENCY_BASIS = ("caller latency per turn: the final attempt's elapsed_ms plus every failed "
                 "attempt retried before it")


class Totals:
    """Capture-wide sums, kept as turns are analysed.

    The analyzer adds each turn while it already holds the turn's numbers, so totals cost
    no second pass over a hundred thousand turns.
    """

    __slots__ = ("turns", "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens",
                 "request_bytes", "owned_state_bytes", "hosted_calls", "cost_usd",
                 "hosted_fees_usd", "priced", "cost_unknown_turns", "latency_hosted",
                 "latency_plain", "markers", "attempts", "usage_turns",
                 "cost_turns", "timing")

    def __init__(self) -> None:
        self.turns = 0
        self.input_tokens = self.cached_tokens = self.output_tokens = 0
        self.reasoning_tokens = self.request_bytes = self.owned_state_bytes = 0
        self.hosted_calls = self.cost_unknown_turns = 0
        self.cost_usd = self.hosted_fees_usd = 0.0
        self.priced = False
        # Each turn's caller latency, in arrays (8 bytes a turn, where a list of int
        # objects held 40): turns with hosted tool calls, and those without. The
        # capture's percentiles are over both.
        self.latency_hosted = array("q")
        self.latency_plain = array("q")
        self.markers: dict[str, int] = {}
        self.attempts = 0  # failed attempts that were retried (not counted as turns)
        self.usage_turns = 0  # turns whose billed usage is known
        self.cost_turns = 0  # turns whose cost is known
        self.timing = TimingTotals((self.latency_hosted, self.latency_plain))

    def add_turn(self, has_res: bool, input_tokens: int | None, cached: int | None,
                 output: int | None, reasoning: int | None, request_bytes: int | None,
                 owned: int | None, hosted_calls: int, caller_ms: int | None,
                 tokens_usd: float | None, hosted_usd: float, attempts: int,
                 markers: list[str]) -> None:
        """One analysed turn into the sums (`attempts`: its failed tries retried)."""
        self.turns += 1
        self.owned_state_bytes += owned or 0
        self.hosted_fees_usd += hosted_usd
        if input_tokens is not None:
            self.input_tokens += input_tokens
            self.usage_turns += 1
        self.cached_tokens += cached or 0
        self.output_tokens += output or 0
        self.reasoning_tokens += reasoning or 0
        if caller_ms is not None:
            (self.latency_hosted if hosted_calls else self.latency_plain).append(caller_ms)
        self.hosted_calls += hosted_calls
        self.request_bytes += request_bytes or 0
        if tokens_usd is None:
            self.cost_unknown_turns += 1
        else:
            self.priced = True
            self.cost_turns += 1
            self.cost_usd += tokens_usd + hosted_usd
        self.attempts += attempts
        counts = self.markers
        for marker in markers:
            counts[marker] = counts.get(marker, 0) + 1

    def count_marker(self, marker: str) -> None:
        """One more turn carries `marker`."""
        self.markers[marker] = self.markers.get(marker, 0) + 1

    def to_dict(self) -> dict[str, Any]:
        known = self.usage_turns > 0  # a total over turns that are all unknown is unknown
        return {
            "turns": self.turns,
            "input_tokens": self.input_tokens if known else None,
            "cached_tokens": self.cached_tokens if known else None,
            "output_tokens": self.output_tokens if known else None,
            "reasoning_tokens": self.reasoning_tokens if known else None,
            "usage_turns": self.usage_turns,
            "cost_turns": self.cost_turns,
            "attempts": self.attempts,
            "request_bytes": self.request_bytes,
            "owned_state_bytes": self.owned_state_bytes,
            "hosted_calls": self.hosted_calls,
            "cost_usd": round(self.cost_usd, 6) if self.priced else None,
            "hosted_fees_usd": round(self.hosted_fees_usd, 6),
            "cost_unknown_turns": self.cost_unknown_turns,
            "latency_ms": {
                **latency_percentiles(self.latency_hosted, self.latency_plain),
                "basis": LATENCY_BASIS,
                "with_hosted_tools": latency_percentiles(self.latency_hosted),
                "without": latency_percentiles(self.latency_plain),
            },
            "markers": self.markers,
            **self.timing.to_dict(),
        }


CALLER_BASIS = ("first attempt sent -> final response received, backoff between attempts "
                "included where the recorder's ts says (analysis/timing.py); turns retried "
                "without ts count their attempts' elapsed_ms only")
TTFT_BASIS = ("request sent -> first output text or output item event, from the arrival "
              "offsets the recorder and proxy keep beside stream events (event_ms)")


class TimingTotals:
    """Caller latency and time to first token of every turn that has them, split by
    whether a hosted tool ran. A turn's caller latency is its latency in the capture's
    totals (`latency`: Totals' two arrays) on every turn but a retried one whose `ts`
    measured the backoff: only those few are kept here, not a second array a turn."""

    __slots__ = ("latency", "apart", "ttft_hosted", "ttft_plain", "caller_no_ts")

    def __init__(self, latency: tuple[array[int], array[int]]) -> None:
        self.latency = latency
        # (hosted, its latency in `latency`, its caller latency) where the two differ
        self.apart: list[tuple[bool, int | None, int | None]] = []
        self.ttft_hosted, self.ttft_plain = array("q"), array("q")
        self.caller_no_ts = 0  # retried turns whose backoff could not be measured

    def add(self, hosted: bool, caller_ms: int | None, ttft_ms: int | None,
            no_ts: bool, latency_ms: int | None) -> None:
        """One turn; `latency_ms`: what the capture's totals hold of it."""
        if caller_ms != latency_ms:
            self.apart.append((hosted, latency_ms, caller_ms))
        if ttft_ms is not None:
            (self.ttft_hosted if hosted else self.ttft_plain).append(ttft_ms)
        self.caller_no_ts += no_ts

    @property
    def caller_hosted(self) -> array[int]:
        return self._caller(True)

    @property
    def caller_plain(self) -> array[int]:
        return self._caller(False)

    def _caller(self, hosted: bool) -> array[int]:
        """The caller latencies of the turns with (or without) hosted tools, in no
        particular order (their percentiles are read): the totals' latencies with the
        turns kept apart swapped in."""
        held = self.latency[0 if hosted else 1]
        moved = [(was, now) for h, was, now in self.apart if h is hosted]
        if not moved:
            return held
        out = array("q", held)
        for was, now in moved:
            if was is not None:
                out.remove(was)
            if now is not None:
                out.append(now)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "caller_latency_ms": {
                **latency_percentiles(self.caller_hosted, self.caller_plain),
                "basis": CALLER_BASIS, "retried_without_ts": self.caller_no_ts,
                "with_hosted_tools": latency_percentiles(self.caller_hosted),
                "without": latency_percentiles(self.caller_plain)},
            "ttft_ms": {
                **latency_percentiles(self.ttft_hosted, self.ttft_plain),
                "basis": TTFT_BASIS, "turns": len(self.ttft_hosted) + len(self.ttft_plain),
                "with_hosted_tools": latency_percentiles(self.ttft_hosted),
                "without": latency_percentiles(self.ttft_plain)},
        }
