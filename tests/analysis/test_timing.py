"""Time as the caller saw it and the stream as evidence (issue #34): arrival offsets beside
stream events read back as TTFT and generation time, sequence faults and text that
disagrees with itself become problems and markers, retried turns count their backoff from
`ts` (labelled when there is none), and captures without any of it read as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.builders import message, req, res, response, write
from traceview.analysis.session import analyze
from traceview.analysis.timing import TurnTiming
from traceview.capture.sse import located_events, parse_events
from traceview.cli import main


def _stream(text_parts: list[str], seqs: list[int] | None = None, done_text: str | None = None,
            body_text: str | None = None) -> list[dict[str, Any]]:
    """A Responses stream: created, item added, deltas, text done, completed."""
    final = response("resp_s", 20, 8, output=[message(body_text or "".join(text_parts))])
    evs: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**final, "usage": None, "output": []}},
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"type": "message", "id": "msg_1", "content": []}},
        *({"type": "response.output_text.delta", "output_index": 0, "content_index": 0,
           "delta": d} for d in text_parts),
        {"type": "response.output_text.done", "output_index": 0, "content_index": 0,
         "text": "".join(text_parts) if done_text is None else done_text},
        {"type": "response.completed", "response": final},
    ]
    for i, ev in enumerate(evs):
        ev["sequence_number"] = i if seqs is None else seqs[i]
    return evs


def _timing(path: Path) -> list[dict[str, Any]]:
    return [t.timing for t in analyze(str(path)).turns]


def test_arrival_offsets_give_ttft_generation_and_tokens_per_second(tmp_path: Path) -> None:
    evs = _stream(["Hello", " there"])
    p = write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "hi", "stream": True}),
        res(None, elapsed=400, events=evs, event_ms=[120, 150, 180, 390, 395, 400],
            headers={"openai-processing-ms": "300"})])
    [t] = _timing(p)
    # first output event is output_item.added (150 ms); the last event at 400 ms
    assert (t["ttft_ms"], t["generation_ms"], t["output_tokens_per_s"]) == (150, 250, 32.0)
    assert (t["processing_ms"], t["processing_share"], t["network_queue_ms"]) == (300, 0.75, 100)
    assert t["stream_events_by_type"] == {
        "response.created": 1, "response.output_item.added": 1,
        "response.output_text.delta": 2, "response.output_text.done": 1,
        "response.completed": 1}
    assert t["stream_sequence_faults"] == 0 and t["stream_text_mismatch"] is None


def test_duplicate_and_out_of_order_sequence_numbers_are_problems_and_a_marker(
        tmp_path: Path) -> None:
    evs = _stream(["a", "b", "c"], seqs=[0, 1, 2, 2, 1, 5, 6])
    p = write(tmp_path / "c.jsonl", [req({"model": "m", "input": "hi", "stream": True}),
                                     res(None, events=evs)])
    a = analyze(str(p))
    [turn] = a.turns
    assert "stream_sequence" in turn.markers
    assert [(pr.line, pr.kind) for pr in a.problems] == [(2, "stream_sequence")] * 3
    assert [pr.message.split(";")[0] for pr in a.problems] == [
        "stream event 3 repeats sequence_number 2",
        "stream event 4 repeats sequence_number 1",
        "stream event 5 has sequence_number 5 after 2: 2 missing"]
    assert turn.timing["stream_sequence_faults"] == 3
    assert turn.timing["ttft_ms"] is None  # no arrival offsets in this capture


def test_deltas_that_disagree_with_done_or_the_body_are_marked(tmp_path: Path) -> None:
    p = write(tmp_path / "c.jsonl", [
        req({"model": "m", "input": "one", "stream": True}),
        res(None, events=_stream(["Hel", "lo"], done_text="Hello!")),
        req({"model": "m", "input": "two", "stream": True}),
        res(None, events=_stream(["Hel", "lo"], body_text="Goodbye")),
        req({"model": "m", "input": "three", "stream": True}),
        res(None, events=_stream(["Hel", "lo"])),
    ])
    turns = analyze(str(p)).turns
    assert ["stream_text_mismatch" in t.markers for t in turns] == [True, True, False]
    assert turns[0].timing["stream_text_mismatch"] == (
        "event 4: the deltas of output 0 add up to 5 characters, its .done text has 6")
    assert turns[1].timing["stream_text_mismatch"] == (
        "the deltas of output 0 add up to 5 characters, the final body's text has 7")


def test_caller_latency_includes_backoff_from_ts_and_is_labelled_without_it(
        tmp_path: Path) -> None:
    body = {"model": "m", "input": "retry me"}
    err = {"error": {"message": "slow down", "type": "rate_limit_error", "code": "rate"}}
    limits = {"retry-after": "3", "x-ratelimit-remaining-requests": "0",
              "x-ratelimit-reset-requests": "3s"}
    with_ts = write(tmp_path / "ts.jsonl", [
        req(body, ts=1000.0), res(err, elapsed=40, status_code=429, headers=limits),
        req(body, ts=1003.05), res(response("resp_1", 5, 5), elapsed=37)])
    [t] = analyze(str(with_ts)).turns
    assert t.caller_elapsed_ms == 77  # the old figure: the attempts' own times only
    assert (t.timing["caller_latency_ms"], t.timing["caller_latency_basis"]) == (3087, "ts")
    assert t.timing["backoff_ms"] == 3010
    assert t.attempts[0]["limits"] == limits and t.attempts[1]["limits"] is None
    no_ts = write(tmp_path / "nots.jsonl", [
        req(body), res(err, elapsed=40, status_code=429),
        req(body), res(response("resp_1", 5, 5), elapsed=37)])
    [u] = analyze(str(no_ts)).turns
    assert (u.timing["caller_latency_ms"], u.timing["caller_latency_basis"]) == (
        77, "elapsed_sum_no_ts")
    assert u.timing["backoff_ms"] is None


def test_totals_count_a_retried_turn_by_its_backoff_as_caller_latency_only(
        tmp_path: Path) -> None:
    """The capture's latency counts a retried turn's attempts' own times (77 ms); its
    caller latency the backoff its ts measured (3087 ms): the two totals differ only there
    (Totals keeps the caller latencies as its own with those turns swapped in)."""
    body = {"model": "m", "input": "retry me"}
    err = {"error": {"message": "slow down", "type": "rate_limit_error", "code": "rate"}}
    p = write(tmp_path / "ts.jsonl", [
        req(body, ts=1000.0), res(err, elapsed=40, status_code=429),
        req(body, ts=1003.05), res(response("resp_1", 5, 5), elapsed=37),
        req({"model": "m", "input": "next"}, ts=1010.0),
        res(response("resp_2", 5, 5), elapsed=100)])
    totals = analyze(str(p)).totals
    assert (totals["latency_ms"]["p50"], totals["caller_latency_ms"]["p50"]) == (88.5, 1593.5)
    assert (totals["latency_ms"]["without"]["p95"],
            totals["caller_latency_ms"]["without"]["p95"]) == (98.8, 2937.7)
    assert totals["caller_latency_ms"]["with_hosted_tools"]["p50"] is None


def test_a_capture_without_timings_reads_as_before_with_the_new_figures_null(
        tmp_path: Path, capsys: Any) -> None:
    p = write(tmp_path / "c.jsonl", [req({"model": "m", "input": "hi"}),
                                     res(response("resp_1", 10, 4), elapsed=None)])
    assert main(["report", str(p), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    timing = doc["turns"][0]["timing"]
    assert set(timing.values()) == {None}
    assert doc["totals"]["ttft_ms"]["p50"] is None and doc["totals"]["ttft_ms"]["turns"] == 0
    assert doc["totals"]["caller_latency_ms"]["p50"] is None


def test_percentiles_split_by_hosted_tools_in_json_text_and_markdown(
        tmp_path: Path, capsys: Any) -> None:
    fs = {"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["q"],
          "results": None}
    records: list[Any] = []
    for n, ms in enumerate((100, 200, 300, 400), 1):
        output = [fs, message("ok")] if n % 2 == 0 else [message("ok")]
        records += [req({"model": "m", "input": f"q{n}"}),
                    res(response(f"resp_{n}", 10, 2, output=output), elapsed=ms)]
    p = write(tmp_path / "c.jsonl", records)
    main(["report", str(p), "--format", "json"])
    lat = json.loads(capsys.readouterr().out)["totals"]["caller_latency_ms"]
    assert (lat["with_hosted_tools"], lat["without"]) == (
        {"p50": 300.0, "p95": 390.0}, {"p50": 200.0, "p95": 290.0})
    main(["report", str(p), "--width", "200"])
    text = capsys.readouterr().out
    assert ("caller latency (backoff included): p50 250 / p95 385 ms · with hosted tools "
            "p50 300 / p95 390 ms · without p50 200 / p95 290 ms") in text
    assert "time to first token: — (no stream arrival times in the capture)" in text
    main(["report", str(p), "--format", "markdown"])
    assert "- caller latency (backoff included): p50 250" in capsys.readouterr().out


def test_sse_events_know_where_their_frame_ended_lf_and_crlf() -> None:
    raw = b'data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\ndata: {"c"'
    assert located_events(raw) == [({"a": 1}, 15), ({"b": 2}, 30)]
    crlf = raw.replace(b"\n", b"\r\n")
    assert located_events(crlf) == [({"a": 1}, 17), ({"b": 2}, 34)]
    assert parse_events(crlf) == [{"a": 1}, {"b": 2}]


def test_the_timing_dict_names_every_field_in_order() -> None:
    """TurnTiming.to_dict writes its keys out: they are the fields, in order, each with
    its value (and the stream's counts a copy)."""
    values = list(range(len(TurnTiming._fields)))
    values[TurnTiming._fields.index("stream_events_by_type")] = {"response.created": 1}
    timing = TurnTiming(*values)
    d = timing.to_dict()
    assert list(d) == list(TurnTiming._fields)
    assert list(d.values()) == values
    assert d["stream_events_by_type"] is not timing.stream_events_by_type
    assert TurnTiming().to_dict() == dict.fromkeys(TurnTiming._fields)
