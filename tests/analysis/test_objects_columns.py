"""The objects inventory read a column at a time (analysis/object_columns.py) is the one
the general per-turn loop makes: on every fixture, real capture and sample, a slice of
the hosted bench shape and captures made to reach each corner of the column pass — the
listing, each object's fields, the turns' notes and the ledger's tool configurations —
and the usual hosted capture does take the column pass (no call per turn)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders import message, req, res, response, write
from traceview.analysis import analyze, object_columns
from traceview.analysis import objects as objects_mod
from traceview.analysis.hosted_state import _Configs
from traceview.analysis.objects import inventory

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"
REAL = ROOT / "tests" / "fixtures" / "real"
FORMATS = ROOT / "tests" / "fixtures" / "formats"  # other formats, imported
PRICE = {"per_gb_day": 0.1, "free_gb": 1}


def _fields(o: Any) -> tuple[Any, ...]:
    return (o.kind, o.id, o.created_line, o.created_at, o.last_used_at, list(o.used_lines),
            o.uses, list(o.turns), o.store, o._more)


def _same(a: Any, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Assert both paths give the same inventory and configurations; return whether the
    column pass made it."""
    took: list[bool] = []
    fill = objects_mod.fill

    def spy(*args: Any) -> Any:
        got = fill(*args)
        took.append(got is not None)
        return got

    cap = a.capture
    fast_cfg, slow_cfg = _Configs(), _Configs()
    per_turn: list[int] = []

    def see_row(*args: Any) -> None:
        per_turn.append(1)
        fast_cfg.see_row(*args)

    with monkeypatch.context() as m:
        m.setattr(objects_mod, "fill", spy)
        fast = inventory(a.turns, cap.exchanges, cap.read_raw, PRICE, on_request=fast_cfg.see,
                         on_row=see_row, on_rows=fast_cfg.see_rows)
    slow = inventory(a.turns, cap.exchanges, cap.read_raw, PRICE, on_request=slow_cfg.see,
                     on_row=slow_cfg.see_row, by_columns=False)
    name = cap.sources[0]
    assert orjson.dumps(fast.to_dict()) == orjson.dumps(slow.to_dict()), name
    assert list(fast.objects.dicts()) == list(slow.objects.dicts()), name
    assert [_fields(o) for o in fast._full] == [_fields(o) for o in slow._full], name
    fr, sr = fast._rows, slow._rows
    assert (fr.index, fr.created.typecode, fr.created.tobytes(), fr.store) == \
        (sr.index, sr.created.typecode, sr.created.tobytes(), sr.store), name
    assert fast.turn_notes == slow.turn_notes, name
    assert [fast_cfg.get(t.index) for t in a.turns] == [slow_cfg.get(t.index)
                                                        for t in a.turns], name
    column_pass = bool(took and took[0])
    if column_pass:
        assert not per_turn, name  # told once, by rows
    return column_pass


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sys.path.insert(0, str(ROOT / "bench"))
    import gen_hosted

    path = tmp_path_factory.mktemp("hosted") / "hosted.jsonl"
    gen_hosted.generate(path, 10**12, lines=4000)
    return path


