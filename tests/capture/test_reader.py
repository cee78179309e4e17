"""Reading captures: every format, pairing rules, and problems that never stop a load."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.builders import message, req, res, response, write
from traceview.analysis.session import analyze
from traceview.capture import SourceError, load


def test_two_line_pairs_become_turns_with_usage(tmp_path: Path) -> None:
    p = write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "hello there"}), res(response("resp_1", 100, 20)),
        req({"model": "m", "input": "again", "previous_response_id": "resp_1"}),
        res(response("resp_2", 130, 25)),
    ])
    cap = load(str(p))
    assert [t.index for t in cap.turns] == [1, 2]
    assert [t.line for t in cap.turns] == [1, 3]
    assert cap.turns[0].res.input_tokens == 100
    assert cap.turns[1].previous_response_id == "resp_1"
    assert cap.problems == []


def test_request_bytes_prefer_recorded_wire_length(tmp_path: Path) -> None:
    body = {"model": "m", "input": "hi"}
    p = write(tmp_path / "c.jsonl", [req(body, bytes=999), res(response("r", 1, 1)),
                                     req(body), res(response("r2", 1, 1))])
    cap = load(str(p))
    assert cap.turns[0].req.request_bytes == 999
    assert cap.turns[1].req.request_bytes == len(orjson.dumps(body))


def test_chat_completions_pair(tmp_path: Path) -> None:
    chat_res = {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o",
                "choices": [{"index": 0, "finish_reason": "length",
                             "message": {"role": "assistant", "content": "cut"}}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 9,
                          "prompt_tokens_details": {"cached_tokens": 10},
                          "completion_tokens_details": None}}
    p = write(tmp_path / "c.jsonl", [
        req({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}),
        res(chat_res)])
    t = load(str(p)).turns[0]
    assert t.api == "chat"
    assert (t.res.input_tokens, t.res.cached_tokens, t.res.output_tokens) == (50, 10, 9)
    assert t.res.reasoning_tokens is None  # details null: unknown, not 0
    assert t.res.status == "incomplete"
    assert t.req.user_text == "hi"


def test_compact_call_is_a_turn_and_listings_are_exchanges(tmp_path: Path) -> None:
    p = write(tmp_path / "c.jsonl", [
        req({"items": []}, endpoint="POST /v1/conversations"),
        res({"id": "conv_1", "object": "conversation", "created_at": 1}),
        req({"model": "m", "input": "x"}, endpoint="POST /v1/responses/compact"),
        res({"id": "resp_c", "object": "response.compaction", "created_at": 1,
             "output": [{"type": "compaction", "id": "cmp_1", "encrypted_content": "zz"}],
             "usage": {"input_tokens": 10, "output_tokens": 2}}),
        req(None, endpoint="GET /v1/conversations/conv_1/items?limit=100&order=asc"),
        res({"object": "list", "data": [{"id": "a"}, {"id": "b"}], "has_more": False}),
    ])
    cap = load(str(p))
    assert [t.api for t in cap.turns] == ["compact"]
    assert cap.turns[0].res.compaction_output
    assert [e.method for e in cap.exchanges] == ["POST", "GET"]
    listing = cap.exchanges[1]
    assert (listing.conversation_id, listing.item_count, listing.has_more) == ("conv_1", 2, False)
    assert cap.exchanges[0].conversation_id == "conv_1"


def test_streamed_turn_uses_terminal_event_and_cut_stream_has_no_usage(tmp_path: Path) -> None:
    final = response("resp_s", 40, 8)
    events = [{"type": "response.created", "sequence_number": 0,
               "response": {**final, "status": "in_progress", "usage": None}},
              {"type": "response.output_item.done", "sequence_number": 1,
               "item": message("partial")},
              {"type": "response.completed", "sequence_number": 2, "response": final}]
    p = write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "a", "stream": True}),
        {"dir": "res", "elapsed_ms": None, "events": events, "body": None},
        req({"model": "m", "input": "b", "stream": True}),
        {"dir": "res", "elapsed_ms": None, "events": events[:2]},
    ])
    whole, cut = load(str(p)).turns
    assert (whole.res.input_tokens, whole.res.status, whole.res.stream_cut) == (40, "completed",
                                                                               False)
    assert whole.res.stream_events == 3
    assert cut.res.stream_cut and cut.res.input_tokens is None and cut.res.status == "unknown"
    assert cut.res.output_types == ("message",)  # rebuilt from output_item.done


def test_stream_events_one_per_line_are_rebuilt_into_a_turn(tmp_path: Path) -> None:
    final = response("resp_e", 12, 3)
    p = write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "a", "stream": True}),
        {"type": "response.created", "sequence_number": 0, "response": {**final, "usage": None}},
        {"type": "response.output_text.delta", "sequence_number": 1, "delta": "hi"},
        {"type": "response.completed", "sequence_number": 2, "response": final},
    ])
    cap = load(str(p))
    assert len(cap.turns) == 1 and cap.problems == []
    assert cap.turns[0].res.input_tokens == 12 and cap.turns[0].res.stream_events == 3


def test_linked_records_pair_by_id_even_when_interleaved(tmp_path: Path) -> None:
    p = write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "first"}, id="a"),
        req({"model": "m", "input": "second"}, id="b"),
        res(response("resp_b", 2, 2), id="b"),
        res(response("resp_a", 1, 1), id="a"),
    ])
    cap = load(str(p))
    assert [(t.req.user_text, t.response_id) for t in cap.turns] == [
        ("first", "resp_a"), ("second", "resp_b")]


def test_a_reused_link_id_pairs_in_file_order_and_keeps_every_request(tmp_path: Path) -> None:
    # Three requests wait under one id (one held alone, then a queue of them): answers pair
    # oldest first, the one left unanswered stays a turn, and the id is free again after.
    p = write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "one"}, id="x"),
        req({"model": "m", "input": "two"}, id="x"),
        req({"model": "m", "input": "three"}, id="x"),
        res(response("r1", 1, 1), id="x"),
        res(response("r2", 2, 2), id="x"),
        req({"model": "m", "input": "four"}, id="y"),
        res(response("r4", 4, 4), id="y"),
    ])
    cap = load(str(p))
    assert [(t.req.user_text, t.response_id) for t in cap.turns] == [
        ("one", "r1"), ("two", "r2"), ("three", None), ("four", "r4")]
    assert [(x.kind, x.line) for x in cap.problems] == [
        ("duplicate_link", 2), ("duplicate_link", 3)]
    # Every turn finishes, so every one is analysed (the unanswered one at the end).
    assert sorted(t.index for t in analyze(str(p)).turns) == [1, 2, 3, 4]


def test_unanswered_request_and_orphan_response_are_kept(tmp_path: Path) -> None:
    p = write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "lost"}),
        req({"model": "m", "input": "ok"}), res(response("r1", 5, 5)),
        res(response("r2", 6, 6)),
    ])
    cap = load(str(p))
    assert [(t.req is not None, t.res is not None) for t in cap.turns] == [
        (True, False), (True, True), (False, True)]


def test_background_turn_takes_outcome_from_later_retrieve(tmp_path: Path) -> None:
    queued = response("resp_bg", None, None, status="queued")
    done = response("resp_bg", 70, 7)
    p = write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "slow", "background": True}), res(queued),
        req(None, endpoint="GET /v1/responses/resp_bg"),
        res({**queued, "status": "in_progress"}),
        req(None, endpoint="GET /v1/responses/resp_bg"), res(done),
    ])
    cap = load(str(p))
    assert len(cap.turns) == 1 and len(cap.exchanges) == 2
    t = cap.turns[0]
    assert (t.res.status, t.res.input_tokens) == ("completed", 70)
    assert "later retrieve" in t.notes[0]


def test_http_error_and_transport_error_are_failed_turns(tmp_path: Path) -> None:
    p = write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "a"}),
        {"dir": "res", "status_code": 429, "body": {"error": {"message": "slow down",
                                                              "code": "rate_limit_exceeded"}}},
        req({"model": "m", "input": "b"}),
        {"dir": "res", "body": None, "error": {"type": "timeout", "message": "read timed out"}},
    ])
    a, b = load(str(p)).turns
    assert a.res.status == "failed" and "slow down" in a.res.error
    assert b.res.status == "failed" and b.res.error.startswith("timeout")


@pytest.mark.parametrize("raw,kind", [
    (b'{"dir": "req", "body": {', "malformed_json"),
    (b'{"dir": "req", "body": {"input": "caf\xe9"}}', "invalid_utf8"),
    (b'{"hello": "world"}', "unknown_record"),
    (b'[1, 2, 3]', "unknown_record"),
])
def test_bad_lines_become_problems_with_line_numbers(tmp_path: Path, raw: bytes, kind: str) -> None:
    p = write(tmp_path / "c.jsonl", [req({"model": "m", "input": "a"}), res(response("r", 1, 1)),
                                     raw, req({"model": "m", "input": "b"}),
                                     res(response("r2", 1, 1))])
    cap = load(str(p))
    assert len(cap.turns) == 2
    assert [(pr.line, pr.kind) for pr in cap.problems] == [(3, kind)]


def test_truncated_last_line_is_reported_not_fatal(tmp_path: Path) -> None:
    p = tmp_path / "c.jsonl"
    write(p, [req({"model": "m", "input": "a"}), res(response("r", 1, 1))])
    with open(p, "ab") as f:
        f.write(b'{"dir": "req", "body": {"model": "m", "inp')
    cap = load(str(p))
    assert len(cap.turns) == 1
    assert [(pr.line, pr.kind) for pr in cap.problems] == [(3, "truncated_line")]


def test_gz_directory_and_stdin_read_the_same(tmp_path: Path) -> None:
    recs = [req({"model": "m", "input": "a"}), res(response("r", 3, 4))]
    plain = write(tmp_path / "d" / "a.jsonl", recs) if (tmp_path / "d").mkdir() is None else None
    raw = plain.read_bytes()
    (tmp_path / "d" / "b.jsonl.gz").write_bytes(gzip.compress(raw))
    (tmp_path / "d" / "notes.txt").write_text("not a capture")
    cap = load(str(tmp_path / "d"))
    assert len(cap.sources) == 2 and len(cap.turns) == 2
    assert cap.read(cap.turns[1].response)["body"]["id"] == "r"
    out = subprocess.run([sys.executable, "-c",
                          "from traceview.capture import load; c = load('-');"
                          "print(len(c.turns), c.turns[0].res.output_tokens, c.sources)"],
                         input=raw, capture_output=True, check=True)
    assert out.stdout.decode().strip() == "1 4 ['<stdin>']"


def test_a_gzip_of_zeros_is_refused_by_its_head_not_decompressed_whole(tmp_path: Path) -> None:
    """A gzip bomb (a few MB of zeros behind ~100 kB) is judged by its first decompressed
    bytes: binary data, refused whole, and never more than those bytes spooled to disk
    (it was decompressed whole first: 2 GB of zeros written to the spool)."""
    from traceview.capture.capture import CaptureLoader
    from traceview.capture.sources import SNIFF

    bomb = tmp_path / "bomb.jsonl.gz"
    bomb.write_bytes(gzip.compress(b"\0" * (64 << 20), compresslevel=9))
    loader = CaptureLoader([str(bomb)])
    loader.open_all()
    try:
        spooled = loader.capture._files[0]
        assert spooled.size == SNIFF
        assert loader.verdicts() == [
            "binary data (NUL bytes) in its first bytes; expected JSON lines"]
    finally:
        loader.capture.close()
    a = analyze(str(bomb))
    assert a.turns == [] and [p.kind for p in a.problems] == ["not_a_capture"]


def test_bodies_are_reread_by_byte_range(tmp_path: Path) -> None:
    p = write(tmp_path / "c.jsonl", [req({"model": "m", "input": "x" * 5000}),
                                     res(response("r", 1, 1))])
    cap = load(str(p))
    assert cap.read(cap.turns[0].request)["body"]["input"] == "x" * 5000


def test_missing_path_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        load(str(tmp_path / "nope.jsonl"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="no capture files"):
        load(str(tmp_path / "empty"))


def test_directory_of_many_captures_needs_few_file_descriptors(tmp_path: Path) -> None:
    recs = [req({"model": "m", "input": "a"}), res(response("r", 3, 4))]
    for i in range(300):
        write(tmp_path / f"case-{i:03d}.jsonl", recs)
    code = ("import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))\n"
            "from traceview.analysis import analyze\n"
            f"a = analyze({str(tmp_path)!r})\n"
            "print(len(a.turns), a.capture.read(a.turns[-1].response_ref)['body']['id'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["300", "r"]


def test_absurd_counts_read_as_unknown_not_as_wrapped_numbers(tmp_path: Path) -> None:
    # A negative or huge value in a damaged capture reads back as unknown (the turn table
    # keeps counts below 2**40), never as a wrapped number.
    body = response("r", 100, 20)
    body["usage"]["input_tokens"] = -5
    body["usage"]["output_tokens"] = 10**15
    p = write(tmp_path / "c.jsonl", [req({"model": "m", "input": "hi"}),
                                     {"dir": "res", "body": body, "elapsed_ms": 2**41}])
    t = load(str(p)).turns[0]
    assert (t.res.input_tokens, t.res.output_tokens, t.res.elapsed_ms) == (None, None, None)
    assert t.res.status == "completed" and t.req.request_bytes > 0


def _usage_report(tmp_path: Path, **change: object) -> dict:
    body = response("r", 100, 20, cached=50, reasoning=5, model="gpt-4o-mini")
    for where, value in change.items():
        node = body["usage"]
        *path, last = where.split("__")
        for key in path:
            node = node[key]
        node[last] = value
    p = write(tmp_path / "u.jsonl", [req({"model": "gpt-4o-mini", "input": "hi"}),
                                     {"dir": "res", "body": body}])
    out = subprocess.run([sys.executable, "-m", "traceview", "report", str(p), "--format",
                          "json"], capture_output=True, check=False)
    assert out.returncode == 1, out.stderr
    return orjson.loads(out.stdout)


def test_a_part_larger_than_its_whole_is_told_and_decides_nothing(tmp_path: Path) -> None:
    """Found by an attack pass: cached 500 of 100 input was shown ("100 (500 cached)") and
    priced on 500 cached tokens, with no problem. A part beyond its whole cannot be: the
    line says so, the numbers read as the capture says, and what the part would decide is
    unknown: the turn's cost (which tokens were cached?) and, for reasoning beyond output,
    the next turn's expected input (tests/analysis/test_fidelity.py)."""
    doc = _usage_report(tmp_path, input_tokens_details__cached_tokens=500,
                        output_tokens_details__reasoning_tokens=21)
    [turn] = doc["turns"]
    assert (turn["input_tokens"], turn["cached_tokens"]) == (100, 500)
    assert (turn["output_tokens"], turn["reasoning_tokens"]) == (20, 21)
    assert turn["cost_usd"] is None
    assert turn["cost"]["reason"] == "its usage says more cached tokens than input tokens"
    assert [(p["line"], p["kind"], p["message"]) for p in doc["problems"]] == [
        (2, "absurd_number", "usage.input_tokens_details.cached_tokens is 500: more than "
                             "input_tokens (100); the turn's cost is unknown"),
        (2, "absurd_number", "usage.output_tokens_details.reasoning_tokens is 21: more than "
                             "output_tokens (20); the next turn's expected input is unknown")]


