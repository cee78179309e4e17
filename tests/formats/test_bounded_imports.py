"""Foreign files of any size: a batch joined in memory the size of its ids, and a JSON
document too large to parse whole refused in one line, never read into memory."""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path

import orjson

from traceview.capture.formats import WHOLE_MAX, batch
from traceview.capture.formats.common import Emitter
from traceview.cli import main


def _sparse(path: Path, head: bytes, size: int) -> Path:
    path.write_bytes(head)
    with open(path, "r+b") as f:
        f.truncate(size)  # a file of that size costs nothing to make
    return path


def test_a_pretty_json_past_the_bound_is_one_line_and_exit_2(tmp_path, capsys):
    big = _sparse(tmp_path / "trace.json", b'{\n  "resourceSpans": [\n', WHOLE_MAX + (1 << 20))
    assert main(["report", str(big)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"traceview: {big}: a JSON document over many lines, larger than 256 MiB, "
                   "is not parsed whole; a capture is JSON Lines (one record a line, read at "
                   "any size), and so is OTLP's file exporter"]


def test_otlp_json_lines_past_the_bound_are_refused_unread(tmp_path, capsys):
    big = _sparse(tmp_path / "spans.jsonl", b'{"resourceSpans": []}\n', WHOLE_MAX + (1 << 20))
    assert main(["report", str(big)]) == 2
    err = capsys.readouterr().err
    assert f"{big}: an OTLP JSON Lines file is held whole to put its spans in start order, " \
           "and this one is larger than 256 MiB" in err
    assert err.count(str(big)) == 1  # named once, as given


def test_a_batch_is_joined_holding_its_ids_not_its_answers(tmp_path):
    n, pad = 3000, "x" * 4000
    inputs, outputs = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    inputs.write_bytes(b"".join(orjson.dumps({
        "custom_id": f"r{i}", "method": "POST", "url": "/v1/responses",
        "body": {"model": "gpt-5", "input": "hi"}}) + b"\n" for i in range(n)))
    outputs.write_bytes(b"".join(orjson.dumps({  # answered in reverse order
        "custom_id": f"r{i}", "response": {"status_code": 200, "body": {
            "object": "response", "id": f"resp_{i}", "status": "completed",
            "output": [{"type": "message", "content": [{"type": "output_text", "text": pad}]}],
            "usage": {"input_tokens": 7, "output_tokens": 1000}}}}) + b"\n"
        for i in reversed(range(n))))
    assert outputs.stat().st_size > 12_000_000
    sink = io.BytesIO()
    tracemalloc.start()
    try:
        calls = batch.join([str(inputs)], [str(outputs)], Emitter(sink, "batch"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert calls == n
    peak -= len(sink.getvalue())  # what was written is the sink's, not the join's
    assert peak < 3_000_000, peak
    records = [orjson.loads(line) for line in sink.getvalue().splitlines()]
    assert [r["id"] for r in records[:4]] == ["batch:r0", "batch:r0", "batch:r1", "batch:r1"]
    assert records[1]["body"]["id"] == "resp_0" and records[-1]["body"]["id"] == f"resp_{n - 1}"
