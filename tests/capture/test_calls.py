"""Hosted calls in columns (capture/calls.py): each response row's calls read back equal to
the HostedCall objects stored, in one process and after a worker's chunk is appended, and
the store answers like the dict by row it replaced."""

from __future__ import annotations

import pickle

from traceview.capture.calls import Calls
from traceview.capture.model import HostedCall, ResponseFacts, new_turn
from traceview.capture.table import Facts, TurnTable

A = HostedCall("web_search_call", "ws_1", "completed", "captured", None,
               ("cheap flights", "caf\u00e9 \ud800"), "opened https://example.com")
B = HostedCall("file_search_call", None, None, "missing", "file_search_call.results")
C = HostedCall("code_interpreter_call", "ci_9", "completed", "empty",
               "code_interpreter_call.outputs", (), "0 outputs captured")


def test_calls_read_back_as_stored_and_answer_like_a_dict() -> None:
    table = TurnTable()
    calls = table.responses.dicts["hosted_calls"]
    assert isinstance(calls, Calls)
    t1 = new_turn(1, 0, 1, "responses", table=table, res=ResponseFacts("r1", hosted_calls=(A, B)))
    t2 = new_turn(2, 0, 3, "responses", table=table, res=ResponseFacts("r2"))
    t3 = new_turn(3, 0, 5, "responses", table=table, res=ResponseFacts("r3", hosted_calls=(C,)))
    assert (t1.res.hosted_calls, t2.res.hosted_calls, t3.res.hosted_calls) == ((A, B), (), (C,))
    assert calls.get(1, ()) == () and calls.get(0) == (A, B) and 1 not in calls and 2 in calls
    assert list(calls.items()) == [(0, (A, B)), (2, (C,))] and len(calls) == 2
    assert calls.nbytes() < 200  # the three calls' numbers and text, no objects
    # Set again, out of order, removed: as a dict would.
    t2.res.hosted_calls = (B,)
    t1.res.hosted_calls = (C,)
    t3.res.hosted_calls = ()
    assert (t1.res.hosted_calls, t2.res.hosted_calls, t3.res.hosted_calls) == ((C,), (B,), ())
    assert calls.keys() == [0, 1] and calls.pop(5, "none") == "none"


def test_a_workers_calls_append_after_the_tables() -> None:
    table = TurnTable()
    new_turn(1, 0, 1, "responses", table=table, res=ResponseFacts("r1", hosted_calls=(C,)))
    chunk = Facts()
    chunk.responses.add(ResponseFacts("r2"))
    chunk.responses.add(ResponseFacts("r3", hosted_calls=(A, B)))
    chunk.responses.add(ResponseFacts("r4", hosted_calls=(B,)))
    chunk = pickle.loads(pickle.dumps(chunk))  # as a worker sends it
    base = table.responses.extend(chunk.responses)
    got = [new_turn(i + 2, 0, 9, "responses", table=table, res=base + i).res.hosted_calls
           for i in range(3)]
    assert got == [(), (A, B), (B,)]
    assert table.responses.dicts["hosted_calls"].get(0) == (C,)


def test_calls_read_back_past_hundreds_of_rows_and_shapes() -> None:
    """Rows past 127, shapes (details) past the 255th distinct: every call reads back as
    stored."""
    table = TurnTable()
    made = []
    for i in range(600):
        calls = (HostedCall("web_search_call", f"ws_{i}", "completed", "captured", None,
                            (f"query {i}",), f"{i} sources captured"),) if i % 2 else ()
        made.append(calls)
        new_turn(i + 1, 0, i + 1, "responses", table=table, res=ResponseFacts(f"r{i}",
                                                                          hosted_calls=calls))
    store = table.responses.dicts["hosted_calls"]
    assert [store.get(i, ()) for i in range(600)] == made


def test_a_rows_calls_read_in_brief_without_making_them() -> None:
    """(type, id, evidence, include flag) of each call, in order, from the columns and for
    a row set again out of order (kept apart): what the ledger and an attribution read."""
    table = TurnTable()
    calls = table.responses.dicts["hosted_calls"]
    new_turn(1, 0, 1, "responses", table=table, res=ResponseFacts("r1", hosted_calls=(A, B)))
    t2 = new_turn(2, 0, 3, "responses", table=table, res=ResponseFacts("r2", hosted_calls=(C,)))
    brief = [("web_search_call", "ws_1", "captured", None),
             ("file_search_call", None, "missing", "file_search_call.results")]
    assert calls.brief(0) == brief and calls.brief(7) == []
    assert calls.picked(0, "missing") == [("file_search_call", None)]
    t2.res.hosted_calls = (B, C)  # out of order: read from what was set
    assert calls.brief(1) == [brief[1], ("code_interpreter_call", "ci_9", "empty",
                                         "code_interpreter_call.outputs")]


def test_a_sides_new_rows_store_their_calls_in_one_append_per_buffer(monkeypatch) -> None:
    """Rows added together (a worker's chunk) append their calls' ids and queries to each
    buffer once, not once a row, and read back as stored; a row set out of order in the
    same update is kept apart, as `calls[row] = …` keeps it."""
    from traceview.capture.texts import Texts

    appends: list[int] = []
    real = Texts.add_all
    monkeypatch.setattr(Texts, "add_all",
                        lambda self, texts: (appends.append(1), real(self, texts))[1])
    chunk = Facts()
    chunk.responses.add_all([ResponseFacts("r1", hosted_calls=(A, B)), ResponseFacts("r2"),
                             ResponseFacts("r3", hosted_calls=(C,)),
                             ResponseFacts("r4", hosted_calls=(B,))])
    calls = chunk.responses.dicts["hosted_calls"]
    assert len(appends) == 3  # the rows' response ids, the calls' ids, their queries
    assert [calls.get(r, ()) for r in range(4)] == [(A, B), (), (C,), (B,)]
    calls.update([(5, (A,)), (4, (C,)), (6, (B,))])
    assert [calls.get(r, ()) for r in range(4, 7)] == [(C,), (A,), (B,)]
    assert calls.keys() == [0, 2, 3, 4, 5, 6]
