"""The turn table (capture/table.py): every fact a record holds reads back the same from
its row, in one process and after a worker's columns are appended."""

from __future__ import annotations

import pickle

from traceview.capture.model import (
    HostedCall,
    RecordRef,
    RequestFacts,
    RequestRow,
    ResponseFacts,
    ResponseRow,
    new_turn,
)
from traceview.capture.table import Facts, TurnTable


def _request() -> RequestFacts:
    f = RequestFacts("responses", "gpt-5", "conv_1", "resp_0", ("reasoning.encrypted_content",),
                     ("web_search",), 1234, 800, 3, 210, "caf\u00e9 \ud800 water", 3,
                     2**64 - 1, True, False, True, "auto", True, False)
    f.store_set = f.store_value = f.instructions = True
    f.extra = {"answered": ("call_1",)}
    return f


def _response() -> ResponseFacts:
    call = HostedCall("web_search_call", "ws_1", "completed", "missing", "web_search_call.results")
    f = ResponseFacts("resp_1", "response", "failed", 500, "gpt-5-2025", "conv_1", 6110, 0,
                      290, 64, 1760, 4000, ("web_search_call", "message"), (call,), True,
                      "context_compacted", "max_output_tokens", "boom", 12, True, 2, 1)
    f.file_search_requests = 0
    f.started_at = 1_767_225_700
    f.store_set = f.refusal = True
    f.service_tier, f.fingerprint, f.error_code = "default", "fp_1", "server_error"
    f.extra = {"request_id": "req_1"}
    return f


def _fields(obj: object, cls: type) -> dict[str, object]:
    names = [n for n in cls.__slots__ if n != "extra"] + ["extra", "store"]
    return {n: getattr(obj, n) for n in names}


def test_every_fact_reads_back_from_its_row() -> None:
    req, res = _request(), _response()
    turn = new_turn(7, 2, 41, "responses", req=req, res=res, notes=("a note",))
    assert isinstance(turn.req, RequestRow) and isinstance(turn.res, ResponseRow)
    assert _fields(turn.req, RequestFacts) == _fields(req, RequestFacts)
    assert _fields(turn.res, ResponseFacts) == _fields(res, ResponseFacts)
    assert (turn.index, turn.source, turn.line, turn.api, turn.notes) == (7, 2, 41, "responses",
                                                                          ("a note",))
    assert (turn.response_id, turn.conversation_id, turn.model) == ("resp_1", "conv_1",
                                                                    "gpt-5-2025")


def test_missing_and_unusable_values_read_as_unknown() -> None:
    turn = new_turn(1, 0, 1, "chat", res=ResponseFacts(input_tokens=-5, output_tokens=2**45,
                                                   http_status=None))
    res = turn.res
    assert (res.input_tokens, res.output_tokens, res.http_status, res.hosted_calls,
            res.extra, res.error) == (None, None, None, (), None, None)
    assert turn.req is None and turn.request is None and turn.attempts == ()
    res.http_status = 404  # a value most rows lack, set later
    res.error = ""
    assert (res.http_status, res.error) == (404, "")


def test_a_workers_columns_append_with_their_own_pool() -> None:
    """A chunk's pooled numbers are its own; appended to the main table they are renumbered,
    and its rows follow the rows already there."""
    table = TurnTable()
    first = new_turn(1, 0, 1, "responses", table=table,
                 res=ResponseFacts("resp_0", status="completed", model="other"))
    chunk = Facts()
    chunk.responses.add(_response())
    chunk.requests.add(_request())
    chunk = pickle.loads(pickle.dumps(chunk))  # as a worker sends it
    base = table.responses.extend(chunk.responses)
    req_base = table.requests.extend(chunk.requests)
    turn = new_turn(2, 0, 3, "responses", table=table, req=req_base, res=base)
    assert (base, req_base) == (1, 0)
    assert _fields(turn.res, ResponseFacts) == _fields(_response(), ResponseFacts)
    assert _fields(turn.req, RequestFacts) == _fields(_request(), RequestFacts)
    assert (first.res.model, first.res.status, first.response_id) == ("other", "completed",
                                                                      "resp_0")


def test_a_row_costs_a_few_hundred_bytes_of_columns() -> None:
    table = TurnTable()
    for i in range(1000):
        new_turn(i + 1, 0, 2 * i + 1, "responses", table=table, req=RequestFacts(
            model="gpt-5", user_text="short question", request_bytes=300),
             res=ResponseFacts(f"resp_{i:024d}", "response", "completed", model="gpt-5",
                               input_tokens=100 + i, output_tokens=20))
    assert table.nbytes() / len(table) < 400


def test_texts_read_back_after_a_chunk_is_appended_and_a_row_is_set() -> None:
    from traceview.capture.texts import Texts

    texts, more = Texts(), Texts()
    for t in ("resp_a", None, "x" * 300, "résumé", "lone \ud800"):
        texts.append(t)
    more.append(None)
    more.append("y" * 70_000)
    texts.extend(more)
    texts.set(1, "later")
    assert [texts.get(r) for r in range(7)] == ["resp_a", "later", "x" * 300, "résumé",
                                                  "lone \ud800", None, "y" * 70_000]


