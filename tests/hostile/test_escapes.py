"""Nothing from a capture, a provider or a file name reaches the terminal as control."""

from __future__ import annotations

import xml.dom.minidom
from pathlib import Path

import orjson
import pytest

from traceview.safety.sanitise import visible
from traceview.sim import SimServer

from .corpus import (
    ESCAPES,
    FORBIDDEN,
    assert_no_traceback,
    escape_capture,
    forbidden_in,
    traceview,
    write_jsonl,
)


@pytest.mark.parametrize("char", sorted(FORBIDDEN - {"\t"}))
def test_visible_makes_every_control_and_format_character_visible(char: str) -> None:
    out = visible(f"a{char}b", multiline=True)
    assert char not in out
    assert out.startswith("a") and out.endswith("b")


@pytest.mark.parametrize("name", list(ESCAPES))
def test_reports_and_stderr_hold_no_control(name: str, tmp_path: Path) -> None:
    payload = ESCAPES[name]
    cap = write_jsonl(tmp_path / f"cap{payload.replace('/', '_').replace(chr(0), '')}.jsonl",
                      escape_capture(payload))
    for fmt in ("text", "markdown", "json"):
        out = traceview("report", str(cap), "--format", fmt, "--width", "200")
        assert_no_traceback(out)
        assert out.returncode in (0, 1), out.stderr
        assert not forbidden_in(out.stdout), (fmt, forbidden_in(out.stdout))
        assert not forbidden_in(out.stderr), (fmt, forbidden_in(out.stderr))
        if fmt == "json":
            orjson.loads(out.stdout)  # still valid JSON
        if name == "rich_markup" and fmt != "json":
            assert b"[bold red]pwned[/]" in out.stdout  # literal, never applied


def test_diff_stderr_does_not_echo_a_conversation_id_raw(tmp_path: Path) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", escape_capture(ESCAPES["osc52_clipboard"]))
    wanted = "conv_\x1b]2;owned\x07\u202e"
    for cmd in (["diff", str(cap), "--items", str(cap)], ["fetch", str(cap), "-o",
                                                           str(tmp_path / "s.json")]):
        out = traceview(*cmd, "--conversation", wanted, "--base-url", "http://127.0.0.1:9",
                        "--max-retries", "0", "--timeout", "2", env={"OPENAI_API_KEY": "sk-x"})
        assert_no_traceback(out)
        assert out.returncode == 2
        assert not forbidden_in(out.stderr), forbidden_in(out.stderr)


def test_provider_error_body_reaches_stderr_made_visible(tmp_path: Path) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", [
        {"dir": "req", "body": {"model": "m", "conversation": "conv_x", "input": "hi"}},
        {"dir": "res", "body": {"object": "response", "id": "resp_1", "status": "completed",
                                "output": []}}])
    wanted = "conv_" + "\x1b]52;c;cHduZWQ=\x07" + "\u2066"
    with SimServer() as sim:
        out = traceview("fetch", str(cap), "-o", str(tmp_path / "s.json"), "--conversation",
                        wanted, "--base-url", sim.base_url, "--max-retries", "0",
                        env={"OPENAI_API_KEY": "sk-sim-test-000000000000"})
    assert_no_traceback(out)
    assert out.returncode == 2
    assert not forbidden_in(out.stderr), forbidden_in(out.stderr)


def test_file_name_with_escape_is_made_visible(tmp_path: Path) -> None:
    cap = write_jsonl(tmp_path / "evil\x1b]2;title\x07\u202e.jsonl", escape_capture("x"))
    for fmt in ("text", "markdown"):
        out = traceview("report", str(cap), "--format", fmt)
        assert not forbidden_in(out.stdout)
        assert b"evil\\x1b]2;title\\x07" in out.stdout


def test_screenshot_svg_is_valid_xml_whatever_the_capture_holds(tmp_path: Path) -> None:
    records = [r for p in ESCAPES.values() for r in escape_capture(p)]
    cap = write_jsonl(tmp_path / "all.jsonl", records)
    for view in ("turns", "detail", "problems"):
        svg = tmp_path / f"{view}.svg"
        out = traceview("screenshot", str(cap), "-o", str(svg), "--view", view, "--turn", "1")
        assert_no_traceback(out)
        assert out.returncode in (0, 1), out.stderr
        text = svg.read_text(encoding="utf-8")
        xml.dom.minidom.parseString(text.encode())  # raises on a control byte
        assert not forbidden_in(text), (view, forbidden_in(text))
