"""Each request's half of its input account, made where a capture's chunks are read: in
the worker processes.

Itemising a request (counting its text in the model's encoding, building its lines) is
most of an input account's cost, and the vocabulary it needs is the largest thing a
report would hold (o200k: ~70 MB). A worker that reads a chunk (capture/parallel.py)
makes each request's half (rules/request_half.py `request_half`: the request's lines and what
follows from them alone) from the record it parsed for the line's facts, and sends the
halves back by offset,
with the counts it read by digest. The main process keeps them until the turn is
analysed and joins the half with the response's lines. A half made for another model
(the response named a different one), or that needed earlier turns (resent reasoning by
id), is made again where the turns are known, from the counts sent: the same function
either way, only where the work ran differs.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from traceview.analysis.account.tokens import fresh, shared
from traceview.analysis.rules.request_half import Half, request_half

Halves = dict[int, Half]


class _Asked(Mapping[str, tuple[int, int | None]]):
    """No earlier turn's reasoning, noting whether the request asked for some."""

    def __init__(self) -> None:
        self.asked = False

    def __getitem__(self, key: str) -> tuple[int, int | None]:
        self.asked = True
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def request_halves(requests: list[tuple[int, dict[str, Any]]]
                   ) -> tuple[dict[bytes, int], Halves]:
    """In a worker: each request record's half by its offset, and the counts it read. The
    chunk's requests repeat their lines and facts: each distinct one is one object, sent
    once (pickle sends an object it has sent already as a reference)."""
    seen = fresh()
    halves: Halves = {}
    pool: dict[Any, Any] = {}
    asked = _Asked()  # one for the chunk, told afresh for each request
    for offset, record in requests:
        body = record.get("body")
        if not isinstance(body, dict):
            continue
        endpoint = record.get("endpoint")
        chat = isinstance(endpoint, str) and "chat/completions" in endpoint
        asked.asked = False
        try:
            half = request_half(body, None, chat, asked, pool)
        except Exception:  # noqa: BLE001 - a body the account trips on: made where used
            continue
        if not asked.asked:
            halves[offset] = half
    return shared(seen), halves
