"""`diff --items` prints a snapshot's host and warnings through the shared boundary.

diff_output.py had its own escaper: it never called the redactor, so a key in a snapshot's
`host` or `warnings` was printed whole in text and markdown, and its control set was
smaller than the sanitiser's (zero-width, bidi marks, line separators, the BOM, the
Arabic letter mark and tag characters passed raw).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile.corpus import assert_no_traceback, traceview

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX1234"
INVISIBLE = "\u200b\u200e\u200f\u2028\ufeff\u061c\U000e0041"
SHOWN = "\\u200b\\u200e\\u200f\\u2028\\ufeff\\u061c\\U000e0041"


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    doc = json.loads((ROOT / "sample_traces" / "claims.snapshot.json").read_text())
    doc["host"] = f"evil {KEY}"
    doc["warnings"] = [f"warn {KEY} {INVISIBLE}\nspoofed"]
    path = tmp_path / "k.json"
    path.write_text(json.dumps(doc))
    return path


def _diff(snapshot: Path, fmt: str) -> str:
    out = traceview("diff", str(ROOT / "sample_traces" / "claims.jsonl"), "--items",
                    str(snapshot), "--format", fmt)
    assert_no_traceback(out)
    text = out.stdout.decode("utf-8")
    assert KEY not in text and "ABCDEFGHIJKLMNOP" not in text, fmt
    for ch in INVISIBLE:
        assert ch not in text, (fmt, ch)
    return text


def test_text_masks_the_host_and_shows_a_warning_on_one_line(snapshot: Path) -> None:
    text = _diff(snapshot, "text")
    assert " · host evil sk-[redacted] · " in " ".join(text.split(" \n"))  # Rich wraps at 100
    assert f"note: warn sk-[redacted] {SHOWN}\\nspoofed\n" in text


def test_markdown_masks_the_host_and_warnings(snapshot: Path) -> None:
    text = _diff(snapshot, "markdown")
    assert " · host evil sk-[redacted] · " in text
    shown = SHOWN.replace("\\", "\\\\")
    assert f"\n> note: warn sk-[redacted] {shown}\\\\nspoofed\n" in text


def test_json_masks_the_host_and_warnings(snapshot: Path) -> None:
    doc = json.loads(_diff(snapshot, "json"))
    assert doc["host"] == "evil sk-[redacted]"
    assert doc["warnings"][0].startswith("warn sk-[redacted] ")
