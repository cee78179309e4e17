"""The streamed JSON report is the document `to_report()` describes, list for list.

The writer streams the lists that grow with a capture (conversations, turns, provider
objects, fidelity verdicts) in place of placeholders; a capture's own strings must not be
able to spell a placeholder and be taken for one.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson

from traceview.analysis import analyze
from traceview.report.json_out import render_json
from traceview.safety.sanitise import json_shown, visible

ROOT = Path(__file__).parent.parent.parent
# What a writer without a nonce used as placeholders, spelled whole by a hostile capture
# as the `object` of listings (exchanges are written before the objects list).
SPELLED = ("\u0000objects\u0000", "\u0000verdicts\u0000", "\u0000conversations\u0000",
           "\u0000turns\u0000")


def _hostile_copy(tmp_path: Path) -> Path:
    path = tmp_path / "claims.jsonl"
    shutil.copy(ROOT / "sample_traces/claims.jsonl", path)
    with path.open("ab") as fh:
        for i, spelled in enumerate(SPELLED):
            rid = f"rec_spell{i}"
            fh.write(orjson.dumps({"dir": "req", "id": rid, "body": None,
                                   "endpoint": "GET /v1/conversations/conv_x/items"}) + b"\n")
            fh.write(orjson.dumps({"dir": "res", "id": rid, "status_code": 200, "body": {
                "object": spelled, "data": [], "has_more": False}}) + b"\n")
    return path


def test_the_streamed_report_equals_the_whole_document(tmp_path: Path) -> None:
    path = _hostile_copy(tmp_path)
    a = analyze(str(path))
    streamed = orjson.loads(render_json(a, explain=True))
    # Every string as the boundary writes it: what the sanitiser shows of it.
    whole = orjson.loads(json_shown(orjson.dumps(a.to_report())))
    assert streamed == whole
    # Every streamed list is there, whole, in its place (pinned for the claims sample).
    assert len(streamed["conversations"]) == 1
    assert len(streamed["turns"]) == 4
    assert len(streamed["objects"]["objects"]) == len(whole["objects"]["objects"]) > 0
    assert len(streamed["fidelity"]["verdicts"]) == 1
    assert [e["object"] for e in streamed["exchanges"][-4:]] == list(map(visible, SPELLED))


def test_without_explain_a_turn_keeps_everything_but_its_sentences() -> None:
    """The default JSON report leaves out each turn's prose (`explanation`, `findings`);
    every other key of every turn, and the rest of the document, are as with --explain."""
    a = analyze(str(ROOT / "sample_traces/claims.jsonl"))
    plain, explained = orjson.loads(render_json(a)), orjson.loads(render_json(a, explain=True))
    assert explained["turns"][2]["explanation"] and explained["turns"][2]["findings"]
    for turn in explained["turns"]:
        del turn["explanation"], turn["findings"]
    assert plain == explained
    assert plain["turns"][2]["markers"] == ["deposit", "tool_offered_unused"]
    assert plain["turns"][2]["unexplained_tokens"] == 4001


def test_two_documents_written_at_once_in_one_process_are_each_their_own() -> None:
    """A library caller may stream two reports side by side (the placeholders carry one
    nonce per process): each document writes its own lists."""
    from traceview.report.json_out import iter_json

    first = analyze(str(ROOT / "sample_traces/claims.jsonl"))
    second = analyze(str(ROOT / "sample_traces/service_day.jsonl"))
    streams = [iter_json(first), iter_json(second)]
    written: list[list[bytes]] = [[], []]
    while streams[0] is not None or streams[1] is not None:
        for k, stream in enumerate(streams):
            chunk = next(stream, None) if stream is not None else None
            if chunk is None:
                streams[k] = None
            else:
                written[k].append(chunk)
    assert b"".join(written[0]) == render_json(first)
    assert b"".join(written[1]) == render_json(second)
    assert b"".join(written[0]) != b"".join(written[1])
