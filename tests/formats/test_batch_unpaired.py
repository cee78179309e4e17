"""Batch input and output files that do not belong together (another batch's output, a
request whose answer is only in the error file): each unpaired line is named by its file and
line, not shown as if the files matched (exit 0, no problem)."""

from __future__ import annotations

from tests.formats.test_batch_damage import _answer, _report, _request, _write
from traceview.cli import main


def test_answers_and_requests_with_no_partner_are_named(tmp_path):
    inp = _write(tmp_path / "in.jsonl", [_request(0), _request(1), _request(2)])
    out = _write(tmp_path / "out.jsonl", [_answer(7), _answer(0), _answer(8)])
    r = _report(inp, out)
    said = [(p["source"], p["line"], p["message"]) for p in r["problems"]
            if p["kind"] == "damaged_import"]
    assert said == [
        (str(inp), 2, f"{inp}: line 2 requests custom_id 'r1', which no output file given "
                      "answers"),
        (str(inp), 3, f"{inp}: line 3 requests custom_id 'r2', which no output file given "
                      "answers"),
        (str(out), 1, f"{out}: line 1 answers custom_id 'r7', which no input file given "
                      "requests; shown alone"),
        (str(out), 3, f"{out}: line 3 answers custom_id 'r8', which no input file given "
                      "requests; shown alone"),
    ]
    assert [t["response_id"] for t in r["turns"]] == [
        "resp_0_10", None, None, "resp_7_10", "resp_8_10"]


def test_a_mismatched_pair_exits_1_and_names_at_most_ten_lines_a_file(tmp_path, capsys):
    inp = _write(tmp_path / "in.jsonl", [_request(i) for i in range(30)])
    out = _write(tmp_path / "out.jsonl", [_answer(100 + i) for i in range(30)])
    assert main(["report", "--format", "json", str(inp), str(out)]) == 1
    capsys.readouterr()
    said = [p["message"] for p in _report(inp, out)["problems"] if p["source"] == str(out)]
    assert len(said) == 11
    assert said[-1] == (f"{out}: 20 more lines from line 11 on answer custom_ids no input "
                        "file given requests; shown alone")


def test_matching_files_say_nothing(tmp_path):
    inp = _write(tmp_path / "in.jsonl", [_request(0), _request(1)])
    out = _write(tmp_path / "out.jsonl", [_answer(1), _answer(0)])
    assert _report(inp, out)["problems"] == []


def test_a_response_of_the_wrong_type_is_named_at_its_line(tmp_path):
    """Shown as an answer of unknown status with no problem (exit 0), the line looked
    fine; it is named, alone or joined."""
    inp = _write(tmp_path / "in.jsonl", [_request(0), _request(1)])
    out = _write(tmp_path / "out.jsonl", [{**_answer(0), "response": "oops"}, _answer(1)])
    named = (str(out), 1, f"{out}: line 1's response is not a JSON object; its numbers are "
                          "unknown")
    joined = [(p["source"], p["line"], p["message"]) for p in _report(inp, out)["problems"]]
    assert joined == [named]
    alone = [(p["source"], p["line"], p["message"]) for p in _report(out)["problems"]]
    assert named in alone
