"""Crafted captures for the cost tests: a turn is a request and a response body, written
as the two-line capture format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from traceview.analysis.session import Analysis, analyze


def response(model: str, inp: int, out: int, *, cached: int = 0, tier: str | None = "default",
             output: list[dict[str, Any]] | None = None, conv: str | None = None,
             created: int = 1764576000, rid: str = "resp_1") -> dict[str, Any]:
    return {"id": rid, "object": "response", "created_at": float(created),
            "status": "completed", "model": model, "output": output or [],
            "service_tier": tier, "conversation": {"id": conv} if conv else None,
            "usage": {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out,
                      "input_tokens_details": {"cached_tokens": cached},
                      "output_tokens_details": {"reasoning_tokens": 0}}}


def web_search(n: int) -> list[dict[str, Any]]:
    return [{"type": "web_search_call", "id": f"ws_{i}", "status": "completed",
             "action": {"type": "search", "query": "q"}} for i in range(n)]


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def turn(req: dict[str, Any], res: dict[str, Any], **more: Any) -> list[dict[str, Any]]:
    return [{"dir": "req", "body": req}, {"dir": "res", "elapsed_ms": 1000, "body": res, **more}]


def one(tmp_path: Path, req: dict[str, Any], res: dict[str, Any], **kw: Any) -> Analysis:
    """The analysis of a capture of one turn."""
    return analyze([str(write(tmp_path / "c.jsonl", turn(req, res)))], **kw)
