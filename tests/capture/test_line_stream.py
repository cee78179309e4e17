"""Streams written one event per line read as evidence (issue #34): duplicate, missing and
out-of-order sequence numbers are problems on the event's own line and the ⇅ marker on the
turn, exactly as when the events sit in one record; a clean stream, a resumed one that
starts past 0, and every real stream rewritten one event per line raise nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders import message, req, response, write
from traceview.analysis.session import analyze

REAL = Path(__file__).parent.parent / "fixtures" / "real"
STREAMED = sorted(p.name for p in REAL.glob("*stream*.jsonl"))


def _events(seqs: list[int] | None = None, rid: str = "resp_s",
            parts: tuple[str, ...] = ("Hel", "lo")) -> list[dict[str, Any]]:
    """A Responses stream: created, item added, the deltas, text done, item done,
    completed; numbered 0, 1, 2, … unless `seqs` says otherwise."""
    text = "".join(parts)
    final = response(rid, 20, 8, output=[message(text)])
    evs: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**final, "usage": None, "output": [],
                                                  "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"type": "message", "id": "msg_1", "content": []}},
        *({"type": "response.output_text.delta", "output_index": 0, "content_index": 0,
           "delta": d} for d in parts),
        {"type": "response.output_text.done", "output_index": 0, "content_index": 0,
         "text": text},
        {"type": "response.output_item.done", "output_index": 0, "item": message(text)},
        {"type": "response.completed", "response": final},
    ]
    for i, ev in enumerate(evs):
        ev["sequence_number"] = i if seqs is None else seqs[i]
    return evs


def _per_line(tmp_path: Path, events: list[dict[str, Any]]) -> Any:
    """A request line, then each event on its own line (lines 2, 3, …)."""
    return analyze(str(write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "hi", "stream": True}), *events])))


def test_a_clean_stream_one_event_per_line_is_read_as_evidence(tmp_path: Path) -> None:
    a = _per_line(tmp_path, _events())
    [turn] = a.turns
    assert a.problems == [] and turn.markers == []
    assert turn.input_tokens == 20 and turn.stream_events == 7
    t = turn.timing
    assert t["stream_sequence_faults"] == 0 and t["stream_text_mismatch"] is None
    assert t["stream_events_by_type"] == {
        "response.created": 1, "response.output_item.added": 1,
        "response.output_text.delta": 2, "response.output_text.done": 1,
        "response.output_item.done": 1, "response.completed": 1}
    assert t["ttft_ms"] is None  # events on lines of their own carry no arrival offsets


@pytest.mark.parametrize(("seqs", "lines", "said"), [
    ([0, 1, 2, 2, 3, 4, 5], [5], ["stream event 3 repeats sequence_number 2"]),
    ([0, 1, 2, 3, 7, 8, 9], [6], ["stream event 4 has sequence_number 7 after 3: 3 missing"]),
    ([0, 1, 3, 2, 4, 5, 6], [4, 5], [
        "stream event 2 has sequence_number 3 after 1: 1 missing",
        "stream event 3 has sequence_number 2 after 3: out of order"]),
], ids=["duplicate", "gap", "out_of_order"])
def test_sequence_faults_one_event_per_line_name_the_event_line(
        tmp_path: Path, seqs: list[int], lines: list[int], said: list[str]) -> None:
    a = _per_line(tmp_path, _events(seqs))
    [turn] = a.turns
    assert "stream_sequence" in turn.markers
    assert [(p.line, p.kind) for p in a.problems] == [(n, "stream_sequence") for n in lines]
    assert [p.message.split(";")[0] for p in a.problems] == said
    assert turn.timing["stream_sequence_faults"] == len(lines)
    assert turn.input_tokens == 20  # the turn itself still reads from its terminal event


def test_a_resumed_stream_may_start_past_zero(tmp_path: Path) -> None:
    """`retrieve(id, stream=True, starting_after=6)` sends 7, 8, …: not a gap."""
    a = _per_line(tmp_path, _events(list(range(7, 14))))
    assert a.problems == [] and a.turns[0].markers == []
    assert a.turns[0].timing["stream_sequence_faults"] == 0


def test_a_cut_stream_then_the_next_response_is_two_turns_not_a_fault(tmp_path: Path) -> None:
    """A stream cut off without its terminal event and the next response's stream right
    after it (no request line between): the next one's 0, 1, … starts another stream."""
    cut = _events(rid="resp_a")[:3]
    a = analyze(str(write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "hi", "stream": True}), *cut, *_events(rid="resp_b")])))
    assert a.problems == []
    assert [(t.status, "stream_cut" in t.markers, t.stream_events) for t in a.turns] == [
        ("unknown", True, 3), ("completed", False, 7)]


def test_a_replayed_stream_of_the_same_response_is_a_fault(tmp_path: Path) -> None:
    """The same response's events sent again from 0 (a reconnect that resent them): one
    turn whose sequence repeats, never a second turn."""
    evs = _events()
    a = _per_line(tmp_path, [*evs[:3], *evs])
    [turn] = a.turns
    assert "stream_sequence" in turn.markers
    assert [(p.line, p.message.split(";")[0]) for p in a.problems][:2] == [
        (5, "stream event 3 repeats sequence_number 0"),
        (6, "stream event 4 repeats sequence_number 1")]
    assert turn.timing["stream_sequence_faults"] == 3


def test_faults_past_the_listed_ones_are_counted(tmp_path: Path) -> None:
    evs = _events([0, 0, 0, 0, 0, 0, 0])
    a = _per_line(tmp_path, evs)
    assert len(a.problems) == 5 and a.turns[0].timing["stream_sequence_faults"] == 6


def _one_per_line(path: Path, out: Path) -> int:
    """`path` rewritten with each recorded stream's events one per line in place of its
    response record (what an event-level logger writes); the number of streams."""
    records, streams = [], 0
    for raw in path.read_bytes().splitlines():
        rec = orjson.loads(raw)
        if rec.get("dir") == "res" and isinstance(rec.get("events"), list):
            records.extend(rec["events"])
            streams += 1
        else:
            records.append(rec)
    write(out, records)
    return streams


@pytest.mark.parametrize("name", STREAMED)
def test_real_streams_one_event_per_line_raise_no_fault(tmp_path: Path, name: str) -> None:
    """Every real stream (tests/fixtures/real), rewritten one event per line, reads with
    the same evidence as in its record: no sequence fault, the same counts by type."""
    whole = analyze(str(REAL / name))
    assert _one_per_line(REAL / name, tmp_path / name) > 0
    lines = analyze(str(tmp_path / name))
    assert [p for p in lines.problems if p.kind == "stream_sequence"] == []
    assert not any("stream_sequence" in t.markers for t in lines.turns)

    def evidence(a: Any) -> list[Any]:
        return [(t.timing["stream_events_by_type"], t.timing["stream_sequence_faults"],
                 t.timing["stream_text_mismatch"]) for t in a.turns
                if t.timing["stream_events_by_type"] is not None]

    assert evidence(lines) == evidence(whole) and evidence(whole)


def test_in_worker_processes_across_chunks(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Read in chunks by worker processes (events re-read in the main process), a stream
    split across chunks is still one stream with its faults on their lines."""
    monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "600")
    recs: list[Any] = []
    for _ in range(4):
        recs += [req({"model": "m", "input": "hi", "stream": True}),
                 *_events([0, 1, 2, 2, 3, 4, 5])]
    a = analyze(str(write(tmp_path / "c.jsonl", recs)))
    assert len(a.turns) == 4 and all("stream_sequence" in t.markers for t in a.turns)
    assert [p.line for p in a.problems] == [5, 13, 21, 29]
