"""Server-sent events as the Responses API streams them, reduced to their data payloads."""

from __future__ import annotations

import json
from typing import Any

from traceview.wire import TERMINAL_EVENTS


def parse_events(raw: bytes) -> list[Any]:
    """Every ``data:`` payload in order, parsed as JSON when it is JSON.

    A stream cut off mid-frame loses only its last, partial frame.
    """
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    events: list[Any] = []
    frames = text.split("\n\n")
    complete = frames if text.endswith("\n\n") else frames[:-1]
    for frame in complete:
        data_lines = [
            line[5:].removeprefix(" ") for line in frame.split("\n") if line.startswith("data:")
        ]
        if not data_lines:
            continue
        data = "\n".join(data_lines)
        if data == "[DONE]":
            continue
        try:
            events.append(json.loads(data))
        except ValueError:
            events.append({"non_json": True, "data": data})
    return events


def terminal_response(events: list[Any]) -> Any:
    """The ``response`` of the last terminal event, or None when the stream never finished."""
    for event in reversed(events):
        if isinstance(event, dict) and event.get("type") in TERMINAL_EVENTS:
            return event.get("response")
    # Chat Completions streams have no terminal event; their body stays null.
    return None
