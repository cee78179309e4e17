"""The hosted-state passes' compact forms (issue #11, memory): the ledger's columns, the
tool configurations by turn, the objects' rare fields and the writer's long turn lists
give exactly what the plain forms gave."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.builders import file_search, message, req, res, response, write
from traceview.analysis import analyze
from traceview.analysis.hosted_state import _Configs
from traceview.analysis.ledger import ConversationLedger, Ledger, Source
from traceview.analysis.objects import ProviderObject
from traceview.report import json_out
from traceview.report.json_out import render_json

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"


def _one_store_capture(tmp_path: Path, turns: int) -> Path:
    """`turns` turns of one conversation, each offering file_search over one vector store."""
    tools = [{"type": "file_search", "vector_store_ids": ["vs_all"]}]
    recs = []
    for i in range(1, turns + 1):
        recs.append(req({"model": "gpt-4o-mini", "input": f"q{i}", "tools": tools,
                         **({"previous_response_id": f"r{i - 1}"} if i > 1 else {})}))
        recs.append(res(response(f"r{i}", 1000 + 10 * i, 10,
                                 output=[file_search(f"fs_{i}"), message("a")])))
    return write(tmp_path / "store.jsonl", recs)


def test_a_long_turn_list_is_written_as_orjson_would_write_it(tmp_path: Path) -> None:
    a = analyze(str(_one_store_capture(tmp_path, json_out.LONG_TURNS + 44)))
    [store] = [o for o in a.objects.objects if o.kind == "vector_store"]
    assert len(store.turns) == json_out.LONG_TURNS + 44  # past the list's limit
    streamed = render_json(a)
    # What the document is without the pre-serialised list: every object's plain dict.
    whole = orjson.dumps(a.to_report(), option=orjson.OPT_INDENT_2) + b"\n"
    assert streamed == json_out._safe(whole)
    doc = orjson.loads(streamed)
    [vs] = [o for o in doc["objects"]["objects"] if o["kind"] == "vector_store"]
    assert vs["turns"] == list(range(1, json_out.LONG_TURNS + 45))


def test_a_long_turn_list_is_streamed_apart_and_a_short_one_is_a_list() -> None:
    from array import array

    lists = json_out._LongLists()
    assert lists(array("I", [3, 4])) == [3, 4] and not lists.held
    long = lists(array("I", range(1, 10_001)))
    assert isinstance(long, orjson.Fragment) and len(lists.held) == 1
    body = orjson.dumps([{"turns": long, "id": "vs_1"}], option=orjson.OPT_INDENT_2)
    chunks = list(lists.write(body, b"\n"))
    assert not lists.held  # written once: the next batch starts clean
    got = b"".join(chunks)
    assert got == orjson.dumps([{"turns": list(range(1, 10_001)), "id": "vs_1"}],
                               option=orjson.OPT_INDENT_2)
    # The list never sits whole in one chunk: the write's peak is a slice of it.
    assert max(map(len, chunks)) < len(got) // 2


def test_a_long_turn_list_leaves_its_object_chunk_small(tmp_path: Path) -> None:
    a = analyze(str(_one_store_capture(tmp_path, 3 * json_out._NUMBERS)))
    chunks = list(json_out.iter_json(a))
    assert b"".join(chunks) == json_out._safe(
        orjson.dumps(a.to_report(), option=orjson.OPT_INDENT_2) + b"\n")
    with_list = [c for c in chunks if b"\n          12287," in c]
    assert with_list and all(len(c) < 100_000 for c in with_list)


def test_configs_by_turn_number_shared_and_gaps_read_as_none() -> None:
    a = analyze(str(SAMPLES / "claims.jsonl"))
    configs = _Configs()
    for t in a.turns:
        configs.see(t, None, [b"vs_policies"])
    got = [configs.get(t.index) for t in a.turns]
    assert all(c is not None for c in got)
    assert len({id(c) for c in got}) == len(set(got))  # one object per distinct one
    assert configs.get(10_000) is None and configs.get(-1) is None
    configs._put(5_000, 1)  # far past the array: kept in the map
    assert configs.get(5_000) is configs._made[1]
    assert configs.get(4_999) is None


def test_ledger_views_read_the_columns() -> None:
    a = analyze(str(SAMPLES / "claims.jsonl"))
    ledger = a.ledger
    assert isinstance(ledger, Ledger)
    key = a.conversations[0].key
    conv = ledger.conversations[key]
    assert isinstance(conv, ConversationLedger) and conv == ledger.conversations.get(key)
    assert key in ledger.conversations and list(ledger.conversations) == [
        c.key for c in a.conversations]
    [src] = conv.sources
    assert isinstance(src, Source) and src.conversation == key
    assert (src.id, src.kind, src.arrived_turn, src.tokens) == ("deposit@3", "deposit", 3, 4003)
    assert src.origin_turns == [2] and src.types == ["file_search_call"]
    assert [c.turn for c in src.charges] == [3, 4] and src.turns_carried == 2
    assert src.ended_by is None
    carry = ledger.carry(key, 4)
    assert carry is not None and carry.tokens == 4003 and carry.arrived == []
    assert ledger.carry(key, 2) is None and ledger.carry("nope", 4) is None
    assert ledger.source_at(3) == [src]
    assert conv.to_dict() == a.conversations[0].to_dict()["carried_context"]


def test_ledger_turn_indices_past_four_bytes_widen_their_column() -> None:
    ledger = Ledger()
    n = ledger._open("k", None, (None, None, None, 3))
    i = ledger._add_source(n, 0, 1 << 40, 1 << 40, [1 << 41], ["c"], ("t",), False, (), None)
    ledger._close()
    s = Source(ledger, i)
    assert (s.arrived_turn, s.tokens, s.origin_turns) == (1 << 40, 1 << 40, [1 << 41])


def test_provider_object_rare_fields_are_none_until_set() -> None:
    o = ProviderObject("file", "file_1")
    assert o._more is None and o.deleted_line is None and o.name is None
    o.deleted_line = None  # setting None makes nothing
    assert o._more is None
    o.deleted_line = 9
    o.items_deleted_lines.append(4)
    d = o.to_dict()
    assert d["deleted_line"] == 9 and d["items_deleted_lines"] == [4] and d["state"] == "deleted"
    assert ProviderObject("file", "f2").to_dict()["items_deleted_lines"] == []


def test_hosted_results_not_captured_are_held_as_turn_and_call_and_read_as_the_sentence(
        ) -> None:
    a = analyze(str(SAMPLES / "claims.jsonl"))
    [v] = [v for v in a.fidelity.verdicts if v.reason == "evidence_missing"]
    assert isinstance(v._detail, tuple)  # no sentence held
    want = ('file_search results on turn 2 were not captured '
            '(add include=["file_search_call.results"])')
    assert v.detail == want and v.to_dict()["detail"] == want and want in v.line()
    v.detail += "; more"  # the owned-state path appends to it
    assert v.detail == want + "; more"


def test_response_rows_hold_whole_seconds_in_four_bytes_until_a_time_is_not_whole() -> None:
    from traceview.analysis.objects import _ResponseRows

    rows = _ResponseRows([])
    rows.add(1, 1_700_000_000.0, True)
    rows.add(2, None, True)
    assert rows.created.typecode == "I"
    assert [rows.created_at(0), rows.created_at(1)] == [1_700_000_000.0, None]
    rows.add(3, 1.5, False)  # a fraction: the column becomes floats, values kept
    rows.add(4, None, True)
    assert rows.created.typecode == "d"
    assert [rows.created_at(r) for r in range(4)] == [1_700_000_000.0, None, 1.5, None]
    rows.add(5, 2.0 ** 40, True)
    assert rows.created_at(4) == 2.0 ** 40


def _listing(path: Path) -> list[dict]:
    a = analyze(str(path))
    return [o.to_dict() for o in a.objects.objects]


def test_only_named_response_ids_are_mapped_and_a_repeated_id_is_still_one_object(
        tmp_path: Path, monkeypatch) -> None:
    from traceview.analysis import objects

    recs = []
    for i, rid in enumerate(["r1", "r2", "r3", "r2", "r4"], 1):  # r2 recorded twice
        body = {"model": "gpt-4o-mini", "input": f"q{i}"}
        if rid == "r4":
            body["previous_response_id"] = "r1"  # names r1: mapped from the start
        recs += [req(body), res(response(rid, 100 + i, 5))]
    path = write(tmp_path / "dup.jsonl", recs)
    got = _listing(path)
    assert [(o["id"], o["turns"]) for o in got if o["kind"] == "response"] == [
        ("r1", [1, 5]), ("r3", [3]), ("r2", [2, 4]), ("r4", [5])]  # by created line
    assert next(o for o in got if o["id"] == "r1")["uses"] == 1
    a = analyze(str(path))
    assert objects._referenced(a.turns, a.capture.exchanges)[1] == {"r1"}  # only it mapped
    monkeypatch.setattr(objects, "_referenced", lambda turns, exchanges: (None, None))
    assert _listing(path) == got  # every id mapped as it comes: the same listing


def test_a_verdict_the_capture_alone_settles_is_held_as_its_conversation_and_made_again(
        ) -> None:
    a = analyze(str(SAMPLES / "claims.jsonl"))
    f = a.fidelity
    held = [k for k, code in enumerate(f._codes) if code]
    assert held and all(not hasattr(f._items[k], "to_dict") or hasattr(f._items[k], "key")
                        for k in held)  # conversations, not verdicts
    k = held[0]
    conv = f._items[k]
    v = f.verdicts[k]
    assert v.conversation == conv.key and v.reason == "evidence_missing"
    assert v.to_dict() == f.verdicts[k].to_dict()  # made again: the same verdict
    assert f.verdict(conv.key).to_dict() == v.to_dict()
    assert f.verdicts[-len(f._items) + k].to_dict() == v.to_dict()
    assert [x.to_dict() for x in f.verdicts[:]] == [x.to_dict() for x in f.verdicts]
    doc = f.to_dict()
    assert doc["by_reason"]["evidence_missing"] >= 1
    assert doc["conversations"] == len(f.verdicts) == len(doc["verdicts"])
    assert doc["replay"] == sum(x.replays for x in f.verdicts)


def test_a_deleted_provider_copy_is_noted_by_turn_index_in_the_objects() -> None:
    real = Path(__file__).resolve().parents[1] / "fixtures" / "real"
    a = analyze(str(real / "pai_conversation_explicit_and_auto.jsonl"))
    noted = [t.index for t in a.turns if t.provider_copy is not None]
    assert noted == [1, 2] and "deleted" in a.objects.turn_note(1)["note"]
    for t in a.turns:  # the accessor and the turn's property say the same
        assert a.objects.turn_note(t.index) == t.provider_copy
    assert a.objects.turn_note(10_000) is None
    assert noted == sorted(a.objects.turn_notes)
