"""Builders shared by the account tests: tiny image headers and fixture turns."""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "account"


def png_url(width: int, height: int) -> str:
    """A data URL whose bytes are a PNG header of the given size (enough to be sized)."""
    ihdr = struct.pack(">II", width, height) + b"\x08\x02\x00\x00\x00"
    raw = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\x00" * 8
    return "data:image/png;base64," + base64.b64encode(raw).decode()


def turns(name: str) -> Iterator[tuple[dict[str, Any], dict[str, Any], str]]:
    """(request body, response body, endpoint) for each exchange of a fixture capture."""
    request: dict[str, Any] | None = None
    for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["dir"] == "req":
            request = record
        elif request is not None:
            endpoint = request.get("endpoint", "POST /v1/responses")
            if endpoint.startswith("POST"):
                yield request["body"], record["body"], endpoint
            request = None
