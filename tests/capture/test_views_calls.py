"""Hosted calls in columns (capture/calls.py) as a worker's chunks arrive: each row reads
back its own calls, a chunk without any call among them."""

from __future__ import annotations

import pickle

from traceview.capture.model import HostedCall, ResponseFacts, ResponseRow
from traceview.capture.table import Facts


def _with_call(rid: str, n: int) -> ResponseFacts:
    f = ResponseFacts(rid)
    f.hosted_calls = tuple(HostedCall("web_search_call", f"ws_{rid}_{j}", "completed",
                                      "missing", "web_search_call.action.sources", ("q",))
                           for j in range(n))
    return f


def _chunk(*facts: ResponseFacts) -> object:
    chunk = Facts()
    for f in facts:
        chunk.responses.add(f)
    return pickle.loads(pickle.dumps(chunk.responses))  # as a worker sends it


def test_chunks_with_and_without_calls_read_back_each_rows_calls() -> None:
    main = Facts()
    main.responses.add(_with_call("r0", 2))
    main.responses.extend(_chunk(ResponseFacts("r1"), ResponseFacts("r2")))  # no calls
    main.responses.extend(_chunk(_with_call("r3", 1)))
    side = main.responses
    assert [len(ResponseRow(side, r).hosted_calls) for r in range(4)] == [2, 0, 0, 1]
    assert ResponseRow(side, 3).hosted_calls[0].id == "ws_r3_0"
    assert ResponseRow(side, 0).hosted_calls[1].queries == ("q",)
