"""A latency model for the simulator, reported rather than slept.

The simulator answers in microseconds; an experiment comparing hosted and owned state
needs the *shape* of real latency: a base cost, a cost per token (prefill of fresh input
is slower than cached input, generation slower still) and, for a hosted ``file_search``,
a retrieval round trip inside the provider whose time has a long tail. The model draws
one figure per response from a seeded generator and the server sends it in the
``x-traceview-simulated-ms`` header; the ``ab`` runner adds it to the measured wall
clock instead of the server sleeping, so tests stay fast and every screen says the
latencies are simulated. It is off unless a server is given one (existing samples and
tests are unchanged).
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from typing import Any

HEADER = "x-traceview-simulated-ms"


@dataclass
class LatencyModel:
    """ms = (base + fresh·a + cached·b + output·c) × spread + Σ retrieval round trips.

    ``spread`` is log-normal with ``spread_sigma``; each hosted search's round trip is
    log-normal around ``retrieval_ms`` with ``retrieval_sigma`` (a heavy right tail).
    Same seed, same request order → the same figures.
    """

    seed: int = 0
    base_ms: float = 420.0
    fresh_token_ms: float = 0.6
    cached_token_ms: float = 0.03
    output_token_ms: float = 2.0
    retrieval_ms: float = 650.0
    retrieval_sigma: float = 0.85
    spread_sigma: float = 0.1
    _rng: random.Random = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def draw(self, fresh: int, cached: int, output: int, searches: int) -> int:
        with self._lock:
            spread = self._rng.lognormvariate(0.0, self.spread_sigma)
            trips = [self._rng.lognormvariate(0.0, self.retrieval_sigma)
                     for _ in range(searches)]
        work = (self.base_ms + fresh * self.fresh_token_ms + cached * self.cached_token_ms
                + output * self.output_token_ms)
        return int(round(work * spread + sum(self.retrieval_ms * t for t in trips)))

    def for_response(self, body: dict[str, Any]) -> int:
        """The simulated time of one created response body."""
        usage = body.get("usage") or {}
        inp = int(usage.get("input_tokens") or 0)
        cached = int((usage.get("input_tokens_details") or {}).get("cached_tokens") or 0)
        out = int(usage.get("output_tokens") or 0)
        searches = sum(1 for i in body.get("output") or []
                       if isinstance(i, dict) and i.get("type") == "file_search_call")
        return self.draw(max(inp - cached, 0), cached, out, searches)
