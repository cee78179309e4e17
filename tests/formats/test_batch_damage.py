"""A damaged or doubled Batch file: every line that cannot be used is named by its file
and line, and every answer that can be read is shown (issue #9's rule for importers)."""

from __future__ import annotations

import json
from pathlib import Path

from traceview.analysis.options import Options
from traceview.analysis.session import analyze


def _request(i: int) -> dict:
    return {"custom_id": f"r{i}", "method": "POST", "url": "/v1/responses",
            "body": {"model": "gpt-4.1", "input": f"question {i}"}}


def _answer(i: int, tokens: int = 10) -> dict:
    return {"id": f"batch_req_{i}", "custom_id": f"r{i}", "error": None, "response": {
        "status_code": 200, "request_id": f"req_{i}", "body": {
            "id": f"resp_{i}_{tokens}", "object": "response", "status": "completed",
            "model": "gpt-4.1", "usage": {"input_tokens": tokens, "output_tokens": 2},
            "output": [{"type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": "ok"}]}]}}}


def _write(path: Path, lines: list) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n"
                            for x in lines))
    return path


def _report(*paths: Path) -> dict:
    return analyze([str(p) for p in paths], Options()).to_report()


def test_a_malformed_batch_line_is_named_by_file_and_line(tmp_path):
    inp = _write(tmp_path / "in.jsonl", [_request(0), '{"custom_id": broken', _request(1)])
    out = _write(tmp_path / "out.jsonl", [_answer(0), _answer(1), "[1, 2"])
    r = _report(inp, out)
    said = [(p["source"], p["line"], p["message"]) for p in r["problems"]
            if p["kind"] == "damaged_import"]
    assert said == [(str(inp), 2, f"{inp}: line 2 is not JSON; skipped"),
                    (str(out), 3, f"{out}: line 3 is not JSON; skipped")]
    assert [t["response_id"] for t in r["turns"]] == ["resp_0_10", "resp_1_10"]
    # each file's summary counts its own ignored lines, not the other file's
    assert [(i["source"], i["ignored"]) for i in r["imports"]] == [(str(inp), 1), (str(out), 1)]
    alone = _report(inp)  # one file alone names its lines too
    assert [p["message"] for p in alone["problems"] if p["kind"] == "damaged_import"] == [
        f"{inp}: line 2 is not JSON; skipped"]


def test_many_malformed_lines_are_named_up_to_a_limit(tmp_path):
    inp = _write(tmp_path / "in.jsonl", [_request(0)] + ["nope"] * 30)
    said = [p["message"] for p in _report(inp)["problems"] if p["kind"] == "damaged_import"]
    assert said[:2] == [f"{inp}: line 2 is not JSON; skipped",
                        f"{inp}: line 3 is not JSON; skipped"]
    assert said[-1] == f"{inp}: 20 more lines from line 12 on are malformed; skipped"
    assert len(said) == 11


def test_an_answer_given_twice_is_shown_and_named_not_dropped(tmp_path):
    """The first answer pairs with its request; the second, with no request left for it,
    is a response without one, shown as such, and the repeated custom_id is named."""
    inp = _write(tmp_path / "in.jsonl", [_request(0), _request(1)])
    out = _write(tmp_path / "out.jsonl", [_answer(0, 10), _answer(1), _answer(0, 99)])
    r = _report(inp, out)
    turns = r["turns"]
    assert [(t["response_id"], t["input_tokens"], t["markers"]) for t in turns] == [
        ("resp_0_10", 10, []), ("resp_1_10", 10, []), ("resp_0_99", 99, ["response_only"])]
    said = [p["message"] for p in r["problems"] if p["kind"] == "damaged_import"]
    assert said == [f"{out}: line 3 answers custom_id 'r0' again (first on line 1); an id's "
                    "requests and answers are paired in order, an answer left over shown alone"]


def test_an_id_requested_twice_pairs_its_requests_and_answers_in_order(tmp_path):
    inp = _write(tmp_path / "in.jsonl", [_request(0), _request(1), _request(0)])
    out = _write(tmp_path / "out.jsonl", [_answer(0, 10), _answer(1), _answer(0, 99)])
    r = _report(inp, out)
    assert [(t["line"], t["response_id"], t["markers"]) for t in r["turns"]] == [
        (1, "resp_0_10", []), (3, "resp_1_10", []), (5, "resp_0_99", [])]
    said = [(p["source"], p["line"], p["message"].split(";")[0]) for p in r["problems"]
            if p["kind"] == "damaged_import"]
    assert said == [(str(inp), 3, f"{inp}: line 3 requests custom_id 'r0' again (first on "
                                  "line 1)"),
                    (str(out), 3, f"{out}: line 3 answers custom_id 'r0' again (first on "
                                  "line 1)")]


def test_an_imported_turns_note_names_the_file_its_record_came_from(tmp_path):
    inp = _write(tmp_path / "in.jsonl", [_request(0)])
    out = _write(tmp_path / "out.jsonl", [_answer(5), _answer(0)])
    notes = _report(inp, out)["turns"][0]["notes"]
    assert "imported from in.jsonl (an OpenAI Batch file), line 1" in notes
    assert any(n.startswith("imported from out.jsonl (an OpenAI Batch file), line 2; not in "
                            "that format: elapsed time") for n in notes)


def test_a_byte_order_mark_before_line_1_is_not_a_damaged_line(tmp_path):
    """Windows tools write one (PowerShell's UTF8 encoding); a capture or another import
    reads past it, and so does a Batch file, input or output, alone or joined."""
    inp = _write(tmp_path / "in.jsonl", [_request(0), _request(1)])
    out = _write(tmp_path / "out.jsonl", [_answer(1), _answer(0)])
    for path in (inp, out):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    r = _report(inp, out)
    assert [p["message"] for p in r["problems"]] == []
    assert [t["response_id"] for t in r["turns"]] == ["resp_0_10", "resp_1_10"]
    assert len(_report(inp)["turns"]) == 2


def test_a_files_problems_come_in_its_line_order(tmp_path):
    inp = _write(tmp_path / "in.jsonl", [_request(0), _request(0), "{bad"])
    out = _write(tmp_path / "out.jsonl", [_answer(0)])
    lines = [p["line"] for p in _report(inp, out)["problems"] if p["source"] == str(inp)]
    assert lines == [2, 3]
