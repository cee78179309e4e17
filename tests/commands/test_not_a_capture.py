"""A file that is not a capture (a package.json, a JSON array, a text file) given to
`report`: one line naming the file and why, exit 2, nothing on stdout, no traceback —
not an empty report with a problem in it."""

from __future__ import annotations

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main

TAIL = "not a capture; nothing read (traceview reads JSONL records, HAR, OpenAI Batch and " \
       "OTLP JSON files)"


@pytest.mark.parametrize(("name", "text", "why"), [
    ("package.json", '{"name": "x", "version": "1.0.0", "dependencies": {"a": "^1"}}\n',
     f"this is a JSON document (keys: dependencies, name, version), {TAIL}"),
    ("pretty.json", '{\n  "name": "x",\n  "version": "1.0.0"\n}\n',
     f"this is a JSON document (keys: name, version), {TAIL}"),
    ("numbers.json", "[1, 2, 3]\n", f"this is a JSON array of 3 values, {TAIL}"),
    ("notes.txt", "hello\nworld\n", "not a capture: none of its first 2 lines is a JSON "
     "object (line 1: 'hello'); expected one JSON record per line"),
])
def test_report_on_a_file_that_is_not_a_capture_is_one_line_and_exit_2(
        tmp_path, capsys, name, text, why):
    path = tmp_path / name
    path.write_text(text)
    assert main(["report", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == f"traceview: {path}: {why}\n"


def test_beside_a_capture_the_foreign_file_is_a_problem_and_the_capture_is_reported(
        tmp_path, capsys):
    path = tmp_path / "package.json"
    path.write_text('{"name": "x"}\n')
    assert main(["report", str(path), str(SAMPLES / "claims.jsonl"), "--width", "200"]) == 1
    out = capsys.readouterr()
    assert "4 turns" in out.out and "package.json:1 unsupported_format" in out.out
    assert "1 problem while reading" in out.err


def test_an_empty_file_is_still_an_empty_capture(tmp_path, capsys):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    assert main(["report", str(path)]) == 0


def test_screenshot_beside_a_capture_exits_as_report_does_and_still_writes_the_picture(
        tmp_path, capsys):
    """A capture and a file that is not one: `report` exits 1 (done, with problems); so
    does `screenshot`, having written the picture of what was read (it exited 0)."""
    path = tmp_path / "package.json"
    path.write_text('{"name": "x"}\n')
    claims = str(SAMPLES / "claims.jsonl")
    assert main(["report", str(path), claims]) == 1
    capsys.readouterr()
    out = tmp_path / "both.svg"
    assert main(["screenshot", str(path), claims, "-o", str(out)]) == 1
    said = capsys.readouterr()
    assert said.out == f"wrote {out}\n"
    assert said.err == ("traceview screenshot: 1 problem while reading; everything readable "
                        "is shown\n")
    assert "conv_fb7345419a" in out.read_text(encoding="utf-8")


def test_screenshot_of_a_clean_capture_still_exits_0(tmp_path, capsys):
    out = tmp_path / "claims.svg"
    assert main(["screenshot", str(SAMPLES / "claims.jsonl"), "-o", str(out)]) == 0
    assert capsys.readouterr().err == "" and out.exists()


@pytest.mark.parametrize("argv", [["context", "--turn", "1"], ["objects"], ["fidelity"],
                                  ["diff", "--items", "x.json"]])
def test_every_command_on_a_file_that_is_not_a_capture_says_so_and_exits_2(
        tmp_path, capsys, argv):
    """Not "no turn 1 (the capture has 0 turns)", a silent exit 1, or a conversation
    missing: the file is named with why, as `report` names it."""
    path = tmp_path / "notes.txt"
    path.write_text("hello\nworld\n")
    assert main([*argv, str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (f"traceview {argv[0]}: {path}: not a capture: none of its first 2 "
                       "lines is a JSON object (line 1: 'hello'); expected one JSON record "
                       "per line\n")


def test_diff_names_a_missing_capture_once(tmp_path, capsys):
    missing = tmp_path / "nope.jsonl"
    assert main(["diff", str(missing), "--items", "x.json"]) == 2
    assert capsys.readouterr().err == f"traceview diff: {missing}: no such file or directory\n"
