"""Captures and snapshots traceview writes are terminal-safe and keep the data verbatim.

`hydrate` and `fetch` wrote a provider's U+009B (8-bit CSI) and U+202E (bidi override)
raw into the file they made (ESC was `\\u001b`-escaped by the JSON writer): `cat` of the
file acted on them. They now leave as `\\u009b` / `\\u202e` JSON escapes, the sanitiser's
set (safety/sanitise json_safe), so each line parses back to the provider's own string.
"""

from __future__ import annotations

from pathlib import Path

import openai
import orjson
import pytest

from tests.hostile.corpus import write_jsonl
from traceview.cli import main
from traceview.sim import SimServer

KEY = "sk-proj-WRITTENinert000000000000000000"
HOSTILE = "pay \u009b31m now \u202eevil\u202c \u200b done"
RAW = (b"\xc2\x9b", b"\xe2\x80\xae", b"\xe2\x80\xac", b"\xe2\x80\x8b")


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _check(raw: bytes, docs: list[object]) -> None:
    for char in RAW:
        assert char not in raw, char
    assert b"\\u009b" in raw and b"\\u202e" in raw
    assert any(HOSTILE in s for doc in docs for s in _strings(doc))  # verbatim after parsing


def test_hydrate_and_fetch_write_c1_and_bidi_as_json_escapes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with SimServer(seed="inert") as sim:
        client = openai.OpenAI(base_url=sim.base_url, api_key=KEY, max_retries=0)
        conv = client.conversations.create()
        resp = client.responses.create(model="gpt-4o-mini", conversation=conv.id,
                                       input=HOSTILE, store=True)
        monkeypatch.setenv("OPENAI_BASE_URL", sim.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        hydrated = tmp_path / "h.jsonl"
        assert main(["hydrate", resp.id, "-o", str(hydrated)]) == 0
        cap = write_jsonl(tmp_path / "c.jsonl", [
            {"dir": "req", "body": {"model": "gpt-4o-mini", "conversation": conv.id,
                                    "input": "hi", "store": True}},
            {"dir": "res", "body": {"id": resp.id, "object": "response",
                                    "status": "completed", "conversation": {"id": conv.id},
                                    "output": []}}])
        snap = tmp_path / "s.json"
        assert main(["fetch", str(cap), "-o", str(snap), "--base-url", sim.base_url,
                     "--max-retries", "0"]) == 0
    raw = hydrated.read_bytes()
    _check(raw, [orjson.loads(line) for line in raw.splitlines()])
    raw = snap.read_bytes()
    _check(raw, [orjson.loads(raw)])


def test_the_recorder_writes_a_line_with_c1_and_bidi_escaped(tmp_path: Path) -> None:
    from traceview.record.writer import CaptureWriter

    path = tmp_path / "r.jsonl"
    with CaptureWriter(path) as writer:
        writer.write({"dir": "res", "body": {"output_text": HOSTILE, "tag": "\U000e0041"}})
    raw = path.read_bytes()
    assert raw == (b'{"dir":"res","body":{"output_text":"pay \\u009b31m now \\u202eevil'
                   b'\\u202c \\u200b done","tag":"\\udb40\\udc41"}}\n')
    assert orjson.loads(raw)["body"] == {"output_text": HOSTILE, "tag": "\U000e0041"}


def test_an_imported_capture_is_written_with_c1_and_bidi_escaped() -> None:
    import io

    from traceview.capture.formats.common import Emitter

    out = io.BytesIO()
    Emitter(out=out, fmt="har").write({"dir": "req", "body": {"input": HOSTILE}})
    raw = out.getvalue()
    for char in RAW:
        assert char not in raw, char
    assert orjson.loads(raw)["body"]["input"] == HOSTILE
