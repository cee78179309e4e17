"""Replay fidelity settles a hosted conversation with no provider copy from the turn
table alone (issue #11): the facts mark each record holding an item the rebuild's reasons
read (a compaction item, reasoning held by id only), a conversation with none is given
its reason without a body read, and its rebuilt hash is made when first read — the same
verdict, byte for byte, as the general path that reads every body."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders import message, req, res, response, write
from traceview.analysis import analyze
from traceview.analysis import fidelity as fid
from traceview.capture.capture import Capture

REASONING = {"id": "rs_1", "type": "reasoning", "summary": []}
SEALED = {**REASONING, "encrypted_content": "gAAA"}
COMPACTION = {"id": "cmp_1", "type": "compaction", "encrypted_content": "gAAB"}


def _stream(body: dict[str, Any]) -> dict[str, Any]:
    """A streamed response: no body, the whole response in its terminal event."""
    return {"dir": "res", "elapsed_ms": 900, "events": [
        {"type": "response.created", "response": {**body, "output": [], "status": "in_progress"}},
        {"type": "response.output_item.done", "item": message("partial")},
        {"type": "response.completed", "response": body}]}


def _chain(first_input: Any, first_output: list[Any], streamed: bool = False,
           ) -> list[dict[str, Any]]:
    body = response("r1", 100, 10, output=first_output)
    return [
        req({"model": "o4-mini", "input": first_input, "store": True}),
        _stream(body) if streamed else res(body),
        req({"model": "o4-mini", "input": "q2", "previous_response_id": "r1"}),
        res(response("r2", 130, 10)),
        req({"model": "o4-mini", "input": "q3", "previous_response_id": "r2"}),
        res(response("r3", 160, 10)),
    ]


ASK = [{"role": "user", "content": "q1"}]


def _chained_input(item: dict[str, Any]) -> list[dict[str, Any]]:
    """_chain with `item` sent in the second (chained) turn's input."""
    records = _chain("q1", [message("a1")])
    records[2]["body"]["input"] = [{"role": "user", "content": "q2"}, item]
    return records


CASES = {
    # name: (records, the reason the general path gives)
    "plain": (_chain("q1", [message("a1")]), "no_provider_copy"),
    "sealed reasoning out": (_chain("q1", [SEALED, message("a1")]), "no_provider_copy"),
    "sealed reasoning in": (_chain([*ASK, SEALED], [message("a1")]), "no_provider_copy"),
    "bare reasoning out": (_chain("q1", [REASONING, message("a1")]), "encrypted_reasoning"),
    "bare reasoning in": (_chain([*ASK, REASONING], [message("a1")]), "encrypted_reasoning"),
    "bare reasoning streamed": (_chain("q1", [REASONING, message("a1")], streamed=True),
                                "encrypted_reasoning"),
    "sealed reasoning streamed": (_chain("q1", [SEALED, message("a1")], streamed=True),
                                  "no_provider_copy"),
    "bare reasoning in chained": (_chained_input(REASONING), "encrypted_reasoning"),
    "sealed reasoning in chained": (_chained_input(SEALED), "no_provider_copy"),
    "compaction in": (_chain([COMPACTION, *ASK], [message("a1")]), "compaction"),
    "compaction out": (_chain("q1", [COMPACTION, message("a1")]), "compaction"),
}


def _both(path: Path) -> tuple[Any, Any, int]:
    """(the columns' verdicts, the general path's, bodies the columns' assess read)."""
    a = analyze(str(path))
    reads = []
    real = Capture.read

    def read(self: Any, ref: Any) -> Any:
        reads.append(ref)
        return real(self, ref)

    Capture.read = read  # type: ignore[method-assign]
    try:
        fast = fid.assess(a, objects=a.objects)
        n = len(reads)
    finally:
        Capture.read = real  # type: ignore[method-assign]
    a.turns = list(a.turns)  # a plain list: the general path (every body read)
    return fast, fid.assess(a, objects=a.objects), n


@pytest.mark.parametrize("name", list(CASES))
def test_a_settled_verdict_is_the_general_paths(tmp_path: Path, name: str) -> None:
    records, reason = CASES[name]
    fast, slow, read = _both(write(tmp_path / "c.jsonl", records))
    [v] = slow.verdicts
    assert v.reason == reason
    assert orjson.dumps(fast.to_dict()) == orjson.dumps(slow.to_dict())
    if reason == "no_provider_copy":  # settled from the table: no body read to judge it
        assert read == 0 and fast._codes[0] > len(fid._EARLY)
        # 3 inputs and 2 outputs (not the final's), and a sealed reasoning item
        assert fast.verdicts[0].rebuilt_items == 5 + ("sealed" in name)
    else:  # a compaction marker settles it early, else its items were read
        assert fast._codes[0] == (2 if reason == "compaction" else 0)
        assert read > 0 if reason == "encrypted_reasoning" else read == 0


