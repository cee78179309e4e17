"""`traceview context` is an output like the report: no control, bidi or key leaves it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from traceview.cli import main

ESC = "\u001b]52;c;cHJvYmU=\u0007\u001b[2J\u202e"
KEY = "sk-proj-" + "A" * 40


def _capture(tmp_path: Path) -> Path:
    req = {"dir": "req", "body": {
        "model": "gpt-4o" + ESC, "instructions": f"be {KEY} {ESC}",
        "input": [{"role": "user", "content": f"hi {KEY} {ESC}"}],
        "tools": [{"type": "function", "name": "t" + ESC, "description": KEY,
                   "parameters": {"type": "object", "properties": {}}}]}}
    res = {"dir": "res", "elapsed_ms": 5, "body": {
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-4o" + ESC,
        "output": [{"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": "ok"}]}],
        "usage": {"input_tokens": 30, "output_tokens": 1}}}
    path = tmp_path / "probe.jsonl"
    path.write_text(json.dumps(req) + "\n" + json.dumps(res) + "\n")
    return path


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_context_lets_no_escape_bidi_or_key_out(fmt: str, tmp_path: Path,
                                                capsysbinary: pytest.CaptureFixture[bytes]):
    assert main(["context", str(_capture(tmp_path)), "--turn", "1", "--format", fmt]) == 0
    out = capsysbinary.readouterr().out
    assert b"\x1b" not in out and b"\x07" not in out
    assert "\u202e".encode() not in out
    assert KEY.encode() not in out
