"""Widening at the boundaries (issue #11's narrow columns): values at and around 1-, 2-,
4- and 8-byte limits, LIMIT, negative and missing, first met in the middle of a capture
after views and bindings of the narrow columns were made. A load must not crash, must give
the report a single-process read gives, and views held since before must read the current
values."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.hostile import widening_capture
from traceview.analysis.session import Session, analyze
from traceview.capture.model import RequestFacts, RequestRow
from traceview.capture.table import Facts
from traceview.report.json_out import render_json

# What a held view is compared on: the analyzer's numbers and the row's facts, all set
# when the turn is analysed (what the end-of-load passes add is compared at the end).
FIELDS = ("index", "line", "conversation", "model", "response_id", "input_tokens",
          "cached_tokens", "output_tokens", "reasoning_tokens", "elapsed_ms", "status",
          "request_bytes", "user_text", "markers", "new_input_estimate", "unexplained_tokens",
          "hosted_calls", "store", "system_fingerprint")


def _facts(t: object) -> tuple[object, ...]:
    return tuple(getattr(t, name) for name in FIELDS)


@pytest.fixture(scope="module")
def edges(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return widening_capture.write(tmp_path_factory.mktemp("edges") / "edges.jsonl")


def test_a_pooled_column_takes_more_than_32767_distinct_values() -> None:
    """A pooled column leaves its bytearray at 256 values, then its 2-byte items at 32768
    (a capture of 33,000 conversations): the second widening must not raise."""
    facts = Facts()
    for i in range(33_000):
        facts.requests.add(RequestFacts("responses", "gpt-5", f"conv_{i}"))
    side = facts.requests
    assert [RequestRow(side, r).conversation_id for r in (0, 255, 32_767, 32_999)] == [
        "conv_0", "conv_255", "conv_32767", "conv_32999"]
    assert side.cols["conversation_id"].itemsize == 4


def test_a_capture_crossing_every_boundary_reads_as_in_one_process(
        edges: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = render_json(analyze(str(edges)))
    monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "3000")  # dozens of chunks
    a = analyze(str(edges))
    assert render_json(a) == one
    by_text = {t.index: t for t in a.turns}
    # The boundary turns read back their values: usable counts exactly, the rest unknown.
    first = widening_capture.SMALL_TURNS
    got = [by_text[first + 1 + 2 * n].input_tokens
           for n in range(len(widening_capture.EDGES))]
    limit = widening_capture.LIMIT
    # Turn 161's response line is unreadable (a created_at of 320 digits), as are those
    # whose counts pass 64 bits: their counts are unknown, as on main. The 0 edge is
    # all-zero usage on a response with output: unknown too, not 0.
    assert got == [None, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536, None, 2**31,
                   2**32 - 1, 2**32, limit - 1] + [None] * 9
    assert len(a.turns) == first + 2 * len(widening_capture.EDGES) + 300 + 2 + 1 - 1
    assert len({t.model for t in a.turns}) == 301


@pytest.mark.parametrize("workers", ["1", "2"])
def test_views_held_while_loading_read_the_current_values(
        edges: Path, workers: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The inspector holds the reports of the first batches while the loader appends and
    widens columns: read between batches (one line a step; with workers, a small chunk
    at a time), each held view gives what it gave when it arrived, and at the end what a
    fresh analysis gives."""
    fresh = {t.index: (_facts(t), t.to_dict()) for t in analyze(str(edges)).turns}
    monkeypatch.setenv("TRACEVIEW_WORKERS", workers)
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "4000")
    session = Session(str(edges), step_lines=1, interval=0.0, first_interval=0.0)
    held: list[tuple[object, tuple[object, ...]]] = []
    batches = 0
    for batch in session.run():
        batches += 1
        for t in batch.turns:
            held.append((t, _facts(t)))
        if batches % 25 == 0 or batch.progress.done:
            for t, first in held:
                assert _facts(t) == first, t
    assert batches > 50
    assert len(held) == len(fresh)
    for t, first in held:
        assert first == fresh[t.index][0]
        assert t.to_dict() == fresh[t.index][1]
    # The analysis's sequence reads as the fresh one, position by position.
    turns = session.analysis.turns
    assert [t.to_dict() for t in turns] == [fresh[i][1] for i in sorted(fresh)]


def _many_values(path: Path, turns: int) -> Path:
    """`turns` turns whose conversation, models, include, fingerprint and tier are each
    new: six distinct pool values a turn."""
    with open(path, "wb") as out:
        for i in range(turns):
            req = {"dir": "req", "body": {"model": f"m-{i}", "conversation": f"conv_{i}",
                                          "input": "hi", "include": [f"inc.{i}"]}}
            res = {"dir": "res", "elapsed_ms": 10, "body": {
                "id": f"resp_{i}", "object": "response", "created_at": 1756051200,
                "status": "completed", "model": f"m-{i}-x", "system_fingerprint": f"fp_{i}",
                "service_tier": f"tier{i}", "conversation": {"id": f"conv_{i}"},
                "output": [], "usage": {"input_tokens": 5 + i, "output_tokens": 1,
                                        "total_tokens": 6 + i}}}
            out.write(orjson.dumps(req) + b"\n" + orjson.dumps(res) + b"\n")
    return path


def test_a_capture_of_more_than_32767_distinct_values_loads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """6,000 turns each naming a new conversation, models, fingerprint and tier: the
    shared pool passes 32,767 values in the middle of the capture (it crashed the load),
    in one process and when the workers' chunks are appended."""
    path = str(_many_values(tmp_path / "many.jsonl", 6000))
    a = analyze(path)
    assert len(a.capture.table.pool.values) > 32_767
    last = a.turns[-1]
    assert (len(a.turns), last.model, last.conversation, last.system_fingerprint,
            last.input_tokens) == (6000, "m-5999-x", "conv_5999", "fp_5999", 6004)
    one = render_json(a)
    monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", str(300_000))
    assert render_json(analyze(path)) == one