def test_a_workers_chunk_is_freed_without_the_cycle_collector() -> None:
    """A chunk's columns are freed as soon as they are appended and dropped: its sides hold
    no reference cycle."""
    import gc
    import weakref

    chunk = pickle.loads(pickle.dumps(Facts()))  # as a worker's chunk arrives
    chunk.requests.add(RequestFacts(model="m"))
    chunk.responses.add(ResponseFacts("resp_1"))
    table = TurnTable()
    table.requests.extend(chunk.requests)
    gone = [weakref.ref(chunk.requests), weakref.ref(chunk.responses)]
    gc.disable()
    try:
        del chunk
        assert [ref() for ref in gone] == [None, None]
    finally:
        gc.enable()
    assert (table.requests.rows, table.requests.add(RequestFacts())) == (1, 1)


def test_every_column_holds_the_values_its_schema_declares() -> None:
    """Columns are fixed arrays, never replaced: a count up to LIMIT - 1, an offset or line
    past 4 GB, a row's value written later through a view, all read back exact, and a
    binding of the columns made before (analysis/columns.py) sees them."""
    from traceview.analysis.columns import Columns
    from traceview.capture.side_columns import LIMIT

    table = TurnTable()
    small = new_turn(1, 0, 1, "responses", table=table,
                     res=ResponseFacts("resp_a", input_tokens=7, output_tokens=3))
    bound = Columns(table)
    big = new_turn(2, 0, 2**33, "responses", table=table,
                   res=ResponseFacts("resp_b", input_tokens=LIMIT - 1, output_tokens=LIMIT))
    assert (small.res.input_tokens, big.res.input_tokens, big.res.output_tokens,
            small.line, big.line) == (7, LIMIT - 1, None, 1, 2**33)
    big.res.elapsed_ms = 2**35
    big.response = big.request = RecordRef(0, 2**40, 70_000, 3)
    assert (big.res.elapsed_ms, big.response.offset, big.request.length) == (2**35, 2**40,
                                                                             70_000)
    assert [bound.s_in[r] for r in range(2)] == [7, LIMIT - 1]
    assert bound.version == table.version


def test_created_at_reads_back_the_float_it_was() -> None:
    """The response's raw created_at reads back as the float it was (None when absent),
    here and in a worker's chunk, and after a write through a view."""
    table = TurnTable()
    stamps = [1_767_225_700.0, None, 0.0]
    for ts in stamps:
        f = ResponseFacts("r")
        f.raw_created_at = ts
        table.responses.add(f)
    chunk = Facts()
    f = ResponseFacts("r")
    f.raw_created_at = 1_767_225_700.25
    chunk.responses.add(f)
    table.responses.extend(pickle.loads(pickle.dumps(chunk)).responses)
    stamps.append(1_767_225_700.25)
    turns = [new_turn(i + 1, 0, 1, "responses", table=table, res=i) for i in range(4)]
    got = [t.res.raw_created_at for t in turns]
    assert got == stamps and type(got[0]) is float
    turns[1].res.raw_created_at = 5.0
    assert turns[1].res.raw_created_at == 5.0


def test_created_at_is_found_as_the_number_written() -> None:
    """What the inventory's `created_at` pattern finds in a record's bytes."""
    from traceview.capture.scan import created_in

    def found(text: bytes) -> object:
        return created_in(text, len(text))

    assert found(b'{"created_at": 1764480001.0}') == 1764480001
    assert found(b'{"created_at":1764480001}') == 1764480001
    assert found(b'{"created_at": 1764480001.5}') == 1764480001.5
    assert found(b'{"created_at": ' + b"9" * 30 + b"}") == float("9" * 30)
    assert found(b'{"created": 5}') is None


def test_chunks_append_as_one_table_adding_the_same_records() -> None:
    """A worker's chunks, appended one after another, read back exactly what one table
    adding the same records gives: pooled values renumbered into the table's pool (past
    255 of them), texts with and without Nones shifted into its buffer."""
    def record(i: int, chunk: int) -> ResponseFacts:
        return ResponseFacts(
            None if chunk == 2 else (f"resp_{i}" if chunk != 3 or i % 2 else None),
            status=("completed", "failed")[i % 2], model=f"m{i % 3}",
            conversation_id=f"c{chunk}_{i}" if chunk in (1, 4) else "c0")

    sizes = {0: 5, 1: 300, 2: 4, 3: 6, 4: 40, 5: 7}  # chunk 1 takes the pool past 255
    one, table = Facts(), TurnTable()
    for chunk, n in sizes.items():
        part = Facts()
        for i in range(n):
            one.responses.add(record(i, chunk))
            part.responses.add(record(i, chunk))
        table.responses.extend(pickle.loads(pickle.dumps(part)).responses)

    def rows(facts: Facts) -> list[tuple[object, ...]]:
        side = facts.responses
        values, cols = facts.pool.values, side.cols
        return [(cols["response_id"].get(r), values[cols["status"][r]],
                 values[cols["model"][r]], values[cols["conversation_id"][r]])
                for r in range(side.rows)]

    assert rows(table) == rows(one) and len(rows(one)) == sum(sizes.values())