def test_a_providers_own_usage_fields_are_not_judged_as_counts(tmp_path: Path) -> None:
    """Found by an attack pass: OpenRouter's `cost`, Groq's `queue_time` and such beside the
    token counts were told as 'not a possible token count' (exit 1). Only token counts
    (`*_tokens`, and those in `*_tokens_details`) are judged."""
    body = response("r", 10, 5, model="gpt-4o-mini")
    body["usage"].update({"cost": 0.0012, "service_tier": "standard", "queue_time": 0.012,
                          "cost_details": {"upstream_inference_cost": 0.0012},
                          "credits": -3, "latency_ms": 12.5})
    p = write(tmp_path / "ext.jsonl", [req({"model": "gpt-4o-mini", "input": "hi"}),
                                       {"dir": "res", "body": body}])
    out = subprocess.run([sys.executable, "-m", "traceview", "report", str(p), "--format",
                          "json"], capture_output=True, check=False)
    assert out.returncode == 0, out.stderr
    doc = orjson.loads(out.stdout)
    assert doc["problems"] == [] and doc["turns"][0]["input_tokens"] == 10


def test_a_streamed_responses_usage_is_judged_as_a_body_is(tmp_path: Path) -> None:
    """Found by an attack pass: only a body's usage was looked at, so the same impossible
    usage in a stream's final event read as fine (exit 0)."""
    body = response("r", 10, 5, cached=50, model="gpt-4o-mini")
    events = [{"type": "response.created", "response": {**body, "status": "in_progress",
                                                         "usage": None}},
              {"type": "response.completed", "response": body}]
    p = write(tmp_path / "st.jsonl", [req({"model": "gpt-4o-mini", "input": "hi",
                                           "stream": True}),
                                      {"dir": "res", "elapsed_ms": 100, "events": events}])
    out = subprocess.run([sys.executable, "-m", "traceview", "report", str(p), "--format",
                          "json"], capture_output=True, check=False)
    assert out.returncode == 1, out.stderr
    doc = orjson.loads(out.stdout)
    assert [(q["line"], q["message"]) for q in doc["problems"]] == [
        (2, "usage.input_tokens_details.cached_tokens is 50: more than input_tokens (10); "
            "the turn's cost is unknown")]
    assert doc["turns"][0]["cost_usd"] is None


