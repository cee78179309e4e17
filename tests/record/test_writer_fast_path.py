"""The writer serialises first and walks a record through the redactor only when its text
holds something the redactor looks for: every line must equal the redacted record's."""

from __future__ import annotations

import json

import orjson
import pytest

from traceview.record.writer import CaptureWriter
from traceview.safety.redact import redact

RECORDS = [
    {"dir": "res", "id": "rec_1", "body": {"output": [{"text": "plain answer, no secrets"}]}},
    {"dir": "req", "id": "rec_2", "body": {"input": "my api_key=abcdef123456 here"}},
    {"dir": "req", "id": "rec_3", "body": {"password": "hunter22", "note": "ok"}},
    {"dir": "req", "id": "rec_4", "body": {"headers": {"Authorization": "Bearer abcdefgh1234"}}},
    {"dir": "res", "id": "rec_5", "body": {"tokens": 12, "text": 'a "quoted" \u212aey=abcdefgh'}},
]


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_each_line_is_the_redacted_record(tmp_path, record) -> None:
    path = tmp_path / "c.jsonl"
    with CaptureWriter(path) as w:
        w.write(record)
    assert json.loads(path.read_bytes()) == orjson.loads(orjson.dumps(redact(record)))
    assert b"hunter22" not in path.read_bytes() and b"abcdef123456" not in path.read_bytes()


def test_a_clean_line_is_written_as_serialised_and_secrets_are_still_masked(tmp_path) -> None:
    """A Responses body (its `prompt_cache_key` included) with nothing to mask is written
    byte for byte as serialised; the recorder's own secrets are masked in such a line too,
    and a line that holds a shape across a key and its value is still masked as text."""
    path = tmp_path / "c.jsonl"
    clean = {"dir": "res", "id": "rec_1", "body": {
        "object": "response", "prompt_cache_key": None, "output": [{"text": "plain"}]}}
    echoed = {"dir": "res", "id": "rec_2", "body": {"object": "response",
                                                     "prompt_cache_key": "zqxw9k2m7v4b"}}
    split = {"dir": "req", "id": "rec_3", "body": {"my_secret_key": "hunter2hunter2"}}
    with CaptureWriter(path) as w:
        w.scrubber.add_secret("Bearer zqxw9k2m7v4b")  # as the transport notes a header's key
        for record in (clean, echoed, split):
            w.write(record)
    lines = path.read_bytes().splitlines()
    assert lines[0] == orjson.dumps(clean)
    assert b"zqxw9k2m7v4b" not in lines[1] and b"***REDACTED***" in lines[1]
    assert orjson.loads(lines[2])["body"] == {"my_secret_key": "[redacted]"}
