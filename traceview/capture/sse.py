"""Server-sent events as the Responses API streams them, reduced to their data payloads."""

from __future__ import annotations

import json
from typing import Any

import orjson

from traceview.wire import TERMINAL_EVENTS


def parse_events(raw: bytes) -> list[Any]:
    """Every ``data:`` payload in order, parsed as JSON when it is JSON.

    A stream cut off mid-frame loses only its last, partial frame.
    """
    return [event for event, _ in located_events(raw)]


def located_events(raw: bytes) -> list[tuple[Any, int]]:
    """Each event of `parse_events` with the byte offset in `raw` where its frame ended
    (its blank line): the recorder maps that offset to the chunk that brought it, for the
    event's arrival time."""
    crlf = b"\r" in raw
    text = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if crlf else raw
    out: list[tuple[Any, int]] = []
    start = 0
    walk = [0, 0]  # (raw offset, normalised offset) reached: CRLF offsets mapped in one pass
    while True:
        end = text.find(b"\n\n", start)
        if end < 0:
            break  # no blank line after it: a partial last frame, dropped
        frame = text[start:end].decode("utf-8", errors="replace")
        start = end + 2
        data_lines = [
            line[5:].removeprefix(" ") for line in frame.split("\n") if line.startswith("data:")
        ]
        if not data_lines:
            continue
        data = "\n".join(data_lines)
        if data == "[DONE]":
            continue
        event: Any = _loads(data)
        out.append((event, _raw_offset(raw, start, walk) if crlf else start))
    return out


def _loads(data: str) -> Any:
    """An event's data parsed: orjson (the recorder parses every event of every stream it
    relays), the stdlib for what orjson refuses but is still JSON to the SDK (NaN), else
    kept as text."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return {"non_json": True, "data": data}


def _raw_offset(raw: bytes, normalised: int, walk: list[int]) -> int:
    """The offset in `raw` of an offset in its line-ending-normalised form, walking on
    from where the last call stopped (rare: the provider ends lines with LF)."""
    i, n = walk
    size = len(raw)
    while i < size and n < normalised:
        i += 2 if raw[i] == 13 and raw[i + 1:i + 2] == b"\n" else 1
        n += 1
    walk[0], walk[1] = i, n
    return i


def terminal_response(events: list[Any]) -> Any:
    """The ``response`` of the last terminal event, or None when the stream never finished."""
    for event in reversed(events):
        if isinstance(event, dict) and event.get("type") in TERMINAL_EVENTS:
            return event.get("response")
    # Chat Completions streams have no terminal event; their body stays null.
    return None
