"""Replay fidelity from the capture alone: the verdicts and reasons a user relies on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.builders import message, req, res, response, write
from traceview.analysis import analyze
from traceview.analysis.hosted import fidelity as fid
from traceview.analysis.hosted.canonical import canonical, digest
from traceview.capture.capture import Capture

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def _verdicts(path: Path) -> list[dict]:
    return analyze(str(path)).to_report()["fidelity"]["verdicts"]


def test_samples_verdicts_and_reasons() -> None:
    [claims] = _verdicts(SAMPLES / "claims.jsonl")
    assert (claims["status"], claims["reason"]) == ("fails", "evidence_missing")
    [owned] = _verdicts(SAMPLES / "claims_owned_state.jsonl")
    assert owned["status"] == "replays" and owned["mode"] == "owned"
    assert owned["rebuilt_sha256"] == owned["received_sha256"]
    [long] = _verdicts(SAMPLES / "long_conversation.jsonl")
    assert (long["status"], long["reason"]) == ("fails", "compaction")
    assert "turn 8" in long["detail"]
    # hosted, evidence captured: nothing local says no, but only the provider can say yes
    [incl] = _verdicts(SAMPLES / "claims_included.jsonl")
    assert (incl["status"], incl["reason"]) == ("unverified", "no_provider_copy")


def test_score_counts_only_conversations_that_replay() -> None:
    fid = analyze(str(SAMPLES / "service_day.jsonl")).to_report()["fidelity"]
    assert fid["conversations"] == 7 and fid["replay"] == 4 and fid["score_pct"] == 57.1
    assert fid["by_reason"] == {"no_provider_copy": 2, "compaction": 1, "replays": 4}


def test_a_recorded_input_items_listing_is_what_the_model_received() -> None:
    [v] = _verdicts(REAL / "dotnet_function_call_previd_input_items.jsonl")
    assert v["mode"] == "hosted" and v["status"] == "replays"
    assert v["received_from"] == "provider input_items (capture)"
    assert v["rebuilt_sha256"] == v["received_sha256"]


def _owned(tmp_path: Path, second_input: list[dict]) -> Path:
    first = [{"role": "user", "content": "hello"}]
    return write(tmp_path / "o.jsonl", [
        req({"model": "gpt-4o-mini", "input": first}),
        res(response("r1", 100, 10, output=[message("hi there", "m1")])),
        req({"model": "gpt-4o-mini", "input": second_input}),
        res(response("r2", 130, 10, output=[message("ok", "m2")])),
    ])


def test_owned_state_replays_when_the_final_request_extends_the_history(tmp_path: Path) -> None:
    full = [{"role": "user", "content": "hello"},
            {"id": "m1", "type": "message", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "hi there", "annotations": []}]},
            {"role": "user", "content": "and then?"}]
    [v] = _verdicts(_owned(tmp_path, full))
    assert v["status"] == "replays" and v["rebuilt_items"] == 3


def test_owned_state_with_edited_history_does_not_replay(tmp_path: Path) -> None:
    edited = [{"role": "user", "content": "hello"},
              {"role": "assistant", "content": "hi THERE"},  # the application rewrote it
              {"role": "user", "content": "and then?"}]
    [v] = _verdicts(_owned(tmp_path, edited))
    assert (v["status"], v["reason"]) == ("fails", "edited_history")
    assert "item 1" in v["detail"] and v["rebuilt_sha256"] != v["received_sha256"]


def test_encrypted_reasoning_and_outside_capture(tmp_path: Path) -> None:
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": []}
    p = write(tmp_path / "r.jsonl", [
        req({"model": "o4-mini", "input": "q1", "previous_response_id": "resp_elsewhere"}),
        res(response("r1", 100, 10, output=[reasoning, message("a", "m1")])),
        req({"model": "o4-mini", "input": "q2", "previous_response_id": "r1"}),
        res(response("r2", 130, 10)),
    ])
    [v] = _verdicts(p)
    assert (v["status"], v["reason"]) == ("fails", "encrypted_reasoning")
    p2 = write(tmp_path / "o.jsonl", [
        req({"model": "gpt-4o-mini", "input": "q1", "previous_response_id": "resp_elsewhere"}),
        res(response("r1", 100, 10)),
        req({"model": "gpt-4o-mini", "input": "q2", "previous_response_id": "r1"}),
        res(response("r2", 130, 10)),
    ])
    [v2] = _verdicts(p2)
    assert (v2["status"], v2["reason"]) == ("fails", "outside_capture")
    assert "resp_elsewhere" in v2["detail"]


def test_canonical_form_ignores_ids_status_and_presentation_but_not_text() -> None:
    a = [{"role": "user", "content": "hi"}]
    b = [{"id": "msg_9", "type": "message", "role": "user", "status": "completed",
          "content": [{"type": "input_text", "text": "hi", "annotations": []}]}]
    assert canonical(a) == canonical(b) and digest(a) == digest(b)
    assert digest(a) != digest([{"role": "user", "content": "hi!"}])
    assert canonical(a) == (b'[{"content":[{"text":"hi","type":"text"}],"role":"user",'
                            b'"type":"message"}]')


def test_compare_reports_fidelity_per_arm() -> None:
    from traceview.analysis.compare_arms import arm_from_capture

    ab = SAMPLES / "ab"
    a = arm_from_capture("A", [str(ab / "A.jsonl")]).fidelity
    b = arm_from_capture("B", [str(ab / "B.jsonl")]).fidelity
    # the owned arm keeps its passages in the transcript it resends: every conversation replays
    assert (a["score_pct"], a["by_reason"]) == (100.0, {"replays": 16})
    # the hosted arm cannot be confirmed without the provider's input_items
    assert b["score_pct"] == 0.0
    assert b["by_reason"] == {"no_provider_copy": 14, "evidence_missing": 2}
    assert a["status"] == "100 % replay (16/16, capture only)"



def test_usage_that_contradicts_itself_invents_no_deposit(capsys) -> None:
    """Cached tokens above input tokens, reasoning above output (tests/fixtures/
    contradicting_usage.jsonl). Read as given, turn 1's visible output was 200 - 70,000, so
    turn 2 "expected" a negative input and was marked a deposit that fidelity named
    ("context entered before turn 2 with no request or hosted call"); before that,
    `traceview fidelity` crashed formatting its count. A part larger than its whole cannot
    be: what it would decide is unknown (turn 1's cost, turn 2's expected input), no
    marker is made of it, and both lines are problems that say so."""
    from traceview.cli import main

    rc = main(["fidelity", str(REAL.parent / "contradicting_usage.jsonl")])
    captured = capsys.readouterr()
    assert rc == 1  # the conversation is not verified
    assert "context entered" not in captured.out
    assert ("usage.input_tokens_details.cached_tokens is 128: more than input_tokens (127); "
            "the turn's cost is unknown") in captured.err
    a = analyze(str(REAL.parent / "contradicting_usage.jsonl"))
    assert [(t.expected_input, t.markers) for t in a.turns] == [
        (None, ["tool_offered_unused"]), (None, ["tool_offered_unused"])]
    assert [p.message for p in a.problems] == [
        "usage.input_tokens_details.cached_tokens is 128: more than input_tokens (127); the "
        "turn's cost is unknown",
        "usage.output_tokens_details.reasoning_tokens is 70000: more than output_tokens (200); "
        "the next turn's expected input is unknown"]
    assert a.turns[0].cost_usd is None


REASONING = {"id": "rs_1", "type": "reasoning", "summary": []}
SEALED = {**REASONING, "encrypted_content": "gAAA"}
COMPACTION = {"id": "cmp_1", "type": "compaction", "encrypted_content": "gAAB"}


def _stream(body: dict[str, Any]) -> dict[str, Any]:
    """A streamed response: no body, the whole response in its terminal event."""
    return {"dir": "res", "elapsed_ms": 900, "events": [
        {"type": "response.created", "response": {**body, "output": [], "status": "in_progress"}},
        {"type": "response.output_item.done", "item": message("partial")},
        {"type": "response.completed", "response": body}]}


def _chain(first_input: Any, first_output: list[Any], streamed: bool = False,
           ) -> list[dict[str, Any]]:
    body = response("r1", 100, 10, output=first_output)
    return [
        req({"model": "o4-mini", "input": first_input, "store": True}),
        _stream(body) if streamed else res(body),
        req({"model": "o4-mini", "input": "q2", "previous_response_id": "r1"}),
        res(response("r2", 130, 10)),
        req({"model": "o4-mini", "input": "q3", "previous_response_id": "r2"}),
        res(response("r3", 160, 10)),
    ]


ASK = [{"role": "user", "content": "q1"}]


def _chained_input(item: dict[str, Any]) -> list[dict[str, Any]]:
    """_chain with `item` sent in the second (chained) turn's input."""
    records = _chain("q1", [message("a1")])
    records[2]["body"]["input"] = [{"role": "user", "content": "q2"}, item]
    return records


