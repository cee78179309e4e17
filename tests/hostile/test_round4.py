"""Round 4 of the attack pass (issue 31's bar) on the surfaces merged after it: container
time in the cost section, project attribution from recorded headers, provider copies
(`--items`, `--live`), the objects screen's live check and its sidecar, foreign-traffic
detection, streams written one event per line, and the redactor's `cache_key` exemption.
Each test reproduces one finding through the real CLI (or the layer it names) and pins
the fixed behaviour."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.hostile.corpus import assert_no_traceback, traceview, write_jsonl

T0 = 1796083200  # 2026-12-01: containers billed per minute


def _container(created_at: Any, ts: Any = T0) -> list[dict[str, Any]]:
    body = {"id": "cntr_a", "object": "container", "created_at": created_at,
            "status": "running", "expires_after": {"anchor": "last_active_at", "minutes": 10},
            "last_active_at": T0, "memory_limit": "4g"}
    return [{"dir": "req", "ts": ts, "endpoint": "POST /v1/containers",
             "body": {"name": "a", "memory_limit": "4g"}},
            {"dir": "res", "ts": ts, "status_code": 200, "body": body}]


# A container's creation time no calendar holds (a damaged or hostile capture): the cost
# section printed its day with datetime and the whole report ended in a traceback.
@pytest.mark.parametrize("created_at,ts", [(1e300, T0), (-1e18, T0), (253_402_300_800, T0),
                                           (None, 1e19)])
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_container_time_no_calendar_holds_is_unknown(tmp_path: Path, created_at: Any,
                                                       ts: Any, fmt: str) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", _container(created_at, ts))
    out = traceview("report", str(cap), "--format", fmt)
    assert_no_traceback(out)
    assert out.returncode == 0, out.stderr
    if fmt == "json":
        (box,) = orjson.loads(out.stdout)["cost"]["containers"]
        # The request's own time stands in for a creation time that cannot be one.
        assert box["started_at"] == (None if ts != T0 else T0)


# The sidecar (and every output written through safety.outputs.replacing) went through a
# temporary name anyone could guess, `.NAME.tv-PID.tmp` beside it, opened without O_EXCL:
# a symlink planted there beforehand made the write land on the capture it points at.
def test_a_planted_temporary_symlink_never_redirects_the_sidecar(tmp_path: Path) -> None:
    import os
    from datetime import UTC, datetime

    from traceview.report.objects_out import sidecar_path, write_sidecar

    capture = tmp_path / "cap.jsonl"
    capture.write_bytes(b'{"dir": "req", "body": {}}\n')
    before = capture.read_bytes()
    sidecar = sidecar_path(capture, datetime(2026, 12, 6, 20, 0, tzinfo=UTC))
    (tmp_path / f".{sidecar.name}.tv-{os.getpid()}.tmp").symlink_to(capture)
    doc = {"objects": [], "remaining": 0}
    write_sidecar(doc, {"verdict": "verified", "objects": []}, sidecar, capture)
    assert capture.read_bytes() == before
    assert not sidecar.is_symlink()
    assert orjson.loads(sidecar.read_bytes())["verify"]["verdict"] == "verified"
    # nothing of the write is left beside it but the sidecar and the planted link
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [capture.name, sidecar.name, f".{sidecar.name}.tv-{os.getpid()}.tmp"])


def _chat(extra: dict[str, Any], status: int) -> list[dict[str, Any]]:
    ok = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1764576000,
          "model": "glm-4.6", "choices": [{"index": 0, "finish_reason": "stop",
                                           "message": {"role": "assistant", "content": "hi"}}],
          "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}
    refused = {"error": {"message": f"Unrecognized request argument supplied: {next(iter(extra))}",
                         "type": "invalid_request_error", "param": None, "code": None}}
    return [{"dir": "req", "endpoint": "POST /v1/chat/completions",
             "body": {"model": "glm-4.6", "messages": [{"role": "user", "content": "hello"}],
                      **extra}},
            {"dir": "res", "status_code": status, "body": ok if status == 200 else refused}]


# Foreign-traffic detection took `top_k`, `thinking`, `stop_sequences` or `system` in a
# request recorded at /v1/chat/completions for Anthropic's: the request was dropped (the
# turn read as response_only) and the capture got a false "Anthropic Messages traffic"
# problem (exit 1) — for an OpenAI-compatible server's parameter (vLLM's top_k, GLM's
# thinking) and for OpenAI's own 400 refusing the argument.
@pytest.mark.parametrize("extra", [{"top_k": 40}, {"thinking": {"type": "enabled"}},
                                   {"stop_sequences": ["END"]}, {"system": "be brief"}])
@pytest.mark.parametrize("status", [200, 400])
def test_an_anthropic_parameter_at_an_openai_endpoint_is_not_foreign(
        tmp_path: Path, extra: dict[str, Any], status: int) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", _chat(extra, status))
    out = traceview("report", str(cap), "--format", "json")
    assert_no_traceback(out)
    doc = orjson.loads(out.stdout)
    assert not any("traffic" in str(p) for p in doc["problems"]), doc["problems"]
    (turn,) = doc["turns"]
    assert turn["user_text"] == "hello" and "response_only" not in turn["markers"]


# A stream whose every event has a type of its own (or one 1 MB type): each was counted by
# name, so the turn's `timing.stream_events_by_type` in the report (and the inspector's
# timing lines) grew as big as the capture.
def test_an_event_type_flood_is_counted_not_echoed(tmp_path: Path) -> None:
    opened = {"id": "resp_1", "object": "response", "status": "in_progress",
              "model": "gpt-4.1", "output": []}
    done = {**opened, "status": "completed",
            "usage": {"input_tokens": 5, "output_tokens": 1, "total_tokens": 6}}
    events = [{"type": "response.created", "sequence_number": 0, "response": opened},
              *({"type": f"response.x{i}", "sequence_number": i} for i in range(1, 3000)),
              {"type": "response." + "Z" * 1_000_000, "sequence_number": 3000},
              {"type": "response.completed", "sequence_number": 3001, "response": done}]
    cap = write_jsonl(tmp_path / "flood.jsonl", [
        {"dir": "req", "endpoint": "POST /v1/responses",
         "body": {"model": "gpt-4.1", "input": "hi", "stream": True}}, *events])
    out = traceview("report", str(cap), "--format", "json")
    assert out.returncode == 0, out.stderr
    assert len(out.stdout) < 200_000
    (turn,) = orjson.loads(out.stdout)["turns"]
    counts = turn["timing"]["stream_events_by_type"]
    assert len(counts) == 66 and sum(counts.values()) == 3002
    assert counts["response.created"] == counts["response.completed"] == 1
    assert counts["(other types)"] == 3000 - 63


# A stream written one event per line kept every event carrying a snapshot: a flood of
# response.in_progress events (118 MB, 200,001 events) held them all — 300 MB of memory
# for the report against 92 MB once only the latest is kept (the one a cut stream is
# rebuilt from).
def test_a_snapshot_flood_keeps_only_the_latest_snapshot(tmp_path: Path) -> None:
    from traceview.capture.line_stream import LineStream
    from traceview.capture.model import RecordRef

    stream = LineStream(RecordRef(0, 0, 1, 1))
    for i in range(10_000):
        snap = {"id": "resp_1", "object": "response", "status": "in_progress",
                "model": "gpt-4.1", "output": [], "metadata": {"n": str(i)}}
        assert not stream.add({"type": "response.in_progress", "sequence_number": i,
                               "response": snap}, RecordRef(0, i, 1, i + 2))
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "cut", "annotations": []}]}
    stream.add({"type": "response.output_item.done", "sequence_number": 10_000,
                "output_index": 0, "item": item}, RecordRef(0, 10_000, 1, 10_002))
    kept = stream.record()["events"]
    assert len(kept) == 2 and kept[0]["response"]["metadata"] == {"n": "9999"}
    assert stream.response_id == "resp_1" and stream.reading.count == 10_001
    # the cut stream, read through the capture reader: rebuilt from the latest snapshot
    cap = write_jsonl(tmp_path / "cut.jsonl", [
        {"dir": "req", "endpoint": "POST /v1/responses",
         "body": {"model": "gpt-4.1", "input": "hi", "stream": True}},
        *({"type": "response.in_progress", "sequence_number": i,
           "response": {"id": "resp_1", "object": "response", "status": "in_progress",
                        "model": f"gpt-4.1-{i}", "output": []}} for i in range(3)),
        {"type": "response.output_item.done", "sequence_number": 3, "output_index": 0,
         "item": item}])
    (turn,) = orjson.loads(traceview("report", str(cap), "--format", "json").stdout)["turns"]
    assert turn["model"] == "gpt-4.1-2" and "stream_cut" in turn["markers"]


# `objects --verify --live` took any 404 for "gone": a base URL without /v1 (the provider
# answers "Invalid URL (GET /responses/…)" with 404 for every path) or one that is not
# the API at all (a web server's 404 page) certified every object deleted — verdict
# "verified", exit 0, and a sidecar saying so.
@pytest.mark.parametrize("where", ["without_v1", "web_server"])
def test_a_misdirected_live_check_never_certifies_deletion(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        where: str) -> None:
    import threading
    from functools import partial
    from http.server import HTTPServer, SimpleHTTPRequestHandler

    import traceview.sim as sim_mod
    from tests.lineage.lineage_capture import write_capture
    from traceview.cli import main

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-objects-misdirected-0123456789")
    path = write_capture(tmp_path / "case.jsonl")
    argv = ["objects", str(path), "--case", "CS-88213", "--verify", "--live",
            "--max-retries", "0", "--timeout", "10", "--base-url"]
    if where == "without_v1":
        with sim_mod.SimServer() as sim:
            code = main([*argv, sim.base_url.rstrip("/").removesuffix("/v1")])
    else:
        web = tmp_path / "site"
        web.mkdir()
        server = HTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(web)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            code = main([*argv, f"http://127.0.0.1:{server.server_address[1]}/v1"])
        finally:
            server.shutdown()
            server.server_close()
    err = capsys.readouterr().err
    assert code == 2
    assert "404" in err and "--base-url" in err and err.rstrip().endswith("Nothing was written.")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["case.jsonl", "site"][
        :1 + (where == "web_server")]


# A cost page whose amounts sum past the float range (1e308 twice): the bill was infinite,
# its remainder +inf, and the row "reconciled" (inf within a tolerance of inf) — exit 0.
@pytest.mark.parametrize("values", [[1e308, 1e308], [1e13], [-1e13]])
def test_an_absurd_billed_amount_is_refused_not_reconciled(tmp_path: Path,
                                                          values: list[float]) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", _chat({"seed": 1}, 200))
    day = 1764547200
    page = {"object": "page", "data": [{
        "object": "bucket", "start_time": day, "end_time": day + 86400,
        "results": [{"object": "organization.costs.result", "line_item": "glm-4.6, input",
                     "amount": {"value": v, "currency": "usd"}, "project_id": "proj_a"}
                    for v in values]}]}
    costs = tmp_path / "costs.json"
    costs.write_bytes(orjson.dumps(page))
    out = traceview("reconcile", str(cap), "--costs", str(costs), "--format", "json")
    assert_no_traceback(out)
    assert out.returncode == 2 and out.stdout == b""
    assert b"amount.value must be a number within" in out.stderr


_RESP_REQ = {"dir": "req", "endpoint": "POST /v1/responses",
             "body": {"model": "gpt-4o", "input": "hi", "stream": True}}
# A `type` or an index that is a list or an object where the wire has a string or a number:
# foreign-traffic detection and the stream facts looked it up in a set, and the line was
# skipped as an internal_error ("please report this capture line") instead of read.
UNHASHABLE = {
    "chat_block_type": [{"dir": "req", "endpoint": "POST /v1/chat/completions", "body": {
        "model": "gpt-4o", "messages": [{"role": "user",
                                         "content": [{"type": ["text"], "text": "hi"}]}]}}],
    "stream_event_type": [_RESP_REQ, {"dir": "res", "status_code": 200, "event_ms": [1, 2],
                                      "events": [{"type": ["response.created"]},
                                                 {"type": {"x": 1}}]}],
    "hosted_item_type": [_RESP_REQ, {"dir": "res", "status_code": 200, "event_ms": [1, 2],
                                     "events": [{"type": "response.output_item.added",
                                                 "output_index": 0,
                                                 "item": {"type": ["web_search_call"]}},
                                                {"type": "response.output_item.done",
                                                 "output_index": [0],
                                                 "item": {"type": "web_search_call"}}]}],
    "line_event_indexes": [
        _RESP_REQ,
        {"type": "response.created", "sequence_number": 0, "response": {
            "id": "resp_1", "object": "response", "status": "in_progress", "output": []}},
        {"type": "response.output_text.delta", "sequence_number": 1, "output_index": [0],
         "content_index": {"x": 1}, "delta": "x"},
        {"type": "response.output_text.done", "sequence_number": 2, "output_index": [0],
         "content_index": {"x": 1}, "text": "y"}],
}


@pytest.mark.parametrize("name", sorted(UNHASHABLE))
def test_a_list_where_a_type_or_index_belongs_is_read_not_an_internal_error(
        tmp_path: Path, name: str) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", UNHASHABLE[name])
    out = traceview("report", str(cap), "--format", "json")
    assert_no_traceback(out)
    doc = orjson.loads(out.stdout)
    assert [p for p in doc["problems"] if p["kind"] == "internal_error"] == []
    assert len(doc["turns"]) == 1


# A container whose only use is timed before its creation (the creation timed by the
# recorder's clock, the use by the provider's, or a capture's damaged times): its billed
# minutes read negative (-59.5 low and high).
def test_a_container_used_before_its_creation_never_bills_negative_minutes(
        tmp_path: Path) -> None:
    from tests.cost.test_containers import _turn

    created = _container(T0)
    del created[1]["body"]["last_active_at"]
    cap = write_jsonl(tmp_path / "c.jsonl", [
        *created,
        *_turn(1, "cntr_a", T0 - 3600, 30_000, "cntr_a"),
        {"dir": "req", "ts": T0 - 7200, "endpoint": "DELETE /v1/containers/cntr_a",
         "body": None},
        {"dir": "res", "ts": T0 - 7200, "status_code": 200,
         "body": {"id": "cntr_a", "object": "container.deleted", "deleted": True}}])
    out = traceview("report", str(cap), "--format", "json")
    (box,) = orjson.loads(out.stdout)["cost"]["containers"]
    assert box["started_at"] == T0 and box["last_used_at"] == T0
    assert (box["minutes_low"], box["minutes_high"]) == (0.0, 0.0)
    assert "before its start" in box["last_use_basis"]


# A capture whose sidecar name is near the file-name limit (the sidecar itself fits): the
# temporary name beside it (`.NAME.tv-PID.tmp`) did not, and `objects --verify --live`
# ended in a traceback after asking the provider.
def test_a_long_capture_name_still_gets_its_sidecar(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from traceview.report.objects_out import sidecar_path, write_sidecar

    now = datetime(2026, 12, 6, 20, 0, tzinfo=UTC)
    stem = "c" * (250 - len(sidecar_path(Path("x"), now).name) + 1)
    capture = tmp_path / stem
    capture.write_bytes(b'{"dir": "req", "body": {}}\n')
    sidecar = sidecar_path(capture, now)
    assert len(sidecar.name) == 250
    write_sidecar({"objects": [], "remaining": 0}, {"verdict": "verified", "objects": []},
                  sidecar, capture)
    assert orjson.loads(sidecar.read_bytes())["verify"]["verdict"] == "verified"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([stem, sidecar.name])


def _line_stream(rid: str, tokens: int) -> list[dict[str, Any]]:
    snap = {"id": rid, "object": "response", "status": "in_progress", "model": "gpt-4.1",
            "output": []}
    done = {**snap, "status": "completed",
            "usage": {"input_tokens": tokens, "output_tokens": 10, "total_tokens": tokens + 10}}
    return [{"type": "response.created", "sequence_number": 0, "response": snap},
            {"type": "response.output_text.delta", "sequence_number": 1, "output_index": 0,
             "content_index": 0, "delta": "x"},
            {"type": "response.completed", "sequence_number": 2, "response": done}]


# A stream written one event per line whose terminal event was written twice (a logger's
# retry), or whose events were written twice over: the repeat began a stream of its own,
# read as a second turn — the response's cost counted twice, with no problem reported.
@pytest.mark.parametrize("repeat", ["terminal", "whole_stream"])
def test_a_repeated_stream_event_is_a_problem_not_another_turn(tmp_path: Path,
                                                               repeat: str) -> None:
    req = {"dir": "req", "endpoint": "POST /v1/responses",
           "body": {"model": "gpt-4.1", "input": "hi", "stream": True}}
    events = _line_stream("resp_1", 1000)
    again = events[-1:] if repeat == "terminal" else events
    cap = write_jsonl(tmp_path / "c.jsonl", [req, *events, *again,
                                              # another call's stream is still its own turn
                                              req, *_line_stream("resp_2", 2000)])
    doc = orjson.loads(traceview("report", str(cap), "--format", "json").stdout)
    assert [(t["response_id"], t["input_tokens"]) for t in doc["turns"]] == [
        ("resp_1", 1000), ("resp_2", 2000)]
    assert [(p["kind"], p["line"]) for p in doc["problems"]] == [
        ("stream_sequence", 5 + i) for i in range(len(again))]
    assert "repeats sequence_number" in doc["problems"][0]["message"]
