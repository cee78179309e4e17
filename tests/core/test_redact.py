"""Secrets in a capture never reach output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from traceview.capture.redact import redact, redact_text

ROOT = Path(__file__).parent.parent.parent


def test_key_shapes_and_secret_fields_are_masked() -> None:
    body = {"metadata": {"x-api-key": "sk-proj-FAKEKEY1234567890abcdef", "note": "fine"},
            "input": "use Authorization: Bearer abcdefghijklmnop and sk-live_0123456789abcdef",
            "headers": [{"Authorization": "Bearer zzzzzzzzzzzz"}], "api_key": ""}
    out = redact(body)
    flat = str(out)
    assert "FAKEKEY" not in flat and "abcdefghijklmnop" not in flat
    assert "0123456789abcdef" not in flat and "zzzzzzzzzzzz" not in flat
    assert out["metadata"]["note"] == "fine"
    assert out["api_key"] == ""  # an empty value is not a secret
    assert body["metadata"]["x-api-key"].startswith("sk-proj")  # the input is not modified


def test_ordinary_text_is_untouched() -> None:
    text = "The key point: ask about the risk-based excess and my desk-top notes."
    assert redact_text(text) == text


def test_report_of_hostile_sample_holds_no_key() -> None:
    for fmt in ("text", "markdown", "json"):
        out = subprocess.run([sys.executable, "-m", "traceview", "report",
                              "sample_traces/hostile.jsonl", "--format", fmt],
                             capture_output=True, cwd=ROOT, check=False)
        assert out.returncode in (0, 1)
        assert b"FAKEKEY" not in out.stdout and b"sk-FAKE" not in out.stdout


def test_report_shows_markup_and_escapes_literally() -> None:
    for fmt in ("text", "markdown"):
        out = subprocess.run([sys.executable, "-m", "traceview", "report",
                              "sample_traces/hostile.jsonl", "--format", fmt, "--width", "200"],
                             capture_output=True, cwd=ROOT, check=False)
        assert not any(c in out.stdout for c in (b"\x1b", b"\x07", b"\x00", b"\xe2\x80\xae"))
    assert b"[bold red]pwned[/]" in out.stdout  # markup printed as text, never applied