def test_a_settled_verdicts_line_reads_no_body(tmp_path: Path) -> None:
    """The conversations screen shows each verdict's line: no rebuild made for it."""
    a = analyze(str(write(tmp_path / "c.jsonl", CASES["plain"][0])))
    f = fid.assess(a, objects=a.objects)
    made = []
    real = fid._rebuilt_hosted
    fid._rebuilt_hosted = lambda *x: made.append(x) or real(*x)  # type: ignore[assignment]
    try:
        v = f.verdict(a.conversations[0].key)
        assert v is not None and v.line().startswith("unverified: ") and made == []
        assert v.to_dict()["rebuilt_sha256"] is not None and len(made) == 1
    finally:
        fid._rebuilt_hosted = real  # type: ignore[assignment]


def test_the_hosted_shape_is_settled_without_reading_a_body(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import gen_hosted

    path = tmp_path / "hosted.jsonl"
    gen_hosted.generate(path, 10**12, lines=3000)
    fast, slow, read = _both(path)
    assert read == 0
    assert sum(c > len(fid._EARLY) for c in fast._codes) > 10  # hashes made when read
    assert orjson.dumps(fast.to_dict()) == orjson.dumps(slow.to_dict())


def test_the_rows_with_a_missing_call_are_those_calls_has_finds() -> None:
    """`_missing_rows` reads the calls' columns whole (in C where the shapes fit a byte):
    the same rows as asking each row, with calls set out of order and a widened shape."""
    from traceview.capture.calls import Calls
    from traceview.capture.model import HostedCall, ResponseFacts, new_turn
    from traceview.capture.table import TurnTable

    for shapes in (3, 400):  # 400 shapes: the shape column widened past a byte
        table = TurnTable()
        calls = table.responses.dicts["hosted_calls"]
        assert isinstance(calls, Calls)
        for i in range(600):
            ev = "missing" if i % 7 in (1, 4) else "captured"
            hosted = tuple(HostedCall("file_search_call", f"fs_{i}_{k}", "completed",
                                      ev if k == i % 3 else "captured", None, (),
                                      f"d{(i + k) % shapes}") for k in range(i % 4))
            new_turn(i + 1, 0, 2 * i + 1, "responses", table=table,
                     res=ResponseFacts(f"r{i}", hosted_calls=hosted))
        n = len(table.responses.flags)
        before = {r for r in range(n) if calls.has(r, "missing")}
        assert len(before) > 50
        # set out of order: a row loses its missing call, another gains one
        lose, gain = min(before), min(set(range(n)) - before)
        calls[lose] = ()
        calls[gain] = (HostedCall("web_search_call", "ws", "completed", "missing", None),)
        want = {r for r in range(n) if calls.has(r, "missing")}
        assert want == before - {lose} | {gain}
        flags = fid._missing_rows(calls, n)
        assert flags is not None and len(flags) == n + 1 and flags[-1] == 0  # row -1: none
        assert {r for r in range(n) if flags[r]} == want
        assert shapes == 3 or type(calls.shape) is not bytearray


def test_each_conversations_verdict_is_found_by_its_key_in_any_order(tmp_path: Path) -> None:
    """The conversations screen asks for every verdict by key, in order: each is found
    (in order, one step each), and in any other order the same verdicts."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import gen_hosted

    path = tmp_path / "hosted.jsonl"
    gen_hosted.generate(path, 10**12, lines=1500)
    a = analyze(str(path))
    f = fid.assess(a, objects=a.objects)
    want = {v.conversation: v.to_dict() for v in f.verdicts}
    keys = [c.key for c in a.conversations]
    assert len(want) > 20 and set(want) <= set(keys)
    for order in (keys, keys[::-1], keys[1::2] + keys[::2], keys):
        got = {k: v.to_dict() for k in order if (v := f.verdict(k)) is not None}
        assert got == want
    assert f.verdict("no such conversation") is None
    read = 0

    class Counted(list):  # type: ignore[type-arg]
        def __getitem__(self, k: Any) -> Any:
            nonlocal read
            read += 1
            return super().__getitem__(k)

    f._items = Counted(f._items)
    f.verdict(keys[-1])  # the cursor left at the end
    read = 0
    # in order, each found one step after the last: no scan from the start each time
    assert [f.verdict(k).conversation for k in want] == list(want)  # type: ignore[union-attr]
    assert read == 2 * len(want)  # the key looked at, the verdict made


def test_a_rebuild_that_fails_when_read_leaves_the_hash_unknown(tmp_path: Path) -> None:
    """Made when read, outside the load's safety net: a failure leaves the hash unknown
    and the verdict (settled without it) whole, instead of stopping the writer."""
    a = analyze(str(write(tmp_path / "c.jsonl", CASES["plain"][0])))
    [v] = fid.assess(a, objects=a.objects).verdicts

    def fails() -> Any:
        raise RecursionError("a shape nothing anticipated")

    v._rebuild = fails
    d = v.to_dict()
    assert (d["rebuilt_sha256"], d["rebuilt_items"]) == (None, None)
    assert (d["status"], d["reason"]) == ("unverified", "no_provider_copy")
