"""A capture's turns (capture/model.py `Turns`): a sequence of views made when read, which
reads like the list of Turn objects it replaced."""

from __future__ import annotations

import orjson
import pytest

from traceview.capture.capture import load
from traceview.capture.model import ResponseFacts, Turn, Turns, new_turn
from traceview.capture.table import TurnTable


def _turns(n: int) -> tuple[Turns, list[Turn]]:
    table = TurnTable()
    turns = Turns(table)
    made = []
    for i in range(n):
        t = new_turn(i + 1, 0, 10 * i + 1, "responses", table=table,
                 res=ResponseFacts(f"resp_{i}", input_tokens=100 + i))
        turns.append(t)
        made.append(t)
    return turns, made


def test_turns_index_slice_and_iterate_like_a_list() -> None:
    turns, made = _turns(5)
    assert len(turns) == 5 and bool(turns) and not Turns(TurnTable())
    assert turns[0] == made[0] and turns[-1] == made[4] and turns[-5] == made[0]
    assert turns[1] is not made[1]  # a view made when read: equal, not identical
    assert [t.index for t in turns] == [1, 2, 3, 4, 5]
    assert [t.line for t in turns[1:4]] == [11, 21, 31]
    assert [t.index for t in turns[::-2]] == [5, 3, 1]
    assert turns[10:] == [] and list(reversed(turns))[0].index == 5
    assert turns == made and made[2] in turns and turns.index(made[3]) == 3
    assert {turns[2]: "x"}[made[2]] == "x"  # equal views hash alike
    for bad in (5, -6):
        with pytest.raises(IndexError):
            turns[bad]
    assert turns.rows is None  # nothing stored per turn while position i is row i


def test_a_replaced_turn_keeps_positions_and_rows_apart() -> None:
    """A retry replaces the turn it retries with a new row: from then on positions map to
    rows through an array, and every position still reads its turn."""
    turns, made = _turns(3)
    retry = new_turn(3, 0, 99, "responses", table=turns.table, res=ResponseFacts("resp_r"))
    turns[-1] = retry
    after = new_turn(4, 0, 120, "responses", table=turns.table, res=ResponseFacts("resp_4"))
    turns.append(after)
    assert turns.rows is not None
    assert [t.response_id for t in turns] == ["resp_0", "resp_1", "resp_r", "resp_4"]
    assert turns[-2] == retry and turns[2] != made[2] and len(turns) == 4
    with pytest.raises(ValueError):
        turns.append(new_turn(1, 0, 1, "responses"))  # a turn of another table


def test_a_retried_capture_reads_its_turns_in_order(tmp_path) -> None:
    """Read from a file: a failed turn retried with the same input is one turn (the retry),
    and the turns after it keep their positions."""
    lines = []
    for i, status in enumerate(["completed", "failed", "completed", "completed"]):
        body = {"model": "gpt-5", "input": [{"role": "user", "content": "same question"}]}
        if i not in (1, 2):  # 2 retries 1 with the same input
            body["input"][0]["content"] = f"question {i}"
        lines.append({"dir": "req", "endpoint": "POST /v1/responses", "body": body})
        lines.append({"dir": "res", "status_code": 200, "body": {
            "object": "response", "id": f"resp_{i}", "status": status, "model": "gpt-5",
            "output": [], "usage": {"input_tokens": 10 + i, "output_tokens": 1}}})
    path = tmp_path / "retry.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in lines))
    cap = load(str(path))
    got = [(t.index, t.response_id, len(t.attempts)) for t in cap.turns]
    assert got == [(1, "resp_0", 0), (2, "resp_2", 1), (3, "resp_3", 0)]
    assert cap.turns.rows is not None  # the retry's row replaced the failed one's
    assert [t.response_id for t in cap.turns[-2:]] == ["resp_2", "resp_3"]
