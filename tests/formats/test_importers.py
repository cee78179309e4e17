"""Batch files, OTLP GenAI spans, and files traceview does not import: one clear answer each."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.analysis.options import Options
from traceview.analysis.session import analyze
from traceview.cli import main

FIXTURES = Path(__file__).parent.parent / "fixtures" / "formats"


def _report(*paths: Path, fmt: str | None = None) -> dict:
    return analyze([str(p) for p in paths], Options(from_format=fmt)).to_report()


def test_batch_input_and_output_pair_by_custom_id():
    r = _report(FIXTURES / "batch_input.jsonl", FIXTURES / "batch_output.jsonl")
    assert r["problems"] == []
    turns = r["turns"]
    # three requests, answered out of order in the output file, each paired with its own
    assert [t["user_text"] for t in turns] == [
        "Is water damage from a washing machine covered?",
        "What is the excess for escape of water?",
        "Summarise claim HM-2026-004417."]
    assert [t["input_tokens"] for t in turns] == [19, 2210, None]
    assert [t["status"] for t in turns] == ["completed", "completed", "failed"]
    assert turns[1]["hosted_calls"][0]["evidence"] == "missing"
    assert all(t["elapsed_ms"] is None for t in turns)  # a batch has no wire timing: not 0
    assert [t["api"] for t in turns] == ["responses", "responses", "chat"]
    assert "not in that format: elapsed time" in " ".join(turns[0]["notes"])
    assert [i["format"] for i in r["imports"]] == ["batch", "batch"]
    assert r["totals"]["input_tokens"] == 2229


def test_batch_output_alone_is_response_only_turns():
    r = _report(FIXTURES / "batch_output.jsonl")
    assert [t["input_tokens"] for t in r["turns"]] == [2210, 19]
    assert all("response_only" in t["markers"] for t in r["turns"])
    # the rate-limited line names no API without its request: kept as an exchange
    assert [e["status_code"] for e in r["exchanges"]] == [429]


def test_otlp_genai_spans_become_turns_that_say_what_they_cannot_carry():
    r = _report(FIXTURES / "otlp_genai.json")
    assert r["problems"] == []
    turns = r["turns"]
    assert [t["input_tokens"] for t in turns] == [1210, 6110, 42]
    assert [t["output_tokens"] for t in turns] == [380, 290, 7]
    assert [t["conversation"] for t in turns] == ["conv_otel42", "conv_otel42", None]
    assert [t["api"] for t in turns] == ["responses", "responses", "chat"]
    assert [t["elapsed_ms"] for t in turns] == [2104, 5812, 600]
    # numbers the spans do not hold are unknown, never zero
    assert all(t["request_bytes"] is None for t in turns)
    assert turns[0]["cached_tokens"] == 0 and turns[1]["cached_tokens"] is None
    assert turns[0]["user_text"] == "Is accidental damage covered for this?"
    assert turns[2]["user_text"] == "Summarise in one line."
    assert turns[2]["status"] == "failed"
    notes = " ".join(turns[1]["notes"])
    assert "request bytes" in notes and "hosted tool evidence" in notes
    assert "cached tokens (not recorded" in notes and "message content" in notes
    (imp,) = r["imports"]
    assert imp["provider_calls"] == 3 and imp["ignored"] == 2
    assert imp["ignored_kinds"] == {"execute_tool": 1, "invoke_agent": 1}


def test_otlp_json_lines_from_the_collector_file_exporter(tmp_path):
    """The collector's file exporter writes one export request per line, spans split up."""
    doc = json.loads((FIXTURES / "otlp_genai.json").read_text())
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    lines = []
    for part in (spans[:2], spans[2:]):
        one = json.loads(json.dumps(doc))
        one["resourceSpans"][0]["scopeSpans"][0]["spans"] = part
        lines.append(json.dumps(one))
    path = tmp_path / "spans.jsonl"
    path.write_text("\n".join(lines) + "\n")
    r = _report(path)
    assert [t["input_tokens"] for t in r["turns"]] == [1210, 6110, 42]
    assert r["imports"][0]["format"] == "otlp"


def test_the_checked_in_har_fixture_reads_bodies_streams_and_status():
    r = _report(FIXTURES / "mitmproxy.har")
    assert r["problems"] == []
    first, second = r["turns"]
    assert first["user_text"] == "My washing machine leaked. Am I covered?"
    assert second["stream_events"] and second["status"] == "completed"
    assert second["input_tokens"] > first["input_tokens"]
    assert r["imports"][0]["ignored"] == 2


