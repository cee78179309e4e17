"""A capture whose values cross every item-size boundary of the turn table's columns
(1, 2, 4 and 8 bytes; LIMIT; negative; missing), each first appearing in the middle of the
capture, after a run of small values: what makes a narrow column widen while views and
bindings of it are already held (issue #11's memory work)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from traceview.capture.side_columns import LIMIT

# Values at and around each boundary a column steps through.
EDGES = (0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 2**31 - 1, 2**31,
         2**32 - 1, 2**32, LIMIT - 1, LIMIT, LIMIT + 1, 2**53, 2**63 - 1, 2**64, 10**30, -1,
         -129, None)
CREATED = ("0", "1", "127", "128", "2147483647", "2147483648", "4294967295", "4294967296",
           "1756051200.5", "9007199254740993", "9" * 320, "1756051200")
SMALL_TURNS = 140  # past 127 rows: the row and index columns widen here


def _dumps(value: Any) -> bytes:
    """JSON of `value` (integers past 64 bits too, which orjson refuses)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _usage(inp: Any, out: Any, cached: Any = 0, reasoning: Any = 0) -> dict[str, Any]:
    return {"input_tokens": inp, "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": out, "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": 0}


def _turn(k: int, conv: str, inp: Any, out: Any, *, elapsed: Any = 900, model: str = "gpt-4o",
          text: str = "hi", created: str = "1756051200", calls: int = 0, status: str = "completed",
          prev: str | None = None, cached: Any = 0, reasoning: Any = 0,
          fingerprint: str | None = None) -> list[bytes]:
    body: dict[str, Any] = {"model": model, "input": text, "store": True,
                            "tools": [{"type": "web_search"}],
                            "include": ["web_search_call.action.sources"]}
    if prev:
        body["previous_response_id"] = prev
    else:
        body["conversation"] = conv
    output: list[dict[str, Any]] = [
        {"id": f"ws_{k}_{j}", "type": "web_search_call", "status": "completed",
         "action": {"type": "search", "query": f"q{k}.{j} " + "é" * (j % 7),
                    "sources": [{"type": "url", "url": f"https://e.x/{k}/{j}"}]}}
        for j in range(calls)]
    output.append({"id": f"msg_{k}", "type": "message", "role": "assistant",
                   "status": "completed",
                   "content": [{"type": "output_text", "text": "ok", "annotations": []}]})
    res = {"id": f"resp_{k:06d}", "object": "response", "status": status, "model": model,
           "output": output, "usage": _usage(inp, out, cached, reasoning),
           "conversation": None if prev else {"id": conv}, "error": None,
           "incomplete_details": None, "system_fingerprint": fingerprint}
    head = b'{"dir":"res","elapsed_ms":' + _dumps(elapsed) + \
        b',"body":{"created_at":' + created.encode() + b"," + _dumps(res)[1:] + b"}"
    return [_dumps({"dir": "req", "body": body}), head]


def lines() -> list[bytes]:
    out: list[bytes] = []
    k = 0
    # A long run of small, ordinary turns: every column still 1 byte wide.
    for i in range(SMALL_TURNS):
        out += _turn(k, f"conv_{i % 3}", 20 + i % 50, 5, elapsed=i % 100)
        k += 1
    out.append(b'{"dir":"req","body":{"model":')  # a damaged line in the middle
    out.append(b"\xff\xfe not json")
    # Every boundary value, in every count a turn has, in its own conversation.
    for n, v in enumerate(EDGES):
        out += _turn(k, f"edge_{n}", v, v, elapsed=v, cached=v, reasoning=v,
                     created=CREATED[n % len(CREATED)], calls=n % 4,
                     text="x" * (300 + n) + "\u00e9\U0001f600")
        k += 1
        out += _turn(k, f"edge_{n}", 100, 10, prev=f"resp_{k - 1:06d}")
        k += 1
    # Past 255 distinct pool values (models, fingerprints, conversations): pooled columns
    # leave their bytearrays in the middle of the capture; from the 100th on, 640 bytes of
    # user text a turn take the texts' buffer past 65,535 (2-byte starts widen to 4).
    for i in range(300):
        out += _turn(k, f"many_{i}", 1000 + i, 20, model=f"m-{i}", fingerprint=f"fp_{i}",
                     text="t" * 200 if i < 100 else "\U0001f600" * 170,
                     calls=1 if i % 5 == 0 else 0)
        k += 1
    # A retried turn (same input twice, the first failed) and a response without request.
    out += _turn(k, "retry", 50, 0, status="failed", text="again")
    k += 1
    out += _turn(k, "retry", 50, 5, text="again")
    k += 1
    out.append(_turn(k, "orphan", 70, 7)[1])
    return out


def write(path: Path) -> Path:
    path.write_bytes(b"\n".join(lines()) + b"\n")
    return path
