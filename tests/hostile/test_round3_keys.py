"""Round 3's key findings: an Azure key after "api-key " (a space, no colon), a secret
header echoed by the upstream into the record, a key streamed back split across deltas,
and the redactor eating a real word of the provider's 401 message."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

import traceview.record
from tests.record.conftest import read_records
from traceview.safety.pieces import redact_pieces
from traceview.safety.redact import redact, redact_json, redact_text


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    return tmp_path / "capture.jsonl"


AZURE = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"  # 32 hex digits, as Azure issues them


@pytest.mark.parametrize("text", [
    f"api-key {AZURE}", f"api-key   {AZURE}", f"api-key\t{AZURE}", f"API-KEY {AZURE}",
    f"api-key\u00a0{AZURE}", f"Ocp-Apim-Subscription-Key {AZURE}", f"apikey {AZURE}",
    f"headers: api-key {AZURE} content-type: application/json",
])
def test_an_azure_key_after_a_space_is_masked_in_every_form(text: str) -> None:
    assert AZURE not in redact_text(text)
    assert AZURE.encode() not in redact_json(json.dumps({"h": text}).encode())
    assert AZURE not in json.dumps(redact({"h": text}))
    assert redact_text(text).count("[redacted]") == 1


@pytest.mark.parametrize("text", [
    "invalid_api_key: Incorrect API key provided: sk-te****st. You can find your API key "
    "at https://platform.openai.com/account/api-keys.",
    "the api key provided is wrong", "your api-key expired yesterday afternoon",
    "missing_api_key: Provided nothing at all",
])
def test_the_redactor_keeps_ordinary_words(text: str) -> None:
    """A provider's 401, as the report writes it ("code: message"), keeps "Incorrect"."""
    assert redact_text(text) == text


def test_a_key_split_across_pieces_is_masked_in_the_pieces() -> None:
    key = "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34"
    pieces = ["here: sk-pr", "oj-Ab12Cd34", "Ef56Gh78Ij90", "Kl12Mn34 done"]
    out = redact_pieces(pieces)
    assert len(out) == 4 and "".join(out) == redact_text("".join(pieces))
    assert key[8:] not in "".join(out) and out[-1] == " done"


def _sse(events: list[dict[str, object]]) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


def _record(capture: Path, handler: object, headers: dict[str, str]) -> list[dict]:
    recorder = traceview.record.Recorder(capture)
    http = httpx2.Client(transport=traceview.record.RecordingTransport(
        recorder, httpx2.MockTransport(handler)))  # type: ignore[arg-type]
    http.post("http://127.0.0.1:9/v1/responses", json={"model": "m", "input": "hi"},
              headers=headers).read()
    return read_records(capture)


def test_a_key_streamed_split_across_deltas_cannot_be_read_by_joining_them(
        capture: Path) -> None:
    key = "sk-proj-Zq81Xw72Cv63Bn54Mm45Ll36Kk27"
    parts = ["Your key is sk-pr", "oj-Zq81Xw72", "Cv63Bn54Mm", "45Ll36Kk27", " — keep it."]
    events = [{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
               "content_index": 0, "delta": p} for p in parts]
    chat = [{"choices": [{"index": 0, "delta": {"content": p}}]} for p in parts]

    def handler(request: httpx2.Request) -> httpx2.Response:
        body = events if request.url.path.endswith("responses") else chat
        return httpx2.Response(200, headers={"content-type": "text/event-stream"},
                               content=_sse(body))

    res = _record(capture, handler, {})[1]
    joined = "".join(e["delta"] for e in res["events"])
    assert key[8:20] not in joined and "Zq81" not in joined and "Kk27" not in joined
    assert joined == "Your key is sk-[redacted] — keep it."
    assert capture.read_text().count("[redacted]") == 1


def test_chat_deltas_are_masked_as_their_join(tmp_path: Path) -> None:
    from traceview.record.deltas import mask_deltas

    parts = ["api_", "key=hun", "ter2hunter2", " ok"]
    events = [{"choices": [{"index": 0, "delta": {"content": p}}]} for p in parts]
    mask_deltas(events)
    joined = "".join(e["choices"][0]["delta"]["content"] for e in events)
    assert joined == "api_key=[redacted] ok"


@pytest.mark.parametrize("header", ["Ocp-Apim-Subscription-Key", "x-goog-api-key"])
def test_a_secret_header_echoed_by_the_upstream_is_not_recorded(
        capture: Path, header: str) -> None:
    value = "4f3e2d1c0b0a99887766554433221100"

    def handler(request: httpx2.Request) -> httpx2.Response:
        echoed = request.headers[header]
        return httpx2.Response(401, json={"error": {
            "message": f"Access denied: subscription {echoed} is not valid", "code": "401"}})

    records = _record(capture, handler, {header: value})
    assert value not in capture.read_text()
    assert "Access denied: subscription" in records[1]["body"]["error"]["message"]
