"""OpenAI Batch files: the input (requests) and the output (responses), one JSON per line.

Each line becomes one record linked by ``custom_id``: open the input and the output file
together (in any order) and every request is paired with its response. A batch has no
wire timing: ``elapsed_ms`` is unknown, never 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from traceview.capture.formats.common import Emitter, as_dict, provider_path

NO_TIMING = "elapsed time (a batch runs its requests offline)"


def is_input(obj: Any) -> bool:
    return isinstance(obj, dict) and "custom_id" in obj and "body" in obj and "url" in obj


def is_output(obj: Any) -> bool:
    return isinstance(obj, dict) and "custom_id" in obj and ("response" in obj or "error" in obj)


def side(first_line: bytes) -> str | None:
    """'input' | 'output' for a batch file's first line, else None."""
    try:
        obj = orjson.loads(first_line)
    except orjson.JSONDecodeError:
        return None
    return "input" if is_input(obj) else "output" if is_output(obj) else None


def join(inputs: list[list[bytes]], outputs: list[list[bytes]], em: Emitter) -> int:
    """Input and output files read as one: each request followed by its own response, found
    by ``custom_id`` wherever it sits in the output (a batch finishes in any order)."""
    answers: dict[str, tuple[int, dict[str, Any]]] = {}
    for lines in outputs:
        for n, obj in _parsed(lines, em):
            if is_output(obj):
                answers[str(obj["custom_id"])] = (n, obj)
            elif obj is not None:
                em.ignore("not a batch line")
    calls = 0
    for lines in inputs:
        for n, obj in _parsed(lines, em):
            if not is_input(obj):
                if obj is not None:
                    em.ignore("not a batch line")
                continue
            calls += 1
            _write_input(obj, n, em)
            answer = answers.pop(str(obj["custom_id"]), None)
            if answer is not None:
                em.write(_output(answer[1], answer[0], em))
    for n, obj in answers.values():  # answers whose request is in no input file given
        calls += 1
        em.write(_output(obj, n, em))
    em.turns = calls
    return calls


def _parsed(lines: list[bytes], em: Emitter) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each line; a blank line is None, a malformed one is counted
    as ignored and skipped."""
    for n, raw in enumerate(lines, start=1):
        try:
            yield n, (orjson.loads(raw) if raw.strip() else None)
        except orjson.JSONDecodeError:
            em.ignore("malformed line")


def _write_input(obj: dict[str, Any], n: int, em: Emitter) -> None:
    path = provider_path(str(obj.get("url") or "")) or str(obj.get("url"))
    em.write({"dir": "req", "id": f"batch:{obj['custom_id']}",
              "endpoint": f"{str(obj.get('method') or 'POST').upper()} {path}",
              "body": obj.get("body"),
              "origin": em.origin(n, None, custom_id=obj["custom_id"])})


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
            _write_input(obj, n, em)
        elif is_output(obj):
            calls += 1
            em.write(_output(obj, n, em))
        else:
            em.ignore("not a batch line")
    em.turns = calls
    return calls


def _output(obj: dict[str, Any], n: int, em: Emitter) -> dict[str, Any]:
    response = as_dict(obj.get("response"))
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