@pytest.mark.parametrize(("value", "shown"), [("100", "'100': a string"),
                                              (True, "True: a boolean"),
                                              ([100], "[100]: a list")])
def test_a_count_of_another_type_is_told_not_silently_dropped(
        tmp_path: Path, value: object, shown: str) -> None:
    doc = _usage_report(tmp_path, input_tokens=value)
    [turn] = doc["turns"]
    assert (turn["input_tokens"], turn["output_tokens"]) == (None, 20)
    [problem] = doc["problems"]
    assert problem["message"] == (f"usage.input_tokens is {shown}, not a token count; "
                                  "shown as unknown")


def test_record_refs_reach_past_four_gigabytes() -> None:
    from traceview.capture.model import RecordRef, new_turn

    ref = RecordRef(3, 5_000_000_000, 70_000, 12_345_678)
    turn = new_turn(1, 3, ref.line, "responses", request=ref)
    assert (turn.request, turn.response, turn.line) == (ref, None, 12_345_678)
    turn.response = ref._replace(offset=5_000_070_001, line=12_345_679)
    assert turn.response.offset == 5_000_070_001 and turn.line == 12_345_678


def test_setting_one_count_of_a_row_leaves_the_others_alone() -> None:
    from traceview.capture.model import ResponseFacts, new_turn
    from traceview.capture.table import TurnTable

    table = TurnTable()
    first = new_turn(1, 0, 1, "responses", res=ResponseFacts(input_tokens=1, output_tokens=2),
                 table=table)
    turn = new_turn(2, 0, 3, "responses", table=table,
                res=ResponseFacts(input_tokens=6110, cached_tokens=0, output_tokens=290,
                                  elapsed_ms=1760, output_bytes=4_000))
    f = turn.res
    f.cached_tokens = 2**39
    f.elapsed_ms = None  # a poll's result carries no timing
    f.stream_events = 12
    assert (f.input_tokens, f.cached_tokens, f.output_tokens, f.elapsed_ms, f.output_bytes,
            f.stream_events, f.http_status) == (6110, 2**39, 290, None, 4_000, 12, None)
    f.cached_tokens = -1  # unusable: unknown, and the neighbours still intact
    assert (f.input_tokens, f.cached_tokens, f.output_tokens) == (6110, None, 290)
    f.status = "failed"
    f.response_id = "resp_x"
    assert (turn.res.status, turn.res.response_id, turn.response_id) == ("failed", "resp_x",
                                                                          "resp_x")
    assert (first.res.input_tokens, first.res.output_tokens, first.res.status) == (1, 2,
                                                                                 "unknown")
    assert (table.responses.rows, len(table)) == (2, 2)


