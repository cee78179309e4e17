"""The turn table's own columns (where a turn's records are, its index, line, rows) at
every item-size boundary, first met after narrow rows and views of them were made: each
value reads back exactly, through views made before and after the widening."""

from __future__ import annotations

from traceview.capture.model import RecordRef, RequestFacts, ResponseFacts, Turn
from traceview.capture.table import TurnTable

VALUES = (0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 2**31 - 1, 2**31,
          2**32 - 1, 2**32, 2**40, 2**62)


def _refs(v: int) -> tuple[RecordRef, RecordRef]:
    return RecordRef(v % 7, v, v // 3, v + 1), RecordRef(v % 5, v + 2, v // 5, v + 3)


def _read(t: Turn) -> tuple[object, ...]:
    return (t.index, t.source, t.line, t.api, t.request, t.response, t.req.model,
            t.res.response_id, t.res.input_tokens)


def test_every_boundary_reads_back_through_views_made_before_it() -> None:
    table = TurnTable()
    early = [Turn(i, 0, i, "responses", table=table, req=RequestFacts(model="m"),
                  res=ResponseFacts(f"r{i}", input_tokens=i)) for i in range(1, 4)]
    before = [_read(t) for t in early]
    made = []
    for v in VALUES:
        req, res = _refs(v)
        t = Turn(v, v % 3, v, f"api-{v}", request=req, response=res, table=table,
                 req=RequestFacts(model=f"m{v}"),
                 res=ResponseFacts(f"resp_{v}", input_tokens=v))
        made.append((t, (v, v % 3, v + 1, f"api-{v}", req, res, f"m{v}", f"resp_{v}",
                         v if v < (1 << 40) - 2 else None)))
    assert table.version > 0
    assert [_read(t) for t in early] == before
    for t, want in made:
        assert _read(t) == want
    # Writing a wider value into a row made narrow, through a view of it.
    t = early[0]
    t.response = RecordRef(3, 2**33, 2**20, 2**31)
    t.res.input_tokens = 2**35
    assert (t.response, t.res.input_tokens) == (RecordRef(3, 2**33, 2**20, 2**31), 2**35)
    assert _read(early[1]) == before[1]
