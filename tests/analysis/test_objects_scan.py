"""The objects inventory reads ids, created_at and store flags found when the lines were
read (capture/scan.py), not by reading each turn's records again — and lists exactly what
reading them again would list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders import file_search, message, req, res, response, write
from traceview.analysis import analyze
from traceview.analysis.hosted.inventory import inventory
from traceview.capture.table import TurnTable

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"
REAL = ROOT / "tests" / "fixtures" / "real"


def _listing(a: Any, read_raw: Any) -> bytes:
    return orjson.dumps(inventory(a.turns, a.capture.exchanges, read_raw).to_dict())


def _reread(monkeypatch: pytest.MonkeyPatch, a: Any) -> bytes:
    """The listing as made by reading every turn's records again (nothing scanned)."""
    with monkeypatch.context() as m:
        m.setattr(TurnTable, "seen", lambda self, r: None)
        return _listing(a, a.capture.read_raw)


def test_the_inventory_reads_no_turn_record_again() -> None:
    a = analyze(str(SAMPLES / "claims.jsonl"))
    turn_refs = {ref for t in a.turns for ref in (t.turn.request, t.turn.response) if ref}
    asked: list[Any] = []

    def spy(ref: Any, limit: int | None = None) -> bytes | None:
        asked.append(ref)
        return a.capture.read_raw(ref, limit)

    doc = orjson.loads(_listing(a, spy))
    assert not [r for r in asked if r in turn_refs or r.line in {x.line for x in turn_refs}]
    by_kind = {o["kind"]: o for o in doc["objects"]}
    assert by_kind["vector_store"]["id"] == "vs_68a1c0claims2024policy"
    assert by_kind["vector_store"]["turns"] == [1, 2, 3, 4]
    assert doc["counts"] == {"conversation": 1, "response": 4, "file": 1, "vector_store": 1}


def _tricky(tmp_path: Path) -> Path:
    """Records whose bytes say more than their facts: ids in nested places, a created_at
    past the head a response is read for, a store flag only in metadata, a stream, a
    retrieve that answers a background turn, CRLF line ends."""
    pad = "x" * 3000
    late = response("resp_late", 10, 5, output=[message(pad)])
    del late["created_at"]
    late["z"] = {"created_at": 1767225600, "file": "file-late0001"}  # past 2048 bytes
    late["store"] = True  # the response's echo: no store flag needed from the bytes
    hosted = response("resp_fs", 10, 5, created_at=1767225601.5, output=[
        file_search(results=[{"file_id": "file-abc123", "text": pad,
                              "attributes": {"vs": "vs_cited"}}]), message("ok")])
    hosted["tail"] = "file_0123456789abcdef0123"
    events = [{"type": "response.created", "sequence_number": 0,
               "response": {**response("resp_ev", None, None, status="in_progress"),
                            "output": []}},
              {"type": "response.completed", "sequence_number": 1,
               "response": response("resp_ev", 3, 4, created_at=1767225700)}]
    records: list[Any] = [
        req({"model": "m", "input": "a", "metadata": {"store": "false", "x": '"store": false'},
             "tools": [{"type": "file_search",
                        "vector_store_ids": ["vs_one", "vs_two", *["vs_one"] * 500]}]}),
        res(late),
        req({"model": "m", "input": "b", "metadata": {"note": {"store": False}}}),
        res(hosted),
        req({"model": "m", "input": "c", "stream": True, "store": True}),
        *events,
        req({"model": "m", "input": "d", "background": True}),
        res(response("resp_bg", None, None, status="queued", created_at=1767225800)),
        {"dir": "req", "endpoint": "GET /v1/responses/resp_bg"},
        {"dir": "res", "status_code": 200,
         "body": response("resp_bg", 7, 8, created_at=1767225800, ids=["vs_late"])},
        req({"model": "m", "input": "e", "text": '"vs_quoted"'}),
        res(response("resp_e", 1, 1, created_at=1767225900.25, metadata={"store": False})),
    ]
    p = write(tmp_path / "tricky.jsonl", records)
    data = p.read_bytes().split(b"\n")
    p.write_bytes(b"\r\n".join(data[:4]) + b"\n" + b"\n".join(data[4:]))
    return p


def test_a_scanned_inventory_is_the_reread_one_on_tricky_records(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = analyze(str(_tricky(tmp_path)))
    scanned = [t.index for t in a.turns if t.turn.table.seen(t.turn.row) is not None]
    # Read again: the stream and the retrieved background turn (rows not made from their
    # lines), and turn 5, whose store flag is in neither side's facts nor its request's
    # bytes (the response's bytes are not searched for one). Turn 2's is in its request's
    # bytes, nested in metadata: that is what the inventory reads, as before.
    assert scanned == [1, 2]
    got = _listing(a, a.capture.read_raw)
    assert got == _reread(monkeypatch, a)
    doc = orjson.loads(got)
    ids = {(o["kind"], o["id"]) for o in doc["objects"]}
    assert {("vector_store", "vs_one"), ("vector_store", "vs_two"), ("file", "file-abc123"),
            ("vector_store", "vs_cited"), ("file", "file_0123456789abcdef0123")} <= ids
    assert ("file", "file-late0001") not in ids  # past the head of a response without calls
    assert ("vector_store", "vs_quoted") not in ids  # escaped quotes: not a JSON string
    table = a.capture.table
    assert table.pool.values[table.requests.cols["quoted_ids"][0]] == (b"vs_one", b"vs_two")
    one = [o for o in doc["objects"] if o["id"] == "vs_one"]
    assert one[0]["turns"] == [1] and one[0]["uses"] == 1  # 501 quotes of it: one use
    created = {o["id"]: o["created_at"] for o in doc["objects"] if o["kind"] == "response"}
    assert created["resp_late"] is None and created["resp_fs"] == "2026-01-01T00:00:01Z"
    stored = {o["id"]: o["store"] for o in doc["objects"] if o["kind"] == "response"}
    assert (stored["resp_late"], stored["resp_fs"], stored["resp_e"]) == (True, False, False)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_every_fixture_lists_the_same_objects_scanned_or_read_again(
        workers: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEVIEW_WORKERS", workers)
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "3000")
    paths = sorted(REAL.glob("*.jsonl")) + sorted(SAMPLES.glob("*.jsonl"))
    a = analyze([str(p) for p in paths])
    assert sum(t.turn.table.seen(t.turn.row) is not None for t in a.turns) > len(a.turns) // 2
    assert _listing(a, a.capture.read_raw) == _reread(monkeypatch, a)
