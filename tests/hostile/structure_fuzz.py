"""A structure fuzz over capture records: types swapped at every path, depth, size.

Run by tests/hostile/test_fuzz_structure.py (a fixed, small budget;
TRACEVIEW_FUZZ_EXAMPLES=N for a long run).
Each case is a small capture built from a real-looking turn whose values are replaced,
at any path, by a value of another type, a deep nest or a large container; the reader,
the analysis, every report format, the transcript and the diff must neither raise nor
hang, and must report problems with line numbers.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import orjson
from hypothesis import strategies as st

from traceview.analysis import analyze
from traceview.analysis.transcript import capture_side, targets
from traceview.provider.diffing import compare
from traceview.provider.snapshot import SnapshotError, load_items
from traceview.report.diff_output import render as render_diff
from traceview.report.json_out import render_json
from traceview.report.markdown import render_markdown
from traceview.safety.redact import redact
from traceview.safety.sanitise import visible

BASE: list[dict[str, Any]] = [
    {"dir": "req", "id": "L1", "endpoint": "POST /v1/responses", "body": {
        "model": "gpt-4o", "conversation": "conv_1", "previous_response_id": "resp_0",
        "input": [{"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "hi"}]},
            {"type": "function_call_output", "call_id": "c1", "output": "o"}],
        "tools": [{"type": "web_search"}, {"type": "function", "name": "f"}],
        "include": ["web_search_call.action.sources"], "stream": False}},
    {"dir": "res", "id": "L1", "status_code": 200, "elapsed_ms": 12, "body": {
        "object": "response", "id": "resp_1", "status": "completed", "model": "gpt-4o",
        "conversation": {"id": "conv_1"},
        "output": [{"type": "web_search_call", "id": "ws_1", "status": "completed",
                    "action": {"type": "search", "query": "q", "sources": [{"url": "u"}]}},
                   {"type": "message", "id": "msg_1", "role": "assistant",
                    "content": [{"type": "output_text", "text": "ok"}]}],
        "usage": {"input_tokens": 100, "output_tokens": 5,
                  "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}}}},
    {"dir": "req", "body": {"model": "gpt-4o", "messages": [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]}]}},
    {"dir": "res", "body": {"object": "chat.completion", "id": "chat_1", "choices": [
        {"finish_reason": "stop", "message": {"role": "assistant", "content": "c",
                                              "tool_calls": [{"id": "t"}]}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1}}},
    {"type": "response.completed", "sequence_number": 3, "response": {
        "object": "response", "id": "resp_2", "status": "completed", "output": []}},
    {"dir": "req", "endpoint": "GET /v1/conversations/conv_1/items?order=asc"},
    {"dir": "res", "status_code": 200, "body": {"object": "list", "data": [
        {"type": "message", "id": "msg_1", "role": "assistant", "content": []}],
        "has_more": False, "last_id": "msg_1"}},
]


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


PATHS = _paths(BASE)


def _nest(depth: int, leaf: Any) -> Any:
    for i in range(depth):
        leaf = [leaf] if i % 2 else {"content": leaf, "type": "message"}
    return leaf


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1),
                    st.floats(allow_nan=False), st.text(max_size=30))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(
        ["type", "id", "role", "content", "text", "output", "input", "status", "usage",
         "data", "object", "response", "events", "body"]), inner, max_size=4)), max_leaves=12)
MUTATION = st.one_of(
    VALUES,
    st.builds(_nest, st.integers(50, 1100), VALUES),
    st.builds(lambda n, v: [v] * n, st.integers(100, 3000), SCALARS),
)


@st.composite
def captures(draw: st.DrawFn) -> list[Any]:
    records: list[Any] = orjson.loads(orjson.dumps(BASE))
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(PATHS))
        node: Any = records
        try:
            for k in path[:-1]:
                node = node[k]
            node[path[-1]] = draw(MUTATION)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier swap removed this path
    return records


def _line(record: Any) -> bytes:
    try:
        return orjson.dumps(record)
    except (orjson.JSONEncodeError, TypeError):
        return b'{"dir":"req","body":' + b"[" * 2000 + b"]" * 2000 + b"}"


def check(records: list[Any]) -> None:
    """Everything a user can run on the capture, in process; raises on any failure."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.jsonl"
        path.write_bytes(b"".join(_line(r) + b"\n" for r in records))
        analysis = analyze(str(path))
        for p in analysis.problems:
            assert isinstance(p.line, int) and p.line >= 1 and p.message
            assert p.kind != "internal_error", p.message  # the backstop caught a crash
        render_json(analysis)
        visible(render_markdown(analysis), multiline=True)
        cap = analysis.capture
        for target in targets(cap):
            items = capture_side(cap, target)
            redact([ci.item for ci in items])
            try:
                copy = load_items(str(path), conversation=target.id)
            except SnapshotError:
                continue
            render_diff(compare(cap, target, copy), "json")
            render_diff(compare(cap, target, copy), "text")
        analysis.capture.close()
