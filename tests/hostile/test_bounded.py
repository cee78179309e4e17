"""Hostile captures are bounded: no traceback, no hang, a problem with a line number."""

from __future__ import annotations

import gzip
import os
import stat
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.fixtures_shared import ROOT
from traceview.analysis import analyze

from .corpus import assert_no_traceback, traceview, write_jsonl


def _turn(rid: str, prev: str | None, text: str = "hi") -> list[dict]:
    body: dict = {"model": "gpt-4o", "input": text}
    if prev:
        body["previous_response_id"] = prev
    return [{"dir": "req", "body": body},
            {"dir": "res", "body": {"object": "response", "id": rid, "status": "completed",
                                    "output": [], "usage": {"input_tokens": 5,
                                                            "output_tokens": 1}}}]


def cycle_capture(path: Path) -> Path:
    """resp_a → resp_b → resp_a, and resp_c hanging off the cycle: a chain that never ends."""
    return write_jsonl(path, _turn("resp_a", "resp_b") + _turn("resp_b", "resp_a")
                       + _turn("resp_c", "resp_a"))


def test_previous_response_id_cycles_terminate(tmp_path: Path) -> None:
    cap = cycle_capture(tmp_path / "cycle.jsonl")
    snap = tmp_path / "s.json"
    snap.write_bytes(orjson.dumps({"object": "traceview.snapshot", "conversation": "resp_c",
                                   "kind": "chain", "complete": True, "pages": 1,
                                   "items": []}))
    for args in (["diff", str(cap), "--items", str(snap)],
                 ["fetch", str(cap), "-o", str(tmp_path / "o.json"), "--base-url",
                  "http://127.0.0.1:9", "--max-retries", "0", "--timeout", "1"],
                 ["screenshot", str(cap), "--view", "diff", "--items", str(snap), "-o",
                  str(tmp_path / "d.svg")],
                 ["report", str(cap), "--format", "json"]):
        out = traceview(*args, timeout=60, env={"OPENAI_API_KEY": "sk-x"})  # a hang guard
        assert_no_traceback(out)
        assert out.returncode in (0, 1, 2), out.stderr


def _nest(depth: int, leaf: object = "x") -> object:
    obj: object = leaf
    for i in range(depth):
        obj = [obj] if i % 2 else {"content": obj}
    return obj


@pytest.mark.parametrize("depth", [600, 1200, 5000])
def test_depth_bombs_anywhere_are_problems_not_crashes(depth: int, tmp_path: Path) -> None:
    deep = _nest(depth)
    lines = [
        b'{"dir":"req","body":{"model":"m","input":[{"role":"user","content":'
        + b"[" * depth + b"]" * depth + b"}]}}",
        orjson.dumps({"dir": "res", "body": {"object": "response", "id": "resp_1",
                                             "status": "completed", "output": []}}),
        b'{"dir":"req","body":{"model":"m","input":"x","metadata":' + b'{"a":' * depth
        + b"1" + b"}" * depth + b"}}",
    ]
    try:
        lines.append(orjson.dumps({"dir": "req", "body": {"model": "m", "input": [
            {"type": "message", "role": "user", "content": deep}]}}))
    except orjson.JSONEncodeError:
        pass
    cap = write_jsonl(tmp_path / "deep.jsonl", lines)
    for fmt in ("text", "markdown", "json"):
        out = traceview("report", str(cap), "--format", fmt)
        assert_no_traceback(out)
        assert out.returncode in (0, 1)
    out = traceview("screenshot", str(cap), "--view", "detail", "--turn", "1", "-o",
                    str(tmp_path / "d.svg"))
    assert_no_traceback(out)


def test_deep_snapshot_is_refused_with_a_message(tmp_path: Path) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", _turn("resp_a", None) + _turn("resp_b", "resp_a"))
    snap = tmp_path / "s.json"
    snap.write_bytes(b'{"object":"traceview.snapshot","conversation":"resp_b","kind":"chain",'
                     b'"complete":true,"pages":1,"items":[{"type":"message","content":'
                     + b"[" * 3000 + b"]" * 3000 + b"}]}")
    out = traceview("diff", str(cap), "--items", str(snap))
    assert_no_traceback(out)
    assert out.returncode in (1, 2)


TYPE_SWAPS: list[object] = [[], {}, 1, -1, 1.5, True, None, "s", [[1]], {"a": {}}]


