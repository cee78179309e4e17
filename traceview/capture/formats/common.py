"""What every importer shares: the records it emits and where provider calls live in a URL.

An importer turns a foreign file into the capture records the recorder writes
(``{"dir": "req"|"res", "id", "ts", "endpoint", "bytes", "body", …}``), plus an ``origin``
that says where each record came from and which numbers the format cannot carry. The
reader turns ``origin`` into a note on the turn, and a number listed in ``cannot_carry``
stays unknown (null) instead of being guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import orjson

from traceview.capture.sse import parse_events, terminal_response
from traceview.safety.sanitise import json_safe

# The provider's resources, wherever the URL puts them (/v1/…, Azure's /openai/…, a gateway).
_RESOURCE = re.compile(
    r"(?:^|/)(?:v1/)?((?:responses|chat/completions|conversations|files|vector_stores|uploads|"
    r"batches|models|embeddings|containers|realtime|moderations|images|audio)(?:/.*)?)$")


class FormatError(ValueError):
    """The file is not of the format it was taken for; the message names what it is."""


# What reading a value of a wrong type deep in an imported record raises: that record (an
# entry, a span) is left out and named, the rest of the file is read.
MALFORMED = (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError)


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one (a missing or damaged field)."""
    return value if isinstance(value, dict) else {}


def provider_path(path: str) -> str | None:
    """'/openai/v1/responses/resp_1' -> '/v1/responses/resp_1'; None when not a provider call."""
    m = _RESOURCE.search(path.rstrip("/"))
    return "/v1/" + m.group(1) if m else None


def parse_body(raw: bytes | None, content_type: str = "") -> Any:
    """A body as the recorder stores it: parsed JSON, None when empty, else a non-JSON stub."""
    if raw is None or raw == b"":
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {"non_json": True, "content_type": content_type, "bytes": len(raw)}


def stream_body(raw: bytes) -> tuple[Any, list[Any]]:
    """(final body, events) of a recorded SSE body, as the recorder stores a stream."""
    events = parse_events(raw)
    return terminal_response(events), events


@dataclass
class Emitter:
    """Writes records as JSONL into the spooled file the loader then reads."""

    out: BinaryIO
    fmt: str
    records: int = 0
    turns: int = 0
    ignored: dict[str, int] = field(default_factory=dict)
    cannot_carry: set[str] = field(default_factory=set)
    # Where the file broke, one problem each: (its line in the file, 1 for a whole-document
    # format such as HAR, whose text names the entry; what is wrong there).
    damage: list[tuple[int, str]] = field(default_factory=list)

    def origin(self, entry: int | str, cannot_carry: list[str] | None = None,
               **extra: Any) -> dict[str, Any]:
        o: dict[str, Any] = {"format": self.fmt, "entry": entry, **extra}
        if cannot_carry:
            o["cannot_carry"] = cannot_carry
            self.cannot_carry.update(cannot_carry)
        return o

    def write(self, record: dict[str, Any]) -> None:
        self.out.write(json_safe(orjson.dumps(record)) + b"\n")  # a capture written
        self.records += 1

    def ignore(self, what: str) -> None:
        self.ignored[what] = self.ignored.get(what, 0) + 1

    def summary(self, calls: int) -> dict[str, Any]:
        """The import, for the report's ``imports`` list."""
        return {"format": self.fmt, "provider_calls": calls,
                "ignored": sum(self.ignored.values()),
                "ignored_kinds": dict(sorted(self.ignored.items())),
                "cannot_carry": sorted(self.cannot_carry)}