CASES = {
    # name: (records, the reason the general path gives)
    "plain": (_chain("q1", [message("a1")]), "no_provider_copy"),
    "sealed reasoning out": (_chain("q1", [SEALED, message("a1")]), "no_provider_copy"),
    "sealed reasoning in": (_chain([*ASK, SEALED], [message("a1")]), "no_provider_copy"),
    "bare reasoning out": (_chain("q1", [REASONING, message("a1")]), "encrypted_reasoning"),
    "bare reasoning in": (_chain([*ASK, REASONING], [message("a1")]), "encrypted_reasoning"),
    "bare reasoning streamed": (_chain("q1", [REASONING, message("a1")], streamed=True),
                                "encrypted_reasoning"),
    "sealed reasoning streamed": (_chain("q1", [SEALED, message("a1")], streamed=True),
                                  "no_provider_copy"),
    "bare reasoning in chained": (_chained_input(REASONING), "encrypted_reasoning"),
    "sealed reasoning in chained": (_chained_input(SEALED), "no_provider_copy"),
    "compaction in": (_chain([COMPACTION, *ASK], [message("a1")]), "compaction"),
    "compaction out": (_chain("q1", [COMPACTION, message("a1")]), "compaction"),
}


def _assessed(path: Path) -> tuple[Any, int]:
    """(the capture's verdicts, how many records `assess` read to make them)."""
    a = analyze(str(path))
    reads = []
    real = Capture.read

    def read(self: Any, ref: Any) -> Any:
        reads.append(ref)
        return real(self, ref)

    Capture.read = read  # type: ignore[method-assign]
    try:
        return fid.assess(a, objects=a.objects), len(reads)
    finally:
        Capture.read = real  # type: ignore[method-assign]


