"""Server-sent events for ``stream: true``, in the provider's order and shapes."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

_PIECES = re.compile(r"\S+\s*|\s+")


def _obfuscation(seed: str, delta: str) -> str:
    """Padding the provider adds to deltas (length hides the delta's length)."""
    pad = max(1, 16 - len(delta))
    return hashlib.sha256(seed.encode()).hexdigest()[:pad]


def _snapshot(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "status": "in_progress", "completed_at": None, "output": [], "usage": None}


def events(body: dict[str, Any], obfuscate: bool = True) -> Iterator[dict[str, Any]]:
    """Every event of a streamed response whose final state is ``body``."""
    seq = 0

    def ev(kind: str, **fields: Any) -> dict[str, Any]:
        nonlocal seq
        out = {"type": kind, "sequence_number": seq, **fields}
        seq += 1
        return out

    yield ev("response.created", response=_snapshot(body))
    yield ev("response.in_progress", response=_snapshot(body))
    for index, item in enumerate(body["output"]):
        kind = item.get("type")
        if kind == "message":
            yield from _message(ev, index, item, obfuscate)
            continue
        if kind == "file_search_call":
            added = {**item, "status": "in_progress", "queries": [], "results": None}
        elif kind == "web_search_call":
            added = {**item, "status": "in_progress", "action": {"type": "search"}}
        elif kind == "function_call":
            added = {**item, "status": "in_progress", "arguments": ""}
        else:
            added = item
        yield ev("response.output_item.added", output_index=index, item=added)
        if kind in ("file_search_call", "web_search_call"):
            for phase in ("in_progress", "searching", "completed"):
                yield ev(f"response.{kind}.{phase}", output_index=index, item_id=item["id"])
        elif kind == "compaction":
            yield ev("response.compaction.compacting", item_id=item["id"], output_index=index)
        elif kind == "function_call":
            yield ev("response.function_call_arguments.done", item_id=item["id"],
                     output_index=index, arguments=item["arguments"])
        yield ev("response.output_item.done", output_index=index, item=item)
    yield ev("response.completed", response=body)


def _message(ev: Any, index: int, item: dict[str, Any],
             obfuscate: bool) -> Iterator[dict[str, Any]]:
    part = item["content"][0]
    text = part["text"]
    base = {"item_id": item["id"], "output_index": index, "content_index": 0}
    yield ev("response.output_item.added", output_index=index,
             item={**item, "status": "in_progress", "content": []})
    yield ev("response.content_part.added", **base,
             part={"type": "output_text", "annotations": [], "logprobs": [], "text": ""})
    for n, delta in enumerate(_PIECES.findall(text)):
        extra = {"obfuscation": _obfuscation(f"{item['id']}:{n}", delta)} if obfuscate else {}
        yield ev("response.output_text.delta", **base, delta=delta, logprobs=[], **extra)
    for a_index, annotation in enumerate(part.get("annotations") or []):
        yield ev("response.output_text.annotation.added", **base, annotation_index=a_index,
                 annotation=annotation)
    yield ev("response.output_text.done", **base, text=text, logprobs=[])
    yield ev("response.content_part.done", **base, part=part)
    yield ev("response.output_item.done", output_index=index, item=item)


def frame(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event, separators=(',', ':'))}\n\n".encode()
