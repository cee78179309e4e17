"""Serialise records in the two-line capture format, exactly as a recorder writes them."""

from __future__ import annotations

from typing import Any

import orjson


class CaptureLines:
    """Accumulates the lines of one capture file (compact JSON, one record per line)."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []

    def req(self, body: dict[str, Any] | None, endpoint: str | None = None) -> None:
        """A request record; ``endpoint`` only for calls other than POST /v1/responses."""
        record: dict[str, Any] = {"dir": "req"}
        if endpoint is not None:
            record["endpoint"] = endpoint
        record["body"] = body
        self.lines.append(orjson.dumps(record))

    def res(self, body: dict[str, Any] | None, elapsed_ms: int | None,
            events: list[dict[str, Any]] | None = None) -> None:
        """A response record; ``events`` for streamed turns (body = terminal response)."""
        record: dict[str, Any] = {"dir": "res", "elapsed_ms": elapsed_ms, "body": body}
        if events is not None:
            record["events"] = events
        self.lines.append(orjson.dumps(record))

    def raw(self, line: bytes) -> None:
        """A line written verbatim (for deliberately damaged captures)."""
        self.lines.append(line)

    def to_bytes(self, trailing_newline: bool = True) -> bytes:
        """The file content: lines joined by newlines."""
        data = b"\n".join(self.lines)
        return data + b"\n" if trailing_newline else data
