"""One OTLP span with a value of the wrong type loses that span, not the file: the other
spans are turns and the damaged one is named in one problem (as a HAR's entries are)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from traceview.analysis.session import analyze
from traceview.cli import main

GOOD = {"gen_ai.operation.name": {"stringValue": "chat"},
        "gen_ai.request.model": {"stringValue": "gpt-4.1"},
        "gen_ai.usage.input_tokens": {"intValue": "10"},
        "gen_ai.usage.output_tokens": {"intValue": "2"}}


def _span(sid: str, start: int, attrs: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"traceId": "t1", "spanId": sid, "name": "chat gpt-4.1",
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 10**9),
            "attributes": [{"key": k, "value": v} for k, v in attrs.items()], **extra}


def _write(tmp_path: Path, bad: dict[str, Any]) -> Path:
    spans = [_span("s1", 1_700_000_000 * 10**9, GOOD), bad,
             _span("s3", 1_700_000_002 * 10**9, GOOD)]
    path = tmp_path / "spans.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    return path


# A hosted tool's span, read back onto its parent model call.
TOOL = {"gen_ai.operation.name": {"stringValue": "execute_tool"},
        "gen_ai.tool.name": {"stringValue": "web_search"}}
AT = 1_700_000_001 * 10**9
# (the span, the input tokens of the turns read: a span read with an unknown number, or
# left out and named)
BAD = {
    "array-as-list": (_span("s2", AT, {**GOOD, "gen_ai.response.finish_reasons":
                                       {"arrayValue": [{"stringValue": "stop"}]}}),
                      [10, 10, 10]),
    "int-past-64-bits": (_span("s2", AT, {**GOOD, "gen_ai.usage.input_tokens":
                                          {"intValue": "99999999999999999999999"}}),
                         [10, None, 10]),
    "parent-id-list": (_span("s2", AT, TOOL, parentSpanId=["s1"]), [10, 10]),
}


@pytest.mark.parametrize("bad, tokens", BAD.values(), ids=BAD.keys())
def test_a_damaged_span_loses_that_span_only(tmp_path, bad, tokens):
    path = _write(tmp_path, bad)
    report = analyze(str(path)).to_report()
    assert [t["input_tokens"] for t in report["turns"]] == tokens
    said = " ".join(p["message"] for p in report["problems"])
    assert "Error" not in said and "a malformed an" not in said  # no Python, no "a an"
    assert ("left out" in said) == (len(tokens) == 2)


def test_the_damaged_span_is_one_problem_that_names_it(tmp_path, capsys):
    path = _write(tmp_path, BAD["parent-id-list"][0])
    assert main(["report", "--format", "json", str(path)]) == 1
    doc = json.loads(capsys.readouterr().out)
    said = [p["message"] for p in doc["problems"] if p["kind"] == "damaged_import"]
    assert said == [f"{path}: span 2 (id 's2') has a value of the wrong type; left out"]
    assert len(doc["turns"]) == 2
