"""Where an imported record came from: the `origin` an importer (capture/formats) writes
on each record, said as a note on its turn, and the numbers its format cannot carry left
unknown.

Apart from the reader (reader.py): the reader pairs records whatever wrote them; this
reads only what an importer added.
"""

from __future__ import annotations

from typing import Any

from traceview.capture.model import Turn


def origin_note(origin: Any) -> str | None:
    """'imported from HAR entry 3; …' for a record an importer wrote (capture/formats)."""
    if not isinstance(origin, dict) or not isinstance(origin.get("format"), str):
        return None
    fmt = {"har": "HAR", "batch": "an OpenAI Batch file", "otlp": "OTLP spans",
           "provider": "the provider (hydrate), not a wire capture"}.get(origin["format"],
                                                                     origin["format"])
    file = origin.get("file")
    if isinstance(file, str) and file:  # a Batch file: its own name and line
        note = f"imported from {file} ({fmt}), line {origin.get('entry')}"
    else:
        note = f"imported from {fmt}, entry {origin.get('entry')}"
    missing = origin.get("cannot_carry")
    if isinstance(missing, list) and missing:
        note += "; not in that format: " + "; ".join(str(m) for m in missing)
    return note


def imported(turn: Turn, origin: Any) -> None:
    """Say where an imported turn came from; numbers its format cannot carry stay unknown."""
    note = origin_note(origin)
    if note is not None and note not in turn.notes:
        turn.notes = (*turn.notes, note)
    missing = origin.get("cannot_carry") if isinstance(origin, dict) else None
    if turn.req is not None and isinstance(missing, list) and any(
            isinstance(m, str) and m.startswith("request bytes") for m in missing):
        turn.req.request_bytes = None
