"""A stream whose events a capture wrote one per line (`{"type": …, "sequence_number": …}`
on each line, as an event-level logger or importer writes them).

Every event is read as evidence as it comes (capture/stream_facts.py: counts by type,
sequence numbers, delta text), each sequence fault named by its own line; only the events
that rebuilding the response needs are kept (snapshots, finished items, errors), so a long
stream costs its evidence, not its events.
"""

from __future__ import annotations

from typing import Any

from traceview.capture.model import RecordRef
from traceview.capture.stream_facts import StreamReading
from traceview.wire import TERMINAL_EVENTS

# Events that open a response's stream, carrying its snapshot (and so its id).
_OPENING = ("response.created", "response.queued")


def _response_id(ev: dict[str, Any]) -> str | None:
    snapshot = ev.get("response")
    rid = snapshot.get("id") if type(snapshot) is dict else None
    return rid if type(rid) is str else None


class LineStream:
    """The open per-line stream: its evidence so far, the events kept for rebuilding, and
    the line of its last event (where the response record is taken to sit)."""

    __slots__ = ("reading", "kept", "ref", "response_id", "snapshot_at", "ended", "ended_id")

    def __init__(self, ref: RecordRef) -> None:
        self.reading = StreamReading()
        self.kept: list[dict[str, Any]] = []
        self.ref = ref
        self.response_id: str | None = None
        self.snapshot_at: int | None = None  # where in `kept` the latest snapshot sits
        self.ended = False  # by a terminal or an error event
        self.ended_id: str | None = None  # the response that event named

    def starts_another(self, ev: dict[str, Any], ref: RecordRef) -> bool:
        """Whether `ev` begins another response's stream rather than continuing this one:
        a line of another source, or an opening event naming another response (a stream
        cut off without its terminal event, then the next one). An opening event of the
        same response, or one that names none, continues it: a replay is this stream's
        evidence, not a new turn."""
        if ref.source != self.ref.source:
            return True
        if ev.get("type") not in _OPENING:
            return False
        rid = _response_id(ev)
        return rid is not None and self.response_id is not None and rid != self.response_id

    def add(self, ev: dict[str, Any], ref: RecordRef) -> bool:
        """Read one event; True when it ends the stream (a terminal or an error event)."""
        self.reading.see(ev, None, ref.line)
        self.ref = ref
        t = ev.get("type")
        snapshot = type(ev.get("response")) is dict and t not in TERMINAL_EVENTS
        if type(ev.get("response")) is dict or t in ("response.output_item.done", "error"):
            if snapshot and self.snapshot_at is not None:
                # Only the latest snapshot rebuilds a cut stream (response_facts): a flood
                # of response.in_progress events is not held whole.
                self.kept[self.snapshot_at] = ev
            else:
                if snapshot:
                    self.snapshot_at = len(self.kept)
                self.kept.append(ev)
            if self.response_id is None:
                self.response_id = _response_id(ev)
        self.ended = t in TERMINAL_EVENTS or t == "error"
        if self.ended:
            self.ended_id = _response_id(ev)
        return self.ended

    def repeats(self, ev: dict[str, Any], ref: RecordRef) -> bool:
        """Whether `ev`, read next after this stream ended, is one of its events written
        again (a logger's retry, two copies concatenated): a sequence number it already
        reached, naming no other response. Read as a stream of its own, a repeated
        terminal event was another turn, its cost counted twice. (The reader asks only
        until a request or response record comes: another call's stream follows one.)"""
        seq, top = ev.get("sequence_number"), self.reading.seq.top
        return (self.ended and ref.source == self.ref.source and type(seq) is int
                and top is not None and seq <= top
                and _response_id(ev) in (None, self.ended_id))

    def repeated(self, ev: dict[str, Any]) -> str:
        """The problem of an event `repeats` found."""
        return (f"stream event repeats sequence_number {ev['sequence_number']} of the stream "
                f"that ended on line {self.ref.line}; not read as another turn")

    def record(self) -> dict[str, Any]:
        """The response record the kept events stand for (its facts are read with
        `reading`, the evidence of every event)."""
        return {"dir": "res", "events": self.kept}