@pytest.mark.parametrize("name", list(CASES))
def test_a_hosted_chain_without_a_provider_copy_gets_the_first_reason(
        tmp_path: Path, name: str) -> None:
    """Reasoning held by id only, or a compaction item, in a record: its reason; else
    unverified, settled from the turns without a body read, its hash made when read."""
    records, reason = CASES[name]
    f, read = _assessed(write(tmp_path / "c.jsonl", records))
    [v] = f.verdicts
    assert v.reason == reason
    if reason == "no_provider_copy":
        assert read == 0
        # 3 inputs and 2 outputs (not the final's), and a sealed reasoning item
        assert v.rebuilt_items == 5 + ("sealed" in name) and v.rebuilt_sha256


def test_a_settled_verdicts_line_reads_no_body(tmp_path: Path) -> None:
    """The conversations screen shows each verdict's line: no rebuild made for it."""
    a = analyze(str(write(tmp_path / "c.jsonl", CASES["plain"][0])))
    f = fid.assess(a, objects=a.objects)
    made = []
    real = fid._rebuilt_hosted
    fid._rebuilt_hosted = lambda *x: made.append(x) or real(*x)  # type: ignore[assignment]
    try:
        v = f.verdict(a.conversations[0].key)
        assert v is not None and v.line().startswith("unverified: ") and made == []
        assert v.to_dict()["rebuilt_sha256"] is not None and len(made) == 1
    finally:
        fid._rebuilt_hosted = real  # type: ignore[assignment]


def test_each_conversations_verdict_is_found_by_its_key_in_any_order(tmp_path: Path) -> None:
    """The conversations screen asks for every verdict by key: in any order, the same
    verdicts."""
    from tests.shapes import hosted

    path = tmp_path / "hosted.jsonl"
    hosted.generate(path, 10**12, lines=1500)
    a = analyze(str(path))
    f = fid.assess(a, objects=a.objects)
    want = {v.conversation: v.to_dict() for v in f.verdicts}
    keys = [c.key for c in a.conversations]
    assert len(want) > 20 and set(want) <= set(keys)
    for order in (keys, keys[::-1], keys[1::2] + keys[::2], keys):
        got = {k: v.to_dict() for k in order if (v := f.verdict(k)) is not None}
        assert got == want
    assert f.verdict("no such conversation") is None


def test_a_rebuild_that_fails_when_read_leaves_the_hash_unknown(tmp_path: Path) -> None:
    """Made when read, outside the load's safety net: a failure leaves the hash unknown
    and the verdict (settled without it) whole, instead of stopping the writer."""
    a = analyze(str(write(tmp_path / "c.jsonl", CASES["plain"][0])))
    [v] = fid.assess(a, objects=a.objects).verdicts

    def fails() -> Any:
        raise RecursionError("a shape nothing anticipated")

    v._rebuild = fails
    d = v.to_dict()
    assert (d["rebuilt_sha256"], d["rebuilt_items"]) == (None, None)
    assert (d["status"], d["reason"]) == ("unverified", "no_provider_copy")