@pytest.mark.parametrize(("data", "kinds"), [
    (b"\xef\xbb\xbf", []),  # a BOM and nothing else: no line, no problem
    (b'\xef\xbb\xbf{"dir": "req", "body": {"inp', ["truncated_line"]),
    (b'{"dir": "req", "body": {"input": "hi"}}\n{"dir": "req", "bo', ["truncated_line"]),
    (b'{"dir": "req", "body": {"input": "hi"}}\n{"dir": "res", "bo\n', ["malformed_json"]),
])
def test_a_line_s_end_is_read_from_its_last_byte(tmp_path: Path, data: bytes,
                                                  kinds: list[str]) -> None:
    """The read loop tells a cut last line (no newline) from a complete one, after a BOM
    is taken off line 1 too."""
    path = tmp_path / "c.jsonl"
    path.write_bytes(data)
    cap = load(str(path))
    assert [p.kind for p in cap.problems] == kinds
    assert all(p.line == data.count(b"\n") + (not data.endswith(b"\n")) for p in cap.problems)


@pytest.mark.parametrize(("depth", "kinds"), [(95, []), (150, ["too_deep"]),
                                              (900, ["too_deep"])])
def test_a_record_nested_past_the_limit_is_a_problem_on_its_line(
        tmp_path: Path, depth: int, kinds: list[str]) -> None:
    """Between MAX_DEPTH (100) and the parser's own limit, the bracket count sends the
    record to the depth check, which refuses it with its line."""
    deep = b'{"a":' * depth + b"1" + b"}" * depth
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"dir": "req", "body": {"input": "hi"}}\n'
                     b'{"dir": "req", "body": {"input": "x", "metadata": ' + deep + b"}}\n")
    cap = load(str(path))
    assert [(p.kind, p.line) for p in cap.problems] == [(k, 2) for k in kinds]
