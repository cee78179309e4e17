"""A stream's events read as evidence: when the output began and ended (from the
recorder's arrival offsets, ``event_ms``), how many events of each type came, whether the
sequence numbers ran 0, 1, 2, … and whether the deltas add up to the text the stream and
the final body say was produced.

Pure: once per streamed response record (response_facts), or fed one event at a time when
a capture writes each event on its own line (capture/reader.py); the result is kept in the
response's `extra` under "stream" (see docs/capture-format.md for ``event_ms``).
"""

from __future__ import annotations

from typing import Any

from traceview.wire import HOSTED_CALL_TYPES, TERMINAL_EVENTS

# Events that carry the first of the output: its first text, or its first item.
FIRST_OUTPUT = frozenset(("response.output_text.delta", "response.output_item.added",
                          "response.refusal.delta"))
SEQUENCE_KEPT = 5  # sequence faults listed per stream (all are counted)
# Event types counted by name (the Responses stream has about 50) and a name's length: a
# hostile stream of a new or 2 MB type per event made the report's and the inspector's
# counts as big as the capture. Past them, events count under OTHER_TYPES; a stream's
# opening and terminal events are always named.
TYPES_KEPT, TYPE_NAME_MAX = 64, 100
OTHER_TYPES = "(other types)"
_NAMED = frozenset((*TERMINAL_EVENTS, "error", "response.created", "response.queued",
                    "chat.completion.chunk"))


def _arrivals(event_ms: Any, n: int) -> list[int] | None:
    """The recorder's per-event offsets when they fit the events (else None: unknown)."""
    if type(event_ms) is not list or len(event_ms) != n:
        return None
    if not all(type(v) is int and v >= 0 for v in event_ms):
        return None
    return event_ms


def _is_first_output(ev: dict[str, Any]) -> bool:
    t = ev.get("type")
    if type(t) is str and t in FIRST_OUTPUT:
        return True
    if ev.get("object") == "chat.completion.chunk":  # chat: the first content delta
        choices = ev.get("choices")
        if type(choices) is list and choices and type(choices[0]) is dict:
            delta = choices[0].get("delta")
            return type(delta) is dict and bool(delta.get("content"))
    return False


class _Sequence:
    """Sequence numbers checked as they come: each must be one past the highest before it
    (the first may be anything: a resumed stream starts after its cursor)."""

    __slots__ = ("top", "seen", "faults", "lines", "count")

    def __init__(self) -> None:
        self.top: int | None = None
        self.seen: set[int] = set()
        self.faults: list[list[Any]] = []  # [event index, kind, number, highest before]
        self.lines: list[int] = []  # each listed fault's own line (events one per line)
        self.count = 0

    def check(self, seq: Any, i: int, line: int | None = None) -> None:
        if type(seq) is not int:
            return
        top = self.top
        kind = ""
        if top is not None:
            if seq in self.seen:
                kind = "duplicate"
            elif seq < top:
                kind = "out_of_order"
            elif seq > top + 1:
                kind = "missing"
        if top is None or seq > top:
            self.top = seq
        self.seen.add(seq)
        if kind:
            self.count += 1
            if len(self.faults) < SEQUENCE_KEPT:
                self.faults.append([i, kind, seq, top])
                if line is not None:
                    self.lines.append(line)


_ITEM_EVENTS = frozenset(("response.output_item.added", "response.output_item.done"))


class _Hosted:
    """Time the stream spent in hosted calls: each hosted item's output_item.added to its
    output_item.done, by arrival (the provider running file search, code, …)."""

    __slots__ = ("open", "total", "seen")

    def __init__(self) -> None:
        self.open: dict[Any, int] = {}
        self.total = 0
        self.seen = False

    def see(self, t: str, ev: dict[str, Any], at: int) -> None:
        item = ev.get("item")
        kind = item.get("type") if type(item) is dict else None
        if type(kind) is not str or kind not in HOSTED_CALL_TYPES:
            return
        self.seen = True
        key = _index(ev.get("output_index"))
        if t == "response.output_item.added":
            self.open[key] = at
        elif key in self.open:
            self.total += max(0, at - self.open.pop(key))