def test_wrong_types_in_every_position_never_crash(tmp_path: Path) -> None:
    """A list or dict where a string is expected, at every path of a real-looking turn."""
    base = [
        {"dir": "req", "id": "L", "endpoint": "POST /v1/responses", "body": {
            "model": "m", "conversation": "conv_1", "previous_response_id": "resp_0",
            "input": [{"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "hi"}]}, {"type": "function_call_output",
                                                         "call_id": "c", "output": "o"}],
            "tools": [{"type": "function", "name": "f"}], "include": ["a"]}},
        {"dir": "res", "id": "L", "status_code": 200, "elapsed_ms": 1, "body": {
            "object": "response", "id": "resp_1", "status": "completed", "model": "m",
            "conversation": {"id": "conv_1"},
            "output": [{"type": "message", "id": "m", "role": "assistant", "content": [
                {"type": "output_text", "text": "ok"}]}, {"type": "web_search_call",
                                                          "id": "w", "status": "completed",
                                                          "action": {"query": "q"}}],
            "usage": {"input_tokens": 1, "output_tokens": 1,
                      "input_tokens_details": {"cached_tokens": 0}}}},
    ]
    records: list[dict] = []
    for path in _paths(base):
        for swap in TYPE_SWAPS:
            records.extend(_swapped(base, path, swap))
    cap = write_jsonl(tmp_path / "types.jsonl", records)
    a = analyze(str(cap))
    a.to_report()
    snap = tmp_path / "s.json"
    snap.write_bytes(orjson.dumps({"object": "traceview.snapshot", "conversation": "conv_1",
                                   "kind": "conversation", "complete": True, "pages": 1,
                                   "items": [r.get("body") if isinstance(r, dict) else r
                                             for r in records[:200]]}))
    for args in (["report", str(cap), "--format", "markdown"],
                 ["diff", str(cap), "--items", str(snap), "--conversation", "conv_1"]):
        out = traceview(*args)
        assert_no_traceback(out)


def _paths(obj: object, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


def _swapped(base: list, path: tuple, value: object) -> list:
    copy = orjson.loads(orjson.dumps(base))
    node = copy
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return copy


def test_duplicate_link_ids_are_problems_never_lost_turns(tmp_path: Path) -> None:
    recs = []
    for i in range(3):  # two processes reused the same link id "dup"
        recs.append({"dir": "req", "id": "dup", "body": {"model": "m", "input": f"q{i}"}})
    for i in range(3):
        recs.append({"dir": "res", "id": "dup", "body": {
            "object": "response", "id": f"resp_{i}", "status": "completed", "output": [],
            "usage": {"input_tokens": 10 + i, "output_tokens": 1}}})
    cap = write_jsonl(tmp_path / "dup.jsonl", recs)
    a = analyze(str(cap))
    assert len(a.capture.turns) == 3
    dup = [p for p in a.problems if "dup" in p.message and p.line == 2]
    assert dup, [p.to_dict() for p in a.problems]


def test_recorder_link_ids_are_unique_across_processes() -> None:
    code = ("from traceview.record import counter_links; f = counter_links(); "
            "print(' '.join(f() for _ in range(50)))")
    ids = set()
    for _ in range(4):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, cwd=ROOT)
        ids.update(out.stdout.split())
    assert len(ids) == 200


def test_absurd_token_counts_are_problems_on_their_line(tmp_path: Path) -> None:
    recs = []
    for n in (-5, 2**63 + 1, 10**30):
        recs += [{"dir": "req", "body": {"model": "m", "input": "x"}},
                 {"dir": "res", "body": {"object": "response", "id": f"resp_{n}",
                                         "status": "completed", "output": [],
                                         "usage": {"input_tokens": n, "output_tokens": 1}}}]
    cap = tmp_path / "n.jsonl"
    cap.write_bytes(b"\n".join(orjson.dumps(r) if "usage" not in str(r) else
                               orjson.dumps(r, option=orjson.OPT_PASSTHROUGH_DATACLASS)
                               for r in recs[:2]) + b"\n")
    text = "".join(
        f'{{"dir":"req","body":{{"model":"m","input":"x"}}}}\n'
        f'{{"dir":"res","body":{{"object":"response","id":"resp_{i}","status":"completed",'
        f'"output":[],"usage":{{"input_tokens":{n},"output_tokens":1}}}}}}\n'
        for i, n in enumerate((-5, 2**63 + 1, 10**30)))
    cap.write_text(text)
    a = analyze(str(cap))
    lines = {p.line for p in a.problems}
    assert {2, 4, 6} <= lines, [p.to_dict() for p in a.problems]
    out = traceview("report", str(cap), "--format", "json")
    assert_no_traceback(out)
    assert out.returncode == 1


