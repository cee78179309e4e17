"""OTLP spans are turns in the order they started, whatever order the file lists them in
(a collector's batches are not in start order): the chain's turns keep their numbers."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fixtures_shared import ROOT
from traceview.analysis.session import analyze

OTLP = ROOT / "tests" / "fixtures" / "formats" / "otlp_genai.json"


def test_spans_listed_in_reverse_start_order_become_turns_in_start_order(tmp_path: Path):
    doc = json.loads(OTLP.read_text())
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    starts = [int(s["startTimeUnixNano"]) for s in spans]
    assert starts == sorted(starts)  # the fixture lists them in start order
    spans.reverse()
    path = tmp_path / "reversed.json"
    path.write_text(json.dumps(doc))
    turns = analyze([str(path)]).to_report()["turns"]
    assert [t["input_tokens"] for t in turns] == [1210, 6110, 42]
    assert [t["elapsed_ms"] for t in turns] == [2104, 5812, 600]
    assert [t["conversation"] for t in turns] == ["conv_otel42", "conv_otel42", None]