@pytest.mark.parametrize(("name", "says"), [
    ("langfuse_export.json", "this looks like a Langfuse export, which is not supported"),
    ("array.json", "this is a JSON array of 2 objects (keys: answer, question)"),
])
def test_an_unimportable_file_is_one_problem_naming_what_it_looks_like(name, says):
    r = _report(FIXTURES / name)
    assert len(r["problems"]) == 1, r["problems"]
    assert r["problems"][0]["kind"] == "unsupported_format"
    assert says in r["problems"][0]["message"]
    assert r["turns"] == []


def test_a_pretty_printed_response_body_is_read_as_one_turn(tmp_path):
    path = tmp_path / "response.json"
    path.write_text(json.dumps({"id": "resp_1", "object": "response", "status": "completed",
                                "usage": {"input_tokens": 5, "output_tokens": 2}}, indent=2))
    r = _report(path)
    assert r["problems"] == [] and [t["input_tokens"] for t in r["turns"]] == [5]


def test_from_forces_a_format_and_says_when_the_file_is_another(tmp_path):
    r = _report(FIXTURES / "batch_input.jsonl", fmt="har")
    assert [p["kind"] for p in r["problems"]] == ["unsupported_format"]
    assert "--from har, but this is an OpenAI Batch file" in r["problems"][0]["message"]
    # --from capture reads a HAR as JSONL records: not a capture, said once (issue #14)
    raw = _report(FIXTURES / "mitmproxy.har", fmt="capture")
    assert raw["turns"] == [] and [p["kind"] for p in raw["problems"]] == ["not_a_capture"]


def test_report_command_detects_formats_and_exit_codes(capsys, tmp_path):
    assert main(["report", "--format", "json", str(FIXTURES / "otlp_genai.json")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["imports"][0]["format"] == "otlp"
    assert main(["report", str(FIXTURES / "langfuse_export.json")]) == 2  # not a capture
    assert "langfuse_export.json: this looks like a Langfuse export" in capsys.readouterr().err
    assert main(["report", "--from", "otlp", "--format", "json",
                 str(FIXTURES / "otlp_genai.json")]) == 0


def test_importing_never_modifies_the_file(tmp_path):
    path = tmp_path / "a.har"
    shutil.copy(FIXTURES / "mitmproxy.har", path)
    before = path.read_bytes()
    _report(path)
    assert path.read_bytes() == before


def test_har_entries_without_a_response_or_a_body_say_so(tmp_path):
    entry = {"startedDateTime": "2026-01-01T00:00:00.000Z", "time": 30,
             "request": {"method": "POST", "url": "https://api.openai.com/v1/responses",
                         "headers": [], "bodySize": 40, "postData": {
                             "mimeType": "application/json",
                             "text": '{"model":"gpt-4.1","input":"hi"}'}},
             "response": {"status": 200, "headers": [],
                          "content": {"size": 900, "mimeType": "application/json"}},
             "timings": {"send": 1, "wait": 29, "receive": 0}}
    aborted = {**entry, "response": {"status": 0, "headers": [], "content": {"size": 0},
                                     "_error": "net::ERR_CONNECTION_RESET"}}
    path = tmp_path / "devtools.har"
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": [entry, aborted]}}))
    r = _report(path)
    first, second = r["turns"]
    assert first["request_bytes"] == len('{"model":"gpt-4.1","input":"hi"}')
    assert first["elapsed_ms"] == 30 and first["input_tokens"] is None
    assert "response body (left out of the HAR" in " ".join(first["notes"])
    assert second["status"] == "failed" and "ERR_CONNECTION_RESET" in (second["error"] or "")


def test_a_failed_chat_span_keeps_its_error_text():
    r = _report(FIXTURES / "otlp_genai.json")
    assert "RateLimitError: 429" in (r["turns"][2]["error"] or "")


def test_text_report_says_what_was_imported_and_ignored(capsys):
    assert main(["report", "--width", "200", str(FIXTURES)]) == 1  # the two unimportable files
    # Lines wrap at the width, and where depends on how long the checkout's path is.
    out = " ".join(capsys.readouterr().out.split())
    assert "mitmproxy.har as har: 2 provider calls, 2 other entries ignored" in out
    assert "as otlp: 3 provider calls" in out and "cannot carry: cached tokens" in out
    assert "this looks like a Langfuse export" in out


def test_captures_with_a_long_or_cut_first_line_stay_captures(tmp_path):
    from traceview.capture.formats import sniff

    big = tmp_path / "big.jsonl"
    big.write_text(json.dumps({"dir": "req", "body": {"model": "m", "input": "x" * 200_000}})
                   + "\n" + json.dumps({"dir": "res", "body": {"object": "response"}}) + "\n")
    assert sniff(str(big)) == ("capture", None)
    cut = tmp_path / "cut.jsonl"
    cut.write_text('{"dir": "req", "body": {"input": "' + "x" * 300 + '\n{"dir": "res"}\n')
    assert sniff(str(cut)) == ("capture", None)  # damaged: the reader reports it per line


def test_openinference_llm_spans(tmp_path):
    def attr(k, v):
        return {"key": k, "value": {"intValue": str(v)} if isinstance(v, int)
                else {"stringValue": v}}

    attrs = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4.1-mini",
             "llm.token_count.prompt": 321, "llm.token_count.completion": 12,
             "llm.token_count.prompt_details.cache_read": 256,
             "llm.input_messages.0.message.role": "system",
             "llm.input_messages.0.message.content": "Be brief.",
             "llm.input_messages.1.message.role": "user",
             "llm.input_messages.1.message.content": "What is covered?",
             "llm.output_messages.0.message.role": "assistant",
             "llm.output_messages.0.message.content": "Section 3.",
             "session.id": "conv_oi1"}
    span = {"traceId": "t", "spanId": "s", "name": "ChatCompletion",
            "startTimeUnixNano": "1767225600000000000", "endTimeUnixNano": "1767225600450000000",
            "attributes": [attr(k, v) for k, v in attrs.items()], "status": {}}
    path = tmp_path / "oi.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]},
                               indent=1))
    (turn,) = _report(path)["turns"]
    assert (turn["input_tokens"], turn["cached_tokens"], turn["output_tokens"]) == (321, 256, 12)
    assert turn["user_text"] == "What is covered?" and turn["elapsed_ms"] == 450
    assert turn["conversation"] == "conv_oi1"


