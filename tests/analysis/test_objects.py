"""Provider objects: created / used / deleted, with the retention each implies."""

from __future__ import annotations

from pathlib import Path

from tests.builders import req, res, response, write
from traceview.analysis import analyze

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
    import traceview.analysis.hosted_state as hs

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


def test_listing_dicts_equal_the_objects_dicts(tmp_path: Path) -> None:
    """What the JSON report writes (`dicts()`: response rows written from their columns)
    is each listed object's own `to_dict()`, on every fixture, sample and a capture whose
    rows are stored, not stored, and without a creation time."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import gen_hosted

    hosted = tmp_path / "hosted.jsonl"
    gen_hosted.generate(hosted, 10**12, lines=2000)
    p = write(tmp_path / "r.jsonl", [
        req({"model": "gpt-4o-mini", "input": "a"}),
        res(response("resp_a", 10, 1, created_at=1767225600)),
        req({"model": "gpt-4o-mini", "input": "b", "store": False}),
        res(response("resp_b", 10, 1, created_at=1767225601)),
        req({"model": "gpt-4o-mini", "input": "c"}),
        res(response("resp_c", 10, 1)),
    ])
    paths = [*sorted(SAMPLES.glob("*.jsonl")), *sorted(REAL.glob("*.jsonl")), hosted, p]
    rows = 0
    for path in paths:
        inv = analyze(str(path)).objects
        if inv is None:
            continue
        listing = inv.objects
        assert list(listing.dicts()) == [o.to_dict() for o in listing], path.name
        rows += len(listing._rows or ())
    assert rows > 900  # the row path ran


def test_dates_and_times_of_whole_seconds_read_as_datetime_writes_them() -> None:
    """`_date` / `_iso` write whole seconds from a per-day lookup: the datetime text."""
    import random
    from datetime import UTC, datetime, timedelta

    from traceview.analysis.objects import _date, _iso

    def iso(e: float) -> str:
        t = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=e)
        return t.isoformat(timespec="seconds").replace("+00:00", "Z")

    def date(e: float) -> str:
        return (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=e)).date().isoformat()

    rnd = random.Random(7)
    values = [0.0, 1.0, 59.0, 60.0, 3599.0, 86399.0, 86400.0, 0.5, 86399.9999999,
              1767225600.25, 253402300799.0]
    values += [float(rnd.randrange(0, 4 * 10**9)) for _ in range(20_000)]
    values += [rnd.uniform(0, 4e9) for _ in range(2_000)]
    for v in values:
        assert _iso(v) == iso(v), v
        assert _date(v) == date(v), v
    assert _iso(None) is None
