"""The reports of hostile captures, byte for byte, pinned as traceview 6808ef7 wrote them.

tests/report/test_golden_report.py pins the reports of ordinary captures; the performance work
of issue #11 also rewrote what redaction, safety and the column widening do on hostile input
(keys of every shape, terminal escapes, values crossing every column width). A fast path that
masks a key differently, or renders an escape differently, changes these bytes even when no key
leaks. Each capture is reported in JSON (with --explain), Markdown and text, in one process and
with facts made by workers over small chunks.

A digest that changes means a hostile report changed: if that was meant, say why in the commit
and re-pin with `TRACEVIEW_GOLDEN_UPDATE=1 pytest -p no:xdist tests/hostile/test_golden_hostile.py`.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import orjson
import pytest

from traceview.cli import main

from . import widening_capture
from .corpus import ESCAPES, KEY_SHAPES, escape_capture, secret_capture, write_jsonl

PINNED = Path(__file__).with_name("golden_hostile.json")
GOLDEN: dict[str, list[str]] = json.loads(PINNED.read_text()) if PINNED.exists() else {}
UPDATE = os.environ.get("TRACEVIEW_GOLDEN_UPDATE") == "1"


def _keys(path: Path) -> Path:
    records = []
    for _, text, _ in KEY_SHAPES:
        records += secret_capture(text)
    return write_jsonl(path, records)


def _escapes(path: Path) -> Path:
    records = []
    for payload in ESCAPES.values():
        records += escape_capture(payload)
    return write_jsonl(path, records)


def _bearer(path: Path) -> Path:
    """Auth headers quoted in user text and in provider-stored text (a hosted call's query):
    masked once when the capture is read, and again over the written report."""
    lines = []
    texts = ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abcdef123456",
             "AUTHORIZATION: BEARER eyJhbGciOiJIUzI1NiJ9abcdef123456",
             "headers={'Authorization': 'Bearer sk-Lk3Mn4Bv5Cx6Za7Sd8Fg9Hj0Qw1Er2Ty3'}")
    for k, text in enumerate(texts):
        lines.append({"dir": "req", "body": {"model": "gpt-4o", "input": text, "store": True,
                                             "conversation": "conv_b"}})
        lines.append({"dir": "res", "elapsed_ms": 500, "body": {
            "id": f"resp_b{k}", "object": "response", "status": "completed", "model": "gpt-4o",
            "conversation": {"id": "conv_b"},
            "output": [{"id": f"ws_{k}", "type": "web_search_call", "status": "completed",
                        "action": {"type": "search", "query": f"search {text}"}},
                       {"id": f"msg_{k}", "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": f"stored {text}"}]}],
            "usage": {"input_tokens": 10 + k, "output_tokens": 2}}})
    return write_jsonl(path, lines)


CAPTURES = {"keys.jsonl": _keys, "escapes.jsonl": _escapes, "bearer.jsonl": _bearer,
            "widening.jsonl": widening_capture.write}
FORMATS = (("json", "--explain"), ("markdown",), ("text", "--width", "100"))


@pytest.fixture(params=["one process", "workers"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "workers":
        monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
        monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
        monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "5000")
    else:
        monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return str(request.param)


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_hostile_report_is_byte_identical(name: str, mode: str, tmp_path: Path,
                                          capsysbinary: pytest.CaptureFixture[bytes],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    CAPTURES[name](tmp_path / name)
    monkeypatch.chdir(tmp_path)
    got = []
    for fmt in FORMATS:
        main(["report", name, "--format", *fmt])
        got.append(hashlib.sha256(capsysbinary.readouterr().out).hexdigest())
    if UPDATE and os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.fail("re-pin in one process (-p no:xdist): workers overwrite each other's pins")
    if UPDATE:
        GOLDEN[name] = got
        PINNED.write_text(json.dumps(dict(sorted(GOLDEN.items())), indent=1) + "\n")
    assert got == GOLDEN.get(name), f"{name}: hostile report changed (json, markdown, text)"


def test_a_masked_auth_header_reads_as_before(tmp_path: Path,
                                              capsysbinary: pytest.CaptureFixture[bytes],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The plain form of the digest above: "Authorization: Bearer <key>" is masked when read
    and the masked text again in the written report. Up to 6808ef7 the second pass took the
    scheme word of the first pass's "Bearer [redacted]" for a value and the report read
    "Authorization: [redacted] [redacted]"; since issue #11's fifth pass a mask of a mask is
    the mask, so the report reads as the capture was masked (the one change the pinned digests
    above were re-pinned for: the key itself was never shown)."""
    monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    _bearer(tmp_path / "bearer.jsonl")
    main(["report", str(tmp_path / "bearer.jsonl"), "--format", "json"])
    out = capsysbinary.readouterr().out
    doc = orjson.loads(out)
    texts = [t["user_text"] for t in doc["turns"]] if "turns" in doc else []
    assert b"eyJhbGciOiJIUzI1NiJ9abcdef" not in out and b"Lk3Mn4Bv5Cx6" not in out
    assert texts == ["Authorization: Bearer [redacted]",
                     "AUTHORIZATION: BEARER [redacted]",
                     "headers={'Authorization': 'Bearer [redacted]'}"]
