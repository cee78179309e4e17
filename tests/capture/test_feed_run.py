"""`CaptureBuilder.feed_run` pairs the common lines inline and leaves every other line to
`feed_pre`: a capture built through it must be the capture `feed_pre` builds line by line —
the same turn rows, turn order, finished order, exchanges, problems and held state — on
every fixture, real capture and sample, and on a capture written to take every branch
(retries, link ids reused, orphans, streams, polls, imports, absurd usage, unknown items,
columns widened mid-step). Both ways a line's facts arrive are checked: as records with the
parsed line (one process) and as rows of a worker's chunk columns."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders import file_search, message, req, res, response, write
from traceview.capture import parallel
from traceview.capture.capture import CaptureLoader
from traceview.capture.reader import CaptureBuilder, Pre
from traceview.capture.table import TurnTable

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*ROOT.glob("tests/fixtures/*.jsonl"), *ROOT.glob("tests/fixtures/real/*.jsonl"),
                *ROOT.glob("tests/fixtures/formats/*"), *ROOT.glob("sample_traces/*.jsonl")])


def _line_by_line(self: CaptureBuilder, source: int, lines: list[tuple[int, bool, Pre]],
                  i: int, line_no: int, offset: int, stop: int,
                  reread_at: Callable[..., Any] | None = None) -> tuple[int, int, int]:
    """The general path: each line through feed_pre (what feed_run must equal)."""
    while i < len(lines) and line_no < stop:
        length, ended, pre = lines[i]
        i += 1
        if length < 0:
            offset -= length
            continue
        line_no += 1
        if pre is not None:
            n = length - 1 if ended else length
            self.feed_pre(source, line_no, offset, n, pre,
                          None if reread_at is None else reread_at(offset, n))
        offset += length
    return i, line_no, offset


def _side(side: Any) -> dict[str, Any]:
    cols = {}
    for name, col in side.cols.items():
        cols[name] = (bytes(col.buf), list(col.starts), list(col.lens)) if hasattr(
            col, "buf") else list(col)
    return {"cols": cols, "flags": list(side.flags),
            "dicts": {k: (dict(d) if type(d) is dict else len(d.rows))
                      for k, d in side.dicts.items()}}


def _state(b: CaptureBuilder) -> dict[str, Any]:
    """Everything pairing decides, read off the builder."""
    t = b.table
    return {
        "columns": {name: list(getattr(t, name)) for name in TurnTable.COLUMNS},
        "notes": dict(t.notes),
        "attempts": {r: [a.to_dict() for a in v] for r, v in t.attempts.items()},
        "turns": [x._r for x in b.turns],
        "finished": [x._r for x in b.finished],
        "exchanges": [e.to_dict() for e in b.exchanges],
        "problems": [p.to_dict() for p in b.problems],
        "pool": list(t.pool.values),
        "requests": _side(t.requests),
        "responses": _side(t.responses),
        "polling": {k: v._r for k, v in b._polling.items()},
    }


def _loaded(path: Path, monkeypatch: pytest.MonkeyPatch, general: bool) -> dict[str, Any]:
    """As `load` reads it in one process (steps of 5 lines), through feed_run or not."""
    with monkeypatch.context() as m:
        m.setenv("TRACEVIEW_WORKERS", "1")
        if general:
            m.setattr(CaptureBuilder, "feed_run", _line_by_line)
        loader = CaptureLoader([str(path)])
        loader.open_all()
        for _ in loader.steps(5):
            pass
        loader.capture.close()
    return _state(loader.builder)


def _chunked(path: Path, chunk: int, general: bool) -> dict[str, Any]:
    """As the loader's worker path: each chunk's columns taken, then its lines paired."""
    size = os.path.getsize(path)
    b = CaptureBuilder([str(path)])
    run = (partial(_line_by_line, b) if general else b.feed_run)
    reread_at = partial(partial, _reread, str(path))
    line_no = offset = 0
    for start, end in parallel.split(str(path), size, chunk):
        lines, facts = parallel.extract(str(path), start, end)
        b.take(facts)
        k = 0
        while k < len(lines):
            k, line_no, offset = run(0, lines, k, line_no, offset,
                                     line_no - line_no % 3 + 3, reread_at)
    b.close()
    return _state(b)


def _reread(path: str, offset: int, length: int) -> dict[str, Any]:
    with open(path, "rb") as f:
        f.seek(offset)
        obj = orjson.loads(f.read(length))
    return obj if isinstance(obj, dict) else {}


def _every_branch(tmp: Path) -> Path:
    """A capture whose lines take each way through the pairing, with enough distinct values
    (conversations, models, offsets) that columns widen in the middle of a step."""
    recs: list[Any] = [b"\xef\xbb\xbf" + orjson.dumps(req({"model": "m0", "input": "hi"}))]
    recs.append(res(response("r0", 10, 2)))
    for k in range(1, 320):
        conv = f"conv_{k}"
        body = {"model": f"model-{k % 290}", "conversation": conv, "input": f"q{k}",
                "tools": [{"type": "file_search", "vector_store_ids": ["vs"]}]}
        shape = k % 16
        if shape == 0:  # linked by id, answered out of order
            recs += [req(body, id=f"a{k}"), req(body, id=f"b{k}"),
                     res(response(f"rb{k}", 5, 1, conv=conv), id=f"b{k}"),
                     res(response(f"ra{k}", 5, 1, conv=conv), id=f"a{k}")]
        elif shape == 1:  # an id reused while its first request waits
            recs += [req(body, id="dup"), req(body, id="dup"),
                     res(response(f"r{k}", 5, 1), id="dup"), res(response(f"s{k}", 5, 1),
                                                                 id="dup")]
        elif shape == 2:  # failed, then retried with the same input
            recs += [req(body), res(response(f"f{k}", None, None, status="failed",
                                             error={"code": "server_error", "message": "x"})),
                     req(body), res(response(f"r{k}", 7, 3, conv=conv))]
        elif shape == 3:  # failed, then a different request: a turn of its own
            recs += [req(body), res(response(f"f{k}", None, None, status="failed")),
                     req({**body, "input": "other"}), res(response(f"r{k}", 7, 3))]
        elif shape == 4:  # background: queued, then polled to its outcome
            recs += [req({**body, "background": True}),
                     res(response(f"bg{k}", None, None, status="queued")),
                     {"dir": "req", "endpoint": f"GET /v1/responses/bg{k}"},
                     res(response(f"bg{k}", 9, 4))]
        elif shape == 5:  # a response with no request before it
            recs += [res(response(f"o{k}", 3, 1))]
        elif shape == 6:  # an unanswered request, then a turn
            recs += [req(body), req(body), res(response(f"r{k}", 3, 1))]
        elif shape == 7:  # stream events one per line
            recs += [req({**body, "stream": True}),
                     {"type": "response.created", "sequence_number": 0,
                      "response": response(f"st{k}", None, None, status="in_progress")},
                     {"type": "response.output_item.done", "sequence_number": 1,
                      "item": message("x")},
                     {"type": "response.completed", "sequence_number": 2,
                      "response": response(f"st{k}", 4, 2)}]
        elif shape == 8:  # imported records
            origin = {"format": "har", "entry": k, "cannot_carry": ["request bytes"]}
            recs += [req(body, origin=origin), res(response(f"r{k}", 4, 2), origin=origin)]
        elif shape == 9:  # absurd usage numbers
            bad = response(f"r{k}", 4, 2)
            bad["usage"]["input_tokens"] = -5
            recs += [req(body), res(bad)]
        elif shape == 10:  # an output item of an unknown type
            recs += [req(body), res(response(f"r{k}", 4, 2, output=[
                {"type": "brand_new_call", "id": "x"}, message("ok")]))]
        elif shape == 11:  # an exchange, a blank line, a bad line
            recs += [{"dir": "req", "endpoint": "GET /v1/files"},
                     {"dir": "res", "status_code": 200, "body": {"object": "list",
                                                                 "data": []}},
                     b"", b"{not json"]
        elif shape == 12:  # a request never recorded; its response alone
            recs += [{"dir": "req", "recorded": False}, res(response(f"r{k}", 4, 2))]
        else:  # the common case: hosted calls, a big offset, a chained turn
            recs += [req({**body, "previous_response_id": f"r{k - 1}"}),
                     res(response(f"r{k}", 100 * k, 20, conv=conv,
                                  output=[file_search(), message("ok")]))]
    recs.append(req({"model": "m", "input": "left waiting"}))
    return write(tmp / "every_branch.jsonl", recs)


def _files(tmp: Path) -> list[Path]:
    return [*FILES, _every_branch(tmp)]


def test_fixtures_are_there() -> None:
    assert len(FILES) >= 40


def test_one_process_pairs_as_line_by_line(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    for path in _files(tmp_path):
        want = _loaded(path, monkeypatch, general=True)
        got = _loaded(path, monkeypatch, general=False)
        assert got == want, path.name


def test_worker_chunks_pair_as_line_by_line(tmp_path: Path) -> None:
    for path in _files(tmp_path):
        if path.suffix != ".jsonl":
            continue  # a foreign format is converted first; its records are checked above
        for chunk in (1 << 20, 700):
            assert _chunked(path, chunk, False) == _chunked(path, chunk, True), path.name


def test_the_capture_written_for_it_takes_every_branch(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The inline paths and the general one each pair a share of it, and it holds what
    each rare branch makes: retries, polls, reused ids, orphans, streams, imports."""
    path = _every_branch(tmp_path)
    calls = {"general": 0}
    real = CaptureBuilder.feed_pre

    def counted(self: CaptureBuilder, *a: Any, **k: Any) -> None:
        calls["general"] += 1
        real(self, *a, **k)

    monkeypatch.setattr(CaptureBuilder, "feed_pre", counted)
    got = _loaded(path, monkeypatch, general=False)
    lines = len(path.read_bytes().splitlines())
    assert 0 < calls["general"] < lines - 200  # the rest paired inline
    kinds = {p["kind"] for p in got["problems"]}
    assert {"duplicate_link", "absurd_number", "unknown_item",
            "malformed_json"} <= kinds
    assert got["attempts"] and got["notes"]
    assert max(got["columns"]["req_offset"]) > 1 << 16  # columns widened mid-step
    assert len(got["pool"]) > 300  # pool numbers past a byte: pooled columns widened
