"""Small, explicit capture builders for core tests: plain dicts shaped like model_dump()."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson


def usage(inp: int, out: int, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    return {"input_tokens": inp, "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": out, "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": inp + out}


def message(text: str, mid: str = "msg_1") -> dict[str, Any]:
    return {"id": mid, "type": "message", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def file_search(fid: str = "fs_1", results: Any = None) -> dict[str, Any]:
    return {"id": fid, "type": "file_search_call", "status": "completed",
            "queries": ["excess"], "results": results}


def response(rid: str, inp: int | None, out: int | None, *, output: list | None = None,
             conv: str | None = None, status: str = "completed", model: str = "gpt-4o-mini",
             cached: int = 0, reasoning: int = 0, **extra: Any) -> dict[str, Any]:
    body = {"id": rid, "object": "response", "created_at": 1.0, "status": status,
            "model": model, "output": output if output is not None else [message("ok")],
            "usage": usage(inp, out, cached, reasoning) if inp is not None else None,
            "conversation": {"id": conv} if conv else None, "error": None,
            "incomplete_details": None}
    body.update(extra)
    return body


def req(body: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"dir": "req", "body": body, **extra}


def res(body: Any, elapsed: int | None = 1000, **extra: Any) -> dict[str, Any]:
    return {"dir": "res", "elapsed_ms": elapsed, "body": body, **extra}


def write(path: Path, records: list[Any]) -> Path:
    with open(path, "wb") as f:
        for r in records:
            f.write(r if isinstance(r, bytes) else orjson.dumps(r))
            f.write(b"\n")
    return path


def conv_turn(conv: str, text: str, rid: str, inp: int, out: int, *, tools: bool = False,
              output: list | None = None, include: list[str] | None = None,
              cached: int = 0, elapsed: int = 1000) -> list[dict[str, Any]]:
    body: dict[str, Any] = {"model": "gpt-4o-mini", "conversation": conv, "input": text}
    if tools:
        body["tools"] = [{"type": "file_search", "vector_store_ids": ["vs_1"]}]
    if include:
        body["include"] = include
    return [req(body), res(response(rid, inp, out, output=output, conv=conv, cached=cached),
                           elapsed)]
