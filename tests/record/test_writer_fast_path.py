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