@pytest.mark.parametrize("first", [
    b"[1,2,3]",
    b'{"custom_id":"x","method":"POST","url":"/v1/responses","body":{"model":"m"}}',
    b'{"resourceSpans":[]}',
    b'{"log":{"entries":[]}}',
])
def test_a_capture_whose_first_line_is_odd_is_still_read_whole(tmp_path, capsys, first):
    """Found by an attack pass: the format was judged by the first line alone, so one odd
    line (an array, another format's record) before a capture's records refused the file
    (exit 2), or read it as a Batch file (1 turn, exit 0, the 4 real turns 'ignored'), as
    OTLP (0 turns) or as a HAR ('trailing garbage'). Records that follow make it a
    capture, and the odd line is that line's problem."""
    path = tmp_path / "odd_first.jsonl"
    path.write_bytes(first + b"\n" + (SAMPLES / "claims.jsonl").read_bytes())
    assert main(["report", str(path), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["turns"]) == 4 and doc["imports"] == []
    assert [(p["line"], p["kind"]) for p in doc["problems"]] == [(1, "unknown_record")]


def test_an_odd_first_line_before_a_record_longer_than_the_head(tmp_path, capsys):
    """Found by a second attack pass: the records after an odd first line were looked for
    in the head's 64 KiB only, so one note line before a 70 kB record refused the capture
    ('a JSON document (keys: note), not a capture; nothing read'). The second line is read
    whole when the head holds none."""
    lines = (SAMPLES / "claims.jsonl").read_bytes().splitlines(keepends=True)
    first = json.loads(lines[0])
    first.setdefault("body", {})["padding"] = "x" * 70_000
    path = tmp_path / "odd_big.jsonl"
    path.write_bytes(b'{"note":"exported by tool X"}\n' + json.dumps(first).encode() + b"\n"
                     + b"".join(lines[1:]))
    assert main(["report", str(path), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["turns"]) == 4
    assert [(p["line"], p["kind"]) for p in doc["problems"]] == [(1, "unknown_record")]