# ------------------------------------------------------------------- odd sources
GOOD = (b'{"dir":"req","body":{"model":"m","input":"hi"}}\n'
        b'{"dir":"res","body":{"object":"response","id":"resp_1","status":"completed",'
        b'"output":[],"usage":{"input_tokens":7,"output_tokens":1}}}\n')


def _turn_count(out: subprocess.CompletedProcess[bytes]) -> int:
    return len(orjson.loads(out.stdout)["turns"])


def test_gz_capture_is_read(tmp_path: Path) -> None:
    cap = tmp_path / "c.jsonl.gz"
    cap.write_bytes(gzip.compress(GOOD))
    out = traceview("report", str(cap), "--format", "json")
    assert out.returncode == 0, out.stderr
    assert _turn_count(out) == 1


def test_bom_on_line_one_is_read(tmp_path: Path) -> None:
    cap = tmp_path / "bom.jsonl"
    cap.write_bytes(b"\xef\xbb\xbf" + GOOD)
    out = traceview("report", str(cap), "--format", "json")
    assert out.returncode == 0, out.stderr
    assert _turn_count(out) == 1


def test_stdin_pipe_keeps_its_first_record() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "traceview", "report", "/dev/stdin", "--format", "json"],
        input=GOOD, capture_output=True, timeout=60, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    assert _turn_count(proc) == 1
    assert orjson.loads(proc.stdout)["turns"][0]["input_tokens"] == 7


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_endless_devices_end_with_a_message(device: str) -> None:
    out = traceview("report", device, timeout=60)
    assert_no_traceback(out)
    assert out.returncode in (1, 2)
    assert out.stderr.strip()


def test_fifo_with_no_writer_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    out = traceview("report", str(fifo), timeout=60)
    assert_no_traceback(out)
    assert out.returncode == 2
    assert b"pipe.jsonl" in out.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every directory")
def test_unreadable_subdirectory_is_reported(tmp_path: Path) -> None:
    (tmp_path / "ok.jsonl").write_bytes(GOOD)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "hidden.jsonl").write_bytes(GOOD)
    locked.chmod(0)
    try:
        out = traceview("report", str(tmp_path), "--format", "json")
    finally:
        locked.chmod(stat.S_IRWXU)
    assert_no_traceback(out)
    assert out.returncode == 1
    assert b"locked" in out.stdout + out.stderr


def test_unreadable_subdirectory_is_a_problem_even_as_root(tmp_path: Path, monkeypatch) -> None:
    """Root lists every directory, so the permission is denied by the walk itself here: the
    sub-directory is named as a problem and the readable capture is still read."""
    (tmp_path / "ok.jsonl").write_bytes(GOOD)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "hidden.jsonl").write_bytes(GOOD)
    real = os.scandir

    def scandir(path=".", *args, **kwargs):
        if os.fspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(locked))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    a = analyze([str(tmp_path)])
    assert [t.line for t in a.turns] == [1]
    assert any("locked" in p.message or "locked" in (p.source or "") for p in a.problems)


def test_empty_directory_is_one_line(tmp_path: Path) -> None:
    for args in (["report", str(tmp_path)], [str(tmp_path)]):
        out = traceview(*args)
        assert_no_traceback(out)
        assert out.returncode == 2
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr


# Past the JSON writer's batches, each with a part batch last: 10 of 64 rows and 10 rows,
# 81 of 8 conversations and 2; one markdown chunk per conversation.
TINY_LINES = 650


def test_many_tiny_lines_stream(tmp_path: Path) -> None:
    """A capture of many one-line requests (each its own conversation) is written whole in
    every format: no turn lost between the writer's batches, nothing raised."""
    n = TINY_LINES
    cap = tmp_path / "tiny.jsonl"
    cap.write_bytes(b'{"dir":"req","body":{"model":"m","input":"x"}}\n' * n)
    outs = {}
    for fmt in ("text", "markdown", "json"):
        out = traceview("report", str(cap), "--format", fmt, timeout=120)
        assert_no_traceback(out)
        assert out.returncode in (0, 1)
        outs[fmt] = out.stdout.decode()
    text = outs["text"].splitlines()
    assert text[0] == f"traceview · {cap} · {n:,} turns · {n:,} conversations"
    assert [line.split(" ·")[0] for line in text if line.startswith("stateless ")] == [
        f"stateless turn-{i}" for i in range(1, n + 1)]
    assert outs["markdown"].count("| request_only |") == n
    assert f"**Totals:** {n} turns," in outs["markdown"]
    doc = orjson.loads(outs["json"])
    assert [t["index"] for t in doc["turns"]] == list(range(1, n + 1))
    assert len(doc["conversations"]) == n
