"""A time a capture gives that no calendar holds (past year 9999, milliseconds where seconds
belong, a number of 400 digits) reads as unknown: the JSON report is written, not a
traceback.

Such a `created_at` used to crash `report --format json` in the turn's `ts` and in the
provider objects' `created_at` and expiry date (datetime's range ends at year 9999).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.hostile.corpus import assert_no_traceback, traceview, write_jsonl

GOOD = 1764480000  # 2025-11-30


def _capture(created: Any) -> list[dict[str, Any]]:
    """A stored response created at `created`, beside one created at a usable time, plus a
    vector store and a file of the same `created_at`."""
    recs: list[dict[str, Any]] = []
    for i, when in enumerate((created, GOOD)):
        recs += [
            {"dir": "req", "id": f"r{i}", "body": {"model": "gpt-4o", "store": True,
                                                   "input": f"q{i}"}},
            {"dir": "res", "id": f"r{i}", "status_code": 200, "elapsed_ms": 10,
             "body": {"object": "response", "id": f"resp_{i}", "status": "completed",
                      "model": "gpt-4o", "created_at": when, "output": [],
                      "usage": {"input_tokens": 10, "output_tokens": 2}}},
        ]
    recs += [
        {"dir": "req", "endpoint": "POST /v1/vector_stores", "body": {"name": "vs"}},
        {"dir": "res", "status_code": 200,
         "body": {"object": "vector_store", "id": "vs_1", "created_at": created,
                  "last_active_at": created,
                  "expires_after": {"anchor": "last_active_at", "days": 7}}},
        {"dir": "req", "endpoint": "POST /v1/files", "body": {}},
        {"dir": "res", "status_code": 200, "body": {"object": "file", "id": "file_1",
                                                    "created_at": created}},
    ]
    return recs


@pytest.mark.parametrize("created", [
    300_000_000_000,        # year 11476, seconds: still under the table's count limit
    253_402_300_799,        # 9999-12-31T23:59:59: its 30-day expiry is past year 9999
    1_764_480_000_123,      # milliseconds where seconds belong
    3e11 + 0.5,             # a fraction of a second, past year 9999
    1e300,
], ids=["year-11476", "last-second", "milliseconds", "fraction", "1e300"])
def test_a_time_past_the_calendar_reads_as_unknown(tmp_path: Path, created: Any) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", _capture(created))
    out = traceview("report", str(cap), "--format", "json")
    assert_no_traceback(out)
    assert out.returncode == 0, out.stderr
    doc = orjson.loads(out.stdout)
    bad, good = doc["turns"]
    assert bad["ts"] in (None, "9999-12-31T23:59:59Z")  # a calendar time, or unknown
    assert good["ts"] == "2025-11-30T05:20:00Z"  # the usable time is still read
    objects = {o["id"]: o for o in doc["objects"]["objects"]}
    assert objects["resp_1"]["created_at"] == "2025-11-30T05:20:00Z"
    assert objects["resp_1"]["expires_around"] == "2025-12-30"
    for oid in ("resp_0", "vs_1", "file_1"):
        if oid in objects:
            o = objects[oid]
            assert o["created_at"] in (None, "9999-12-31T23:59:59Z"), o
            assert "None" not in o["expiry"], o
            if o["kind"] == "response" and o["expires_around"] is None:
                assert "unknown" in o["expiry"], o
    text = traceview("report", str(cap), "--format", "text", "--width", "160")
    assert_no_traceback(text)
    assert text.returncode == 0, text.stderr
