"""OpenAI Batch files: the input (requests) and the output (responses), one JSON per line.

Each line becomes one record linked by ``custom_id``: open the input and the output file
together (input first) and every request is paired with its response. A batch has no
wire timing: ``elapsed_ms`` is unknown, never 0.
"""

from __future__ import annotations

from typing import Any

import orjson

from traceview.capture.formats.common import Emitter, provider_path

NO_TIMING = "elapsed time (a batch runs its requests offline)"


def is_input(obj: Any) -> bool:
    return isinstance(obj, dict) and "custom_id" in obj and "body" in obj and "url" in obj


def is_output(obj: Any) -> bool:
    return isinstance(obj, dict) and "custom_id" in obj and ("response" in obj or "error" in obj)


def convert(lines: list[bytes], em: Emitter) -> int:
    calls = 0
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            em.ignore("malformed line")
            continue
        if is_input(obj):
            calls += 1
            path = provider_path(str(obj.get("url") or "")) or str(obj.get("url"))
            em.write({"dir": "req", "id": f"batch:{obj['custom_id']}",
                      "endpoint": f"{str(obj.get('method') or 'POST').upper()} {path}",
                      "body": obj.get("body"),
                      "origin": em.origin(n, None, custom_id=obj["custom_id"])})
        elif is_output(obj):
            calls += 1
            em.write(_output(obj, n, em))
        else:
            em.ignore("not a batch line")
    em.turns = calls
    return calls


def _output(obj: dict[str, Any], n: int, em: Emitter) -> dict[str, Any]:
    response = obj.get("response") if isinstance(obj.get("response"), dict) else {}
    record: dict[str, Any] = {
        "dir": "res", "id": f"batch:{obj['custom_id']}",
        "status_code": response.get("status_code"), "elapsed_ms": None,
        "body": response.get("body"),
        "origin": em.origin(n, [NO_TIMING], custom_id=obj["custom_id"],
                            batch_request=obj.get("id")),
    }
    if isinstance(response.get("request_id"), str):
        record["headers"] = {"x-request-id": response["request_id"]}
    err = obj.get("error")
    if isinstance(err, dict) and not response:
        record["error"] = {"type": str(err.get("code") or "batch_error"),
                           "message": str(err.get("message") or "")}
    return record