class StreamReading:
    """One stream read event by event: the same reading whether its events came in one
    record (`stream_facts`) or one per line (the reader's per-line streams), so a stream
    holds the same evidence in either shape."""

    __slots__ = ("count", "types", "first_ms", "ttft", "last_ms", "seq", "hosted", "texts",
                 "mismatch")

    def __init__(self) -> None:
        self.count = 0  # events seen (a non-object event counts, as in the record's list)
        self.types: dict[str, int] = {}
        self.first_ms: int | None = None
        self.ttft: int | None = None
        self.last_ms: int | None = None
        self.seq = _Sequence()
        self.hosted = _Hosted()
        self.texts: dict[tuple[Any, Any], list[str]] = {}
        self.mismatch: str | None = None

    def see(self, ev: Any, at: int | None = None, line: int | None = None) -> None:
        """Read the next event (`at`: its arrival offset, given for every event or none;
        `line`: the capture line it sits on, when it has one of its own)."""
        i = self.count
        self.count += 1
        if at is not None:
            if self.first_ms is None:
                self.first_ms = at
            self.last_ms = at
        if type(ev) is not dict:
            return
        t = ev.get("type") or ev.get("object")
        t = t if type(t) is str else "?"
        types = self.types
        if t not in types and t not in _NAMED and (len(t) > TYPE_NAME_MAX
                                                   or len(types) >= TYPES_KEPT):
            types[OTHER_TYPES] = types.get(OTHER_TYPES, 0) + 1
        else:
            types[t] = types.get(t, 0) + 1
        if at is not None:
            if self.ttft is None and _is_first_output(ev):
                self.ttft = at
            if t in _ITEM_EVENTS:
                self.hosted.see(t, ev, at)
        if t == "response.output_text.delta" and type(ev.get("delta")) is str:
            self.texts.setdefault(_text_key(ev), []).append(ev["delta"])
        elif t == "response.output_text.done" and self.mismatch is None:
            said = "".join(self.texts.get(_text_key(ev), ()))
            if type(ev.get("text")) is str and ev["text"] != said:
                self.mismatch = (f"event {i}: the deltas of output {ev.get('output_index')} "
                                 f"add up to {len(said)} characters, its .done text has "
                                 f"{len(ev['text'])}")
        self.seq.check(ev.get("sequence_number"), i, line)

    def facts(self, body: Any) -> dict[str, Any]:
        """{"types", "first_ms", "ttft_ms", "last_ms", "sequence", "sequence_faults",
        "text_mismatch", "hosted_ms"}: the ms are null without arrival offsets; plus
        "fault_lines" (the listed faults' lines) when the events had lines of their own."""
        mismatch = self.mismatch
        if mismatch is None and self.texts:
            mismatch = _against_body(self.texts, body)
        facts: dict[str, Any] = {
            "types": self.types, "first_ms": self.first_ms, "ttft_ms": self.ttft,
            "last_ms": self.last_ms, "sequence": self.seq.faults,
            "sequence_faults": self.seq.count, "text_mismatch": mismatch,
            "hosted_ms": self.hosted.total if self.hosted.seen else None}
        if self.seq.lines:
            facts["fault_lines"] = self.seq.lines
        return facts


def stream_facts(events: list[Any], event_ms: Any, body: Any) -> dict[str, Any]:
    """The facts of a stream held in one record (`events`, and `event_ms` beside them)."""
    ms = _arrivals(event_ms, len(events))
    reading = StreamReading()
    for i, ev in enumerate(events):
        reading.see(ev, ms[i] if ms is not None else None)
    return reading.facts(body)


def _index(v: Any) -> Any:
    """An event's output or content index as a key: a list or an object there (a hostile
    or damaged event) is no index, and would not hash."""
    return v if v is None or type(v) in (int, str) else None


def _text_key(ev: dict[str, Any]) -> tuple[Any, Any]:
    return _index(ev.get("output_index")), _index(ev.get("content_index"))


def _against_body(texts: dict[tuple[Any, Any], list[str]], body: Any) -> str | None:
    """Where the deltas disagree with the final body's output text (None: they agree, or
    the body holds no text to compare)."""
    output = body.get("output") if type(body) is dict else None
    if type(output) is not list:
        return None
    for (oi, ci), parts in texts.items():
        if type(oi) is not int or type(ci) is not int or not 0 <= oi < len(output):
            continue
        item = output[oi]
        content = item.get("content") if type(item) is dict else None
        if type(content) is not list or not 0 <= ci < len(content):
            continue
        part = content[ci]
        text = part.get("text") if type(part) is dict else None
        said = "".join(parts)
        if type(text) is str and text != said:
            return (f"the deltas of output {oi} add up to {len(said)} characters, the final "
                    f"body's text has {len(text)}")
    return None
