"""Headless commands tell the truth: refusals instead of pictures of failures, one line
instead of tracebacks, quiet on a closed pipe, and no spinning without a terminal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.fixtures_shared import ROOT

from .corpus import assert_no_traceback, traceview, write_jsonl

GOOD = [{"dir": "req", "body": {"model": "gpt-4o", "input": "hi"}},
        {"dir": "res", "body": {"object": "response", "id": "resp_1", "status": "completed",
                                "output": [], "usage": {"input_tokens": 7,
                                                        "output_tokens": 1}}}]


@pytest.mark.parametrize("case", ["failed_load", "turn_99", "diff_without_copy"])
def test_screenshot_refuses_to_picture_a_failure(case: str, tmp_path: Path) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", GOOD)
    svg = tmp_path / "out.svg"
    args = {"failed_load": [str(tmp_path / "empty")],
            "turn_99": [str(cap), "--turn", "99"],
            "diff_without_copy": [str(cap), "--view", "diff"]}[case]
    (tmp_path / "empty").mkdir()
    out = traceview("screenshot", *args, "-o", str(svg), env={"OPENAI_API_KEY": ""})
    assert_no_traceback(out)
    assert out.returncode == 2, out.stderr
    assert not svg.exists()
    assert out.stderr.strip()


def test_screenshot_to_an_unwritable_path_is_one_line(tmp_path: Path) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", GOOD)
    out = traceview("screenshot", str(cap), "-o", "/dev/null/x.svg")
    assert_no_traceback(out)
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_report_into_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    recs = []
    for i in range(4000):
        recs += [{"dir": "req", "body": {"model": "gpt-4o", "input": f"question {i}"}},
                 {"dir": "res", "body": {"object": "response", "id": f"resp_{i}",
                                         "status": "completed", "output": [],
                                         "usage": {"input_tokens": 7, "output_tokens": 1}}}]
    cap = write_jsonl(tmp_path / "big.jsonl", recs)
    for fmt in ("text", "markdown", "json"):
        proc = subprocess.Popen([sys.executable, "-m", "traceview", "report", str(cap),
                                 "--format", fmt], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=ROOT)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # `| head -1`
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 0, err
        assert err == b"", err


def test_inspector_without_a_terminal_exits_with_a_message(tmp_path: Path) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", GOOD)
    out = traceview(str(cap), timeout=30)
    assert_no_traceback(out)
    assert out.returncode == 2
    assert b"terminal" in out.stderr


@pytest.mark.parametrize(("table", "offending"), [
    ({"models": {"gpt-4o": {"input": "2.5", "output": 10}}}, b'"input"'),
    ({"models": {"gpt-4o": {"input": -1, "output": 10}}}, b'"input"'),
    ({"models": {"gpt-4o": [1, 2]}}, b"gpt-4o"),
    ({"models": {"gpt-4o": {"input": 1}}}, b'"output"'),
    ({"models": {}, "hosted_tools": {"web_search_call": {"per_call": "x"}}}, b"per_call"),
    ({"models": []}, b'"models"'),
])
def test_pricing_of_the_wrong_shape_is_refused_by_name(table: object, offending: bytes,
                                                       tmp_path: Path) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", GOOD)
    pricing = tmp_path / "prices.json"
    pricing.write_bytes(orjson.dumps(table))
    out = traceview("report", str(cap), "--pricing", str(pricing))
    assert_no_traceback(out)
    assert out.returncode == 2
    assert b"prices.json" in out.stderr and offending in out.stderr, out.stderr


def test_keymap_of_the_wrong_shape_is_refused_by_name(tmp_path: Path) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", GOOD)
    keymap = tmp_path / "keys.toml"
    keymap.write_text('[keys]\n"app.quit" = 5\n')
    out = subprocess.run(
        ["script", "-qec", f"{sys.executable} -m traceview {cap}", "/dev/null"],
        capture_output=True, timeout=60, cwd=ROOT, check=False,
        env={"PATH": "/usr/bin:/bin", "TRACEVIEW_KEYMAP": str(keymap), "TERM": "xterm",
             "PYTHONPATH": str(ROOT)}) if Path("/usr/bin/script").exists() else None
    if out is None:
        pytest.skip("script(1) is not installed")
    assert b"keys.toml" in out.stdout and b"app.quit" in out.stdout, out.stdout