def test_every_fixture_lists_the_same_objects_by_columns(
        hosted: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [*sorted(SAMPLES.glob("*.jsonl")), *sorted(REAL.glob("*.jsonl")),
             *sorted(FORMATS.iterdir()), *sorted(REAL.parent.glob("*.jsonl")), hosted]
    by_columns = [p.name for p in paths if _same(analyze(str(p)), monkeypatch)]
    # The hosted shape, and the samples and real captures without chains, duplicate ids
    # or rebuilt streams, take the column pass; the rest the loop (compared all the same).
    assert hosted.name in by_columns
    assert "claims.jsonl" in by_columns
    assert len(by_columns) >= 10, by_columns
    # Imports are read from the spooled records their importer wrote (scanned as lines,
    # or not): whichever path, the same inventory (compared above).


def _corners(tmp_path: Path, name: str, *, created: Any = 1767225600) -> Path:
    """Conversations interleaved past the few a pass each finds (runs, revisited), one
    named by its response only; ids in many combinations, in requests and responses
    (files cited), shared by all; store flags from the request, the response's echo, the
    request's bytes; a chat turn, a response without request, a request without response;
    responses answered out of order (linked by id); an unknown created_at."""
    records: list[Any] = []
    for i in range(60):
        conv = f"conv_{i % 23:03d}"
        body: dict[str, Any] = {"model": "m", "input": f"q{i}",
                                "tools": [{"type": "file_search",
                                           "vector_store_ids": ["vs_all", f"vs_{i % 19}"]}]}
        if i % 5:
            body["conversation"] = conv
        if i % 7 == 0:
            body["store"] = False
        elif i % 7 == 1:
            body["metadata"] = {"note": {"store": i % 2 == 1}}  # only the bytes say it
        out = [message(f"file-cite{i % 3:04d}")] if i % 4 == 0 else None
        when = created if i % 9 else None
        rb = response(f"resp_{i:04d}", 10, 5, output=out, conv=conv, created_at=when)
        if when is None:
            del rb["created_at"]
        if i % 7 != 1:
            rb["store"] = i % 7 != 0
        records += [req(body), res(rb)]
    records += [
        req({"model": "m", "messages": [{"role": "user", "content": "chat"}]}),
        res({"id": "chatcmpl-1", "object": "chat.completion", "created": 1767225600,
             "model": "m", "choices": [{"index": 0, "message": {"role": "assistant",
                                                               "content": "x"},
                                        "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}),
        res({**response("resp_alone", 1, 1, conv="conv_alone"), "store": True}),
        req({"model": "m", "input": "late", "store": True}, id="x1"),
        req({"model": "m", "input": "early", "store": True}, id="x2"),
        res({**response("resp_x2", 1, 1), "store": True}, id="x2"),
        res({**response("resp_x1", 1, 1), "store": True}, id="x1"),
        req({"model": "m", "input": "unanswered", "conversation": "conv_000"}),
    ]
    return write(tmp_path / name, records)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_column_pass_corners(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 workers: str) -> None:
    monkeypatch.setenv("TRACEVIEW_WORKERS", workers)
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "3000")
    a = analyze(str(_corners(tmp_path, "corners.jsonl")))
    assert _same(a, monkeypatch)
    doc = a.objects.to_dict()
    by_id = {o["id"]: o for o in doc["objects"]}
    assert by_id["vs_all"]["uses"] == 60 and len(by_id["vs_all"]["used_lines"]) == 20
    assert by_id["conv_000"]["turns"] == [1, 24, 47, 65]  # the last one unanswered
    assert by_id["conv_alone"]["turns"] == [62]
    assert by_id["file-cite0000"]["uses"] == 5
    assert by_id["resp_0007"]["state"] == "not_stored"
    assert by_id["resp_0009"]["created_at"] is None
    assert by_id["resp_0002"]["store"] is True  # the response's echo
    # Only their requests' bytes say so:
    assert (by_id["resp_0001"]["store"], by_id["resp_0008"]["store"]) == (True, False)
    # Answered out of order: listed by line (the rows sorted), not by turn.
    order = [o["id"] for o in doc["objects"]]
    assert order.index("resp_x2") < order.index("resp_x1")
    assert by_id["resp_x1"]["turns"] == [63] and by_id["resp_x2"]["turns"] == [64]
    assert doc["counts"] == {"conversation": 24, "response": 63, "file": 3,
                             "vector_store": 20}


@pytest.mark.parametrize("created", [1767225600.5, 2**32 + 5])
def test_times_past_whole_4_byte_seconds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         created: float) -> None:
    a = analyze(str(_corners(tmp_path, "times.jsonl", created=created)))
    assert _same(a, monkeypatch)
    assert a.objects._rows.created.typecode == "d"


def test_what_the_loop_reads_is_left_to_it(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A response id given twice, a chain, a stream rebuilt from its events, a turn whose
    store flag is nowhere in its facts: the general loop, with the same inventory."""
    base = _corners(tmp_path, "base.jsonl").read_bytes()
    twice = [req({"model": "m", "input": "a", "store": True}),
             res({**response("resp_0003", 1, 1), "store": True})]
    chain = [req({"model": "m", "input": "b", "previous_response_id": "resp_0003"}),
             res({**response("resp_chain", 1, 1), "store": True})]
    unflagged = [req({"model": "m", "input": "c"}), res(response("resp_noflag", 1, 1))]
    events = [req({"model": "m", "input": "d", "stream": True, "store": True}),
              {"type": "response.created", "sequence_number": 0,
               "response": {**response("resp_ev", None, None, status="in_progress"),
                            "output": []}},
              {"type": "response.completed", "sequence_number": 1,
               "response": response("resp_ev", 3, 4, created_at=1767225700)}]
    for n, extra in enumerate([twice, chain, unflagged, events]):
        p = write(tmp_path / f"loop{n}.jsonl", extra)
        p.write_bytes(base + p.read_bytes())
        assert not _same(analyze(str(p)), monkeypatch), n


@pytest.mark.parametrize("size", [1, 7])
def test_the_column_pass_in_slices_is_the_same(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               size: int) -> None:
    """The whole-column checks run a slice of rows at a time (so a big capture's load
    lets the inspector's event loop in between): any slice size gives the same."""
    monkeypatch.setattr(object_columns, "_SLICE", size)
    a = analyze(str(_corners(tmp_path, "slices.jsonl")))
    assert _same(a, monkeypatch)
    assert a.objects.to_dict()["counts"]["response"] == 63


def test_ids_ascending_and_repeated_across_slices(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(object_columns, "_SLICE", 3)
    asc = object_columns._ascending
    assert asc([]) and asc([b"a"]) and asc([b"a", b"b", b"c", b"d", b"e", b"f", b"g"])
    assert not asc([b"a", b"b", b"c", b"d", b"d", b"e"])  # equal across a slice's end
    assert not asc([b"a", b"b", b"c", b"d", b"b"])  # falling across a slice's end
    # Response ids out of order, one given twice four slices apart: the loop lists them.
    ids = [f"resp_{i:02d}" for i in (9, 3, 7, 1, 8, 2, 6, 0, 5, 4, 11, 10, 12, 3)]
    records: list[Any] = []
    for rid in ids:
        records += [req({"model": "m", "input": "q", "conversation": "conv_a",
                         "store": True}),
                    res({**response(rid, 10, 5, conv="conv_a"), "store": True})]
    a = analyze(str(write(tmp_path / "twice.jsonl", records)))
    assert not _same(a, monkeypatch)  # the duplicate sends it to the loop
    # Without the duplicate, out of order: distinct hashes, the column pass.
    a = analyze(str(write(tmp_path / "once.jsonl", records[:-2])))
    assert _same(a, monkeypatch)


def test_merged_positions_are_the_sorted_concatenation() -> None:
    """`_merged` (a byte mask read back in C) gives what sorting the concatenation of the
    disjoint position lists gave — ranges and arrays, runs and gaps, first and last."""
    import random
    from array import array
    from itertools import chain

    rnd = random.Random(11)
    for trial in range(300):
        n = rnd.randint(1, 400)
        owner = [rnd.randrange(4) for _ in range(n)]  # each position in one list at most
        lists: list[Any] = []
        for k in range(4):
            pos = [p for p in range(n) if owner[p] == k]
            if not pos:
                continue
            if trial % 3 == 0 and pos[-1] - pos[0] + 1 == len(pos):
                lists.append(range(pos[0], pos[-1] + 1))
            else:
                lists.append(object_columns._run_or(array("I", pos)))
        if trial % 5 == 0:
            lists = [range(0, n // 2), range(n // 2, n)] if n > 1 else [range(n)]
        if len(lists) < 2:
            continue
        want = object_columns._run_or(array("I", sorted(chain(*lists))))
        got = object_columns._merged(lists, n)
        assert type(got) is type(want) and list(got) == list(want)
