"""The hosted-state passes read the turn table's columns at each turn's row (issue #11:
no view per turn or call): on every fixture, sample and a slice of the hosted bench shape,
each pass gives what it gives reading the same turns through their views (a plain list of
TurnReports takes the views' path); the canonical form's one-walk, orjson-written bytes
are the definition's; the hosted calls' questions are answered without making calls; and
a binding of the columns is made again when the table's version changes."""

from __future__ import annotations

import random
import statistics
import struct
import sys
from array import array
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders import req, res, response, write
from traceview.analysis import analyze
from traceview.analysis import fidelity as fid
from traceview.analysis.hosted_state import _Configs
from traceview.analysis.ledger import _line, build_ledger
from traceview.analysis.objects import inventory
from traceview.capture.calls import Calls
from traceview.capture.model import HostedCall, ResponseFacts, new_turn
from traceview.capture.table import TurnTable

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import gen_hosted

    hosted = tmp_path_factory.mktemp("hosted") / "hosted.jsonl"
    gen_hosted.generate(hosted, 10**12, lines=3000)
    return [*sorted(SAMPLES.glob("*.jsonl")), *sorted(REAL.glob("*.jsonl")), hosted]


def _ledger(led: Any) -> Any:
    return ({k: c.to_dict() for k, c in led.conversations.items()},
            {i: c.to_dict() for i, c in led.turns.items()})


def test_each_pass_reads_the_columns_as_the_views_read(paths: list[Path]) -> None:
    checked = 0
    for path in paths:
        a = analyze(str(path))
        if a.objects is None:
            continue
        cap, views = a.capture, list(a.turns)  # a list: the views' path
        configs, by_views = _Configs(), _Configs()
        objs = inventory(a.turns, cap.exchanges, cap.read_raw, on_request=configs.see,
                         on_row=configs.see_row)
        slow = inventory(views, cap.exchanges, cap.read_raw, on_request=by_views.see)
        assert orjson.dumps(objs.to_dict()) == orjson.dumps(slow.to_dict()), path.name
        assert list(objs.objects.dicts()) == [o.to_dict() for o in slow.objects], path.name
        assert [configs.get(t.index) for t in views] == [by_views.get(t.index)
                                                          for t in views], path.name
        bills = {c.key: c.cost_usd for c in a.conversations}
        assert _ledger(build_ledger(a.turns, a.pricing_table, configs.get, bills)) == \
            _ledger(build_ledger(views, a.pricing_table, configs.get, bills)), path.name
        fast = fid.assess(a, objects=objs)
        a.turns = views
        assert fid.assess(a, objects=objs).to_dict() == fast.to_dict(), path.name
        checked += len(views)
    assert checked > 1500  # the hosted slice ran


def test_the_canonical_form_is_its_definition_written_by_json_dumps(paths: list[Path]) -> None:
    items: list[Any] = []
    for path in paths:
        for line in path.read_bytes().splitlines():
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:  # the damaged lines of hostile samples
                continue
            body = rec.get("body") if isinstance(rec, dict) else None
            if isinstance(body, dict):
                for key in ("input", "output", "data"):
                    if isinstance(body.get(key), list):
                        items += body[key]
    odd = [{"role": "user", "content": "x", "annotations": [1]}, {"a": {"logprobs": [1]}},
           {"a": [{}, None, "", [], {"annotations": []}]}, {"schema_": 2, "schema": None},
           {"type": "input_text", "a": {"type": "input_text"}}, None, "", [], {}, 0, False,
           {"n": 2**70}, {"n": -2**63}, {"f": float("nan")}, {"f": 1e-05}, {"t": (1, 2)}]
    rng = random.Random(7)
    odd += [{"score": struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]}
            for _ in range(2000)]
    for group in [items[i:i + 50] for i in range(0, len(items), 50)] + [[o] for o in odd]:
        slow = [fid._slow_canonical_item(i) for i in group]
        assert [fid.canonical_item(i) for i in group] == slow
        assert fid.canonical(group) == fid._json_canonical(slow)
    assert len(items) > 500


def test_the_growth_line_is_statistics_linear_regression() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        x = sorted(rng.sample(range(1, 300), rng.randint(2, 80)))
        y = [rng.choice((rng.randint(0, 10**6), rng.randint(0, 10**9))) for _ in x]
        assert _line(x, y) == tuple(statistics.linear_regression(x, y))


A = HostedCall("web_search_call", "ws_1", "completed", "captured", None, ("q",), "d")
B = HostedCall("file_search_call", None, None, "missing", "file_search_call.results")
C = HostedCall("code_interpreter_call", "ci\ud800", "completed", "captured", None)


def test_calls_questions_are_answered_without_making_calls(monkeypatch: Any) -> None:
    table = TurnTable()
    calls = table.responses.dicts["hosted_calls"]
    assert isinstance(calls, Calls)
    for i, hosted in enumerate(((A, B), (), (C,), (B,))):
        new_turn(i + 1, 0, 2 * i + 1, "responses", table=table,
             res=ResponseFacts(f"r{i}", hosted_calls=hosted))
    new_turn(9, 0, 99, "responses", table=table, res=0).res.hosted_calls = (C, A)  # out of order
    made = []
    monkeypatch.setattr(Calls, "_read", lambda self, *a: made.append(a))
    assert [r in calls for r in range(6)] == [True, False, True, True, False, False]
    assert [calls.picked(r, "captured") for r in (1, 2, 3)] == [[], [(C.type, C.id)], []]
    assert [calls.has(r, "missing") for r in (1, 2, 3)] == [False, False, True]
    assert calls.span(2) == (2, 3) and calls.span(1) is None
    assert made == []
    monkeypatch.undo()
    assert calls.picked(0, "captured") == [(C.type, C.id), (A.type, A.id)]  # set again
    assert calls.get(2) == (C,) and calls.get(0) == (C, A)


def test_a_binding_is_made_again_when_the_tables_version_changes(tmp_path: Path) -> None:
    """fidelity's reader of hosted calls (kept for verdicts made again when read) and the
    inventory's tool configurations read a column replaced by a widening."""
    p = write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "a", "tools": [{"type": "file_search"}]}),
        res(response("resp_a", 10, 1, output=[{"type": "file_search_call", "id": "fs_1",
                                                "status": "completed", "results": None}])),
        req({"model": "m", "input": "b", "tools": [{"type": "web_search"}]}),
        res(response("resp_b", 10, 1)),
    ])
    a = analyze(str(p))
    t1, t2 = (t.turn for t in a.turns)
    table = t1.table
    read = fid._HostedCalls()
    configs = _Configs()
    assert [c.type for c in read(t1)] == ["file_search_call"] and read(t2) == ()
    configs.see_row(table, t1.row, None, [])
    # A widening replaces a column with a wider copy and bumps the version: here the
    # copy swaps the two turns' responses and requests.
    table.res_row = array("q", [table.res_row[t2.row], table.res_row[t1.row]])
    table.req_row = array("q", [table.req_row[t2.row], table.req_row[t1.row]])
    table.layout.version += 1
    assert read(t1) == () and [c.type for c in read(t2)] == ["file_search_call"]
    configs.see_row(table, t1.row, None, [])
    assert configs.get(t1.index).tools == frozenset({"web_search"})
