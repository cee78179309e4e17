"""Provider objects: created / used / deleted, with the retention each implies."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.builders import file_search, message, req, res, response, write
from traceview.analysis import analyze
from traceview.report import json_out
from traceview.report.json_out import render_json

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def _objects(path: Path) -> dict:
    return analyze(str(path)).to_report()["objects"]


def test_delete_then_404_is_attached_to_the_turn_and_the_record_stays_whole() -> None:
    a = analyze(str(REAL / "dotnet_retrieve_delete_then_404.jsonl"))
    doc = a.to_report()
    [r] = doc["objects"]["objects"]
    assert (r["kind"], r["state"], r["created_line"]) == ("response", "deleted", 2)
    assert r["deleted_line"] == 5 and r["missing_line"] == 7 and r["used_lines"] == [3]
    assert r["expiry"] == "provider copy deleted (line 5)"
    t = a.turn(1)
    assert t.provider_copy["line"] == 5
    assert any("provider copy deleted (line 5)" in s for s in t.explanation)
    assert t.input_tokens is not None  # the local record is whole


def test_conversation_item_endpoints_inventory() -> None:
    [c] = _objects(REAL / "dotnet_conversation_item_endpoints.jsonl")["objects"]
    assert (c["kind"], c["created_line"], c["deleted_line"]) == ("conversation", 1, 9)
    assert c["used_lines"] == [3, 5, 7] and c["created_at"] == "2026-07-25T15:28:18Z"


def test_claims_objects_and_retention() -> None:
    doc = _objects(SAMPLES / "claims.jsonl")
    assert doc["counts"] == {"conversation": 1, "response": 4, "file": 1, "vector_store": 1}
    by_kind = {o["kind"]: o for o in doc["objects"]}
    conv = by_kind["conversation"]
    assert conv["created_line"] == 1 and conv["turns"] == [1, 2, 3, 4]
    assert conv["expires_around"] is None and "not subject to the 30-day TTL" in conv["expiry"]
    responses = [o for o in doc["objects"] if o["kind"] == "response"]
    assert all(o["store"] is True and o["expires_around"] == "2026-01-31" for o in responses)
    assert responses[0]["retention"] == "default"
    default = doc["retention_defaults"]["response"]
    assert default["days"] == 30 and default["as_of"] and "conversation-state" in default["source"]
    assert by_kind["vector_store"]["id"] == "vs_68a1c0claims2024policy"
    assert by_kind["vector_store"]["turns"] == [1, 2, 3, 4]


def test_vector_store_expires_after_and_storage_fee_and_store_false(tmp_path: Path) -> None:
    vs = {"id": "vs_big", "object": "vector_store", "created_at": 1767225600,
          "name": "policies", "usage_bytes": 3_000_000_000,
          "expires_after": {"anchor": "last_active_at", "days": 7}}
    p = write(tmp_path / "v.jsonl", [
        {"dir": "req", "endpoint": "POST /v1/vector_stores", "body": {"name": "policies"}},
        {"dir": "res", "status_code": 200, "body": vs},
        req({"model": "gpt-4o-mini", "input": "q", "store": False,
             "tools": [{"type": "file_search", "vector_store_ids": ["vs_big"]}]}),
        res(response("resp_x", 100, 10, created_at=1767312000)),  # a day later
    ])
    doc = _objects(p)
    by_kind = {o["kind"]: o for o in doc["objects"]}
    v = by_kind["vector_store"]
    assert v["created_line"] == 1 and v["name"] == "policies" and v["used_lines"] == [3]
    assert v["expires_around"] == "2026-01-09"  # last used 2026-01-02 + 7 days
    assert "expires_after 7 day(s)" in v["retention"]["text"]
    assert v["storage_usd_per_day"] == 0.2  # (3 GB - 1 GB free) x $0.10
    r = by_kind["response"]
    assert r["store"] is False and r["state"] == "not_stored" and r["expires_around"] is None


def test_a_failing_hosted_state_pass_is_a_problem_not_a_crash(monkeypatch) -> None:
    import traceview.analysis.hosted.attach as hs

    def boom(*_a, **_k):
        raise ValueError("unexpected shape")

    monkeypatch.setattr(hs, "inventory", boom)
    a = analyze(str(SAMPLES / "claims.jsonl"))
    doc = a.to_report()
    assert doc["turns"][3]["input_tokens"] == 6580  # the rest of the report stands
    [p] = [p for p in doc["problems"] if p["kind"] == "hosted_state_error"]
    assert "ValueError: unexpected shape" in p["message"]


def test_responses_only_their_own_turn_touched_list_in_order_between_touched_ones(
        tmp_path: Path) -> None:
    """A stored response that no later line names is held as a row, not an object; the
    listing interleaves it, by line, with the responses a later turn used or deleted."""
    p = write(tmp_path / "r.jsonl", [
        req({"model": "gpt-4o-mini", "input": "a"}),
        res(response("resp_a", 10, 1, created_at=1767225600)),
        req({"model": "gpt-4o-mini", "input": "b", "store": False}),
        res(response("resp_b", 10, 1, created_at=1767225601)),
        req({"model": "gpt-4o-mini", "input": "c", "previous_response_id": "resp_a"}),
        res(response("resp_c", 20, 1, created_at=1767225602)),
        {"dir": "req", "endpoint": "DELETE /v1/responses/resp_c"},
        {"dir": "res", "status_code": 200,
         "body": {"id": "resp_c", "object": "response.deleted", "deleted": True}},
    ])
    a = analyze(str(p))
    doc = a.to_report()["objects"]
    assert doc["counts"]["response"] == 3
    rows = [(o["id"], o["created_line"], o["state"], o["uses"], o["turns"], o["used_lines"],
             o["expires_around"]) for o in doc["objects"]]
    assert rows == [
        ("resp_a", 2, "exists", 1, [1, 3], [5], "2026-01-31"),
        ("resp_b", 4, "not_stored", 0, [2], [], None),
        ("resp_c", 6, "deleted", 0, [3], [], None),
    ]
    assert a.turn(3).provider_copy["line"] == 7
    assert a.turn(2).provider_copy is None


def test_dates_and_times_are_iso_utc_and_none_past_the_calendar() -> None:
    from traceview.analysis.hosted.retention import iso_date as _date
    from traceview.analysis.hosted.retention import iso_time as _iso

    assert _iso(1767225600) == "2026-01-01T00:00:00Z"
    assert _iso(1767225601.75) == "2026-01-01T00:00:01Z"
    assert _iso(253402300799.0) == "9999-12-31T23:59:59Z"
    assert _iso(253402300800.0) is None and _date(1e20) is None  # past year 9999
    assert _iso(None) is None and _date(86400 * 31) == "1970-02-01"


def test_a_time_a_rounding_away_from_midnight_is_on_the_day_timedelta_rounds_it_to() -> None:
    from traceview.analysis.hosted.retention import iso_date, iso_time

    # timedelta rounds to the microsecond: these are on the next day, not the one their
    # seconds floor to (each day is formatted once, by the day timedelta gives).
    assert iso_date(1767225600 - 2.4e-7) == "2026-01-01"
    assert iso_time(86399.9999996) == "1970-01-02T00:00:00Z"
    assert iso_date(86399.9999994) == "1970-01-01" and iso_time(-0.4) == "1969-12-31T23:59:59Z"
    assert iso_date(float("nan")) is None and iso_time(float("inf")) is None


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
    streamed = render_json(a, explain=True)
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


def test_a_long_turn_list_leaves_its_object_chunk_small(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # Numbers a chunk, made small so three chunks' worth of turns stay a quick capture.
    monkeypatch.setattr(json_out, "_NUMBERS", 100)
    a = analyze(str(_one_store_capture(tmp_path, 3 * 100)))  # past LONG_TURNS: apart
    chunks = list(json_out.iter_json(a, explain=True))
    assert b"".join(chunks) == json_out._safe(
        orjson.dumps(a.to_report(), option=orjson.OPT_INDENT_2) + b"\n")
    # The vector store's list of 300 turns (the document's last list of numbers at this
    # depth) is written 100 numbers a chunk: its start, middle and end in three chunks.
    at = [max(k for k, c in enumerate(chunks) if b"\n          %d," % n in c)
          for n in (2, 150, 299)]
    assert len(set(at)) == 3, at


def _listing(path: Path) -> list[dict]:
    a = analyze(str(path))
    return [o.to_dict() for o in a.objects.objects]


def test_a_deleted_provider_copy_is_noted_by_turn_index_in_the_objects() -> None:
    real = Path(__file__).resolve().parents[1] / "fixtures" / "real"
    a = analyze(str(real / "pai_conversation_explicit_and_auto.jsonl"))
    noted = [t.index for t in a.turns if t.provider_copy is not None]
    assert noted == [1, 2] and "deleted" in a.objects.turn_note(1)["note"]
    for t in a.turns:  # the accessor and the turn's property say the same
        assert a.objects.turn_note(t.index) == t.provider_copy
    assert a.objects.turn_note(10_000) is None
    assert noted == sorted(a.objects.turn_notes)


def test_a_response_id_recorded_twice_is_one_object_and_a_named_one_is_whole(
        tmp_path: Path) -> None:
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
