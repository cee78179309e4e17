"""HAR bodies stored still content-encoded: Fiddler, Charles and some proxies export the
compressed bytes (base64) when the response carried ``Content-Encoding: gzip``."""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.builders import response, usage
from traceview.analysis.session import analyze

BODY = {"model": "gpt-4.1", "input": "hello"}


def _har(tmp_path: Path, content: dict[str, Any], encoding: str = "gzip") -> Path:
    entry = {"startedDateTime": "2026-01-01T00:00:00Z", "time": 50,
             "request": {"method": "POST", "url": "https://api.openai.com/v1/responses",
                         "headers": [], "bodySize": 30,
                         "postData": {"mimeType": "application/json",
                                      "text": json.dumps(BODY)}},
             "response": {"status": 200,
                          "headers": [{"name": "Content-Encoding", "value": encoding}],
                          "content": {"mimeType": "application/json", "size": 300,
                                      **content}}}
    path = tmp_path / "encoded.har"
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": [entry]}}))
    return path


def _answer() -> bytes:
    return json.dumps(response("resp_1", 10, 2)).encode()


@pytest.mark.parametrize("encoding, pack", [
    ("gzip", gzip.compress),
    ("deflate", zlib.compress),
], ids=["gzip", "deflate"])
def test_a_compressed_base64_body_is_decoded_to_its_numbers(tmp_path, encoding, pack):
    path = _har(tmp_path, {"encoding": "base64",
                           "text": base64.b64encode(pack(_answer())).decode()}, encoding)
    turn = analyze(str(path)).to_report()["turns"][0]
    assert (turn["input_tokens"], turn["output_tokens"]) == (usage(10, 2)["input_tokens"], 2)


def test_a_body_that_cannot_be_decoded_says_why_not_that_the_exporter_left_it_out(tmp_path):
    path = _har(tmp_path, {"encoding": "base64",
                           "text": base64.b64encode(b"\x1f\x8b\x08 not gzip").decode()})
    report = analyze(str(path)).to_report()
    turn = report["turns"][0]
    assert turn["input_tokens"] is None  # unknown, never guessed
    notes = " ".join(turn["notes"])
    assert "response body" in notes and "could not be decoded" in notes
    assert "left out of the HAR" not in notes


def test_a_status_written_as_a_string_is_still_the_status(tmp_path):
    """Some exporters write ``"status": "200"``: the answer is there, and was dropped as
    'no response (aborted, refused or still pending)'."""
    path = _har(tmp_path, {"text": _answer().decode()}, "identity")
    path.write_text(path.read_text().replace('"status": 200', '"status": "200"'))
    turn = analyze(str(path)).to_report()["turns"][0]
    assert (turn["input_tokens"], turn["status"]) == (10, "completed")
    assert "no response" not in (turn["error"] or "")


@pytest.mark.parametrize("field, value", [("url", 5), ("method", {"x": 1}), ("method", ["POST"])])
def test_a_url_or_method_of_the_wrong_type_is_a_damaged_entry(tmp_path, field, value):
    """Not 'not a provider call' (silently ignored), nor an endpoint spelt with a Python
    repr ("{'X': 1} /v1/responses"): an entry of the wrong shape, named."""
    path = _har(tmp_path, {"text": _answer().decode()}, "identity")
    doc = json.loads(path.read_text())
    doc["log"]["entries"][0]["request"][field] = value
    path.write_text(json.dumps(doc))
    report = analyze(str(path)).to_report()
    assert report["turns"] == [] and report["exchanges"] == []
    said = [p["message"] for p in report["problems"] if p["kind"] == "damaged_import"]
    assert len(said) == 1 and said[0].startswith(f"{path}: entry 1 of the wrong shape")
