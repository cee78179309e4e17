"""Token counts made where a capture's chunks are read: in the worker processes.

Counting a request's text in the model's encoding is most of an input account's cost,
and the vocabulary it needs is the largest thing a report would hold (o200k: ~70 MB). A
worker that reads a chunk (capture/parallel.py) also runs each request's account there,
and sends back the counts it read, by digest; the main process remembers them
(`tokens.remember`) before it pairs that chunk, so its own accounts — the same function,
run where the turns are known — find every count remembered and never load a
vocabulary. A count that was not sent is made where it is asked for: the result is the
same either way, only where the work ran differs.
"""

from __future__ import annotations

from typing import Any

import orjson

from traceview.analysis.account.account import account
from traceview.analysis.account.tokens import Key, fresh, remember

_CHAT = "POST /v1/chat/completions"
_RESPONSES = "POST /v1/responses"


def count_requests(requests: list[bytes]) -> dict[Key, int]:
    """In a worker: each request line's account made, and the counts it read returned."""
    seen = fresh()
    for raw in requests:
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        body = record.get("body") if isinstance(record, dict) else None
        if not isinstance(body, dict):
            continue
        endpoint = record.get("endpoint")
        chat = isinstance(endpoint, str) and "chat/completions" in endpoint
        try:
            account(body, None, _CHAT if chat else _RESPONSES)
        except Exception:  # noqa: BLE001 - a body the account trips on: counted where used
            continue
    return seen


def take_counts(counts: Any) -> None:
    """Here: a worker's counts remembered, before the chunk's turns are paired."""
    if isinstance(counts, dict):
        remember(counts)


ALONG = (count_requests, take_counts)
