"""OTLP export: the OTLP/HTTP JSON shape, GenAI attributes, usage that round-trips."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.fixtures_shared import REAL, SAMPLES
from traceview.analysis.session import analyze

_VALUE_KEYS = {"stringValue", "intValue", "doubleValue", "boolValue", "arrayValue"}


def _check_value(v: dict) -> None:
    [(k, x)] = v.items()
    assert k in _VALUE_KEYS, k
    if k == "intValue":
        assert isinstance(x, str) and re.fullmatch(r"-?\d+", x)
    elif k == "doubleValue":
        assert isinstance(x, float | int)
    elif k == "boolValue":
        assert isinstance(x, bool)
    elif k == "stringValue":
        assert isinstance(x, str)
    else:
        for item in x["values"]:
            _check_value(item)


def spans_of(doc: dict) -> list[dict]:
    """Validate an ExportTraceServiceRequest in the OTLP JSON encoding; return its spans."""
    out = []
    assert set(doc) == {"resourceSpans"}
    for rs in doc["resourceSpans"]:
        for a in rs["resource"]["attributes"]:
            _check_value(a["value"])
        for ss in rs["scopeSpans"]:
            assert ss["scope"]["name"] == "traceview"
            for span in ss["spans"]:
                assert re.fullmatch(r"[0-9a-f]{32}", span["traceId"])
                assert re.fullmatch(r"[0-9a-f]{16}", span["spanId"])
                if "parentSpanId" in span:
                    assert re.fullmatch(r"[0-9a-f]{16}", span["parentSpanId"])
                assert span["name"] and span["kind"] in (1, 3)
                start, end = int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"])
                assert 0 <= start <= end
                assert span["status"]["code"] in (0, 1, 2)
                for a in span["attributes"]:
                    assert isinstance(a["key"], str)
                    _check_value(a["value"])
                out.append(span)
    return out


def attrs(span: dict) -> dict:
    def val(v: dict):
        [(k, x)] = v.items()
        if k == "intValue":
            return int(x)
        if k == "arrayValue":
            return [val(i) for i in x["values"]]
        return x
    return {a["key"]: val(a["value"]) for a in span["attributes"]}


def test_otlp_file_round_trips_usage(tv, tmp_path: Path) -> None:
    out = tmp_path / "spans.json"
    rc, _, _ = tv("export", SAMPLES / "claims.jsonl", REAL, "--to", "otlp", out)
    assert rc in (0, 1)
    spans = spans_of(json.loads(out.read_text()))
    chats = [attrs(s) for s in spans if attrs(s)["gen_ai.operation.name"] == "chat"]
    turns = [t for p in [SAMPLES / "claims.jsonl", *sorted(REAL.glob("*.jsonl"))]
             for t in analyze([str(p)]).turns]
    assert len(chats) == len(turns)
    for key, field in [("gen_ai.usage.input_tokens", "input_tokens"),
                       ("gen_ai.usage.output_tokens", "output_tokens"),
                       ("gen_ai.usage.cache_read.input_tokens", "cached_tokens")]:
        assert sum(a.get(key, 0) for a in chats) == sum(getattr(t, field) or 0 for t in turns)
    tools = [s for s in spans if attrs(s)["gen_ai.operation.name"] == "execute_tool"]
    assert len(tools) == sum(len(t.hosted_calls) for t in turns)
    by_id = {s["spanId"]: s for s in spans}
    assert all(by_id[s["parentSpanId"]]["traceId"] == s["traceId"] for s in tools)


def test_otlp_carries_traceview_findings(tv, tmp_path: Path) -> None:
    out = tmp_path / "spans.json"
    tv("export", SAMPLES / "claims.jsonl", "--to", "otlp", "-o", out)
    spans = spans_of(json.loads(out.read_text()))
    chats = [attrs(s) for s in spans if "gen_ai.usage.input_tokens" in attrs(s)]
    t3 = next(a for a in chats if a["traceview.turn.index"] == 3)
    assert t3["traceview.deposit"] is True and t3["traceview.unexplained_tokens"] == 4001
    assert t3["gen_ai.conversation.id"].startswith("conv_")
    assert t3["gen_ai.response.id"].startswith("resp_")
    assert t3["gen_ai.request.model"] == "gpt-4.1-2025-04-14"
    assert len({s["traceId"] for s in spans}) == 1  # one conversation, one trace
    missing = [attrs(s) for s in spans if attrs(s).get("traceview.evidence") == "missing"]
    assert [m["traceview.evidence.include"] for m in missing] == ["file_search_call.results"] * 2
    span3 = next(s for s in spans if attrs(s).get("traceview.turn.index") == 3)
    assert int(span3["startTimeUnixNano"]) == 1767225609 * 10**9
    assert int(span3["endTimeUnixNano"]) - int(span3["startTimeUnixNano"]) == 1760 * 10**6


def test_otlp_compaction_attribute(tv, tmp_path: Path) -> None:
    out = tmp_path / "spans.json"
    tv("export", SAMPLES / "long_conversation.jsonl", "--to", "otlp", "-o", out)
    chats = [attrs(s) for s in spans_of(json.loads(out.read_text()))]
    turns = analyze([str(SAMPLES / "long_conversation.jsonl")]).turns
    want = ["explicit" if "compaction" in t.markers else
            "likely" if "compaction_likely" in t.markers else None for t in turns]
    assert [a.get("traceview.compaction") for a in chats] == want
    assert any(want)


class _Collector(BaseHTTPRequestHandler):
    received: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        assert self.headers["Content-Type"] == "application/json"
        type(self).received.append(json.loads(body))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


def test_otlp_endpoint_posts_the_same_spans(tv, tmp_path: Path) -> None:
    _Collector.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/v1/traces"
        out = tmp_path / "spans.json"
        rc, _, err = tv("export", REAL, "--to", "otlp", out, "--otlp-endpoint", url)
        assert rc in (0, 1), err
    finally:
        server.shutdown()
        thread.join()
    posted = [s for doc in _Collector.received for s in spans_of(doc)]
    assert posted == spans_of(json.loads(out.read_text()))
    assert len(posted) > 50


def test_otlp_endpoint_failure_is_one_line(tv, tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    port = server.server_port
    server.server_close()  # nothing listens there now
    rc, _, err = tv("export", SAMPLES / "claims.jsonl", "--to", "otlp",
                    "--otlp-endpoint", f"http://127.0.0.1:{port}/v1/traces")
    assert rc == 2 and err.count("\n") == 1 and "cannot post spans" in err
