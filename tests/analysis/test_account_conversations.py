"""Conversations the input account relies on (issue 30): items resent by id stay in their
conversation, a chain that resends its history is not new input, a retry after a 400
that fixed the history is one turn with two attempts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tests.builders import message, req, res, response, write
from tests.fixtures_shared import run_cli
from traceview.analysis import analyze

MODEL = "gpt-4.1"
WHEN = 1767225600
CALL = {"type": "function_call", "call_id": "call_1", "name": "get_weather",
        "arguments": "{\"city\":\"Paris\"}", "id": "fc_1"}
ANSWER = {"type": "function_call_output", "call_id": "call_1", "output": "{\"temp_c\": 18}"}
ASK = {"role": "user", "content": "What is the weather in Paris?"}


def reply(rid: str, inp: int | None, out: int, **extra: Any) -> dict[str, Any]:
    return res(response(rid, inp, out, model=MODEL, created_at=WHEN, **extra))


def test_a_stateless_turn_resending_the_output_by_id_stays_in_its_conversation(
        tmp_path: Path) -> None:
    first = {"model": MODEL, "store": True, "input": [ASK]}
    # The application resends the first turn's items by reference, not as text.
    loop = {"model": MODEL, "store": True, "input": [
        {"type": "item_reference", "id": "msg_user_1"}, {"type": "item_reference", "id": "fc_1"},
        ANSWER]}
    other = {"model": MODEL, "input": [{"role": "user", "content": "Unrelated question"}]}
    recs = [req(first), reply("r1", 40, 12, output=[CALL]),
            req(loop), reply("r2", 70, 20),
            req(other), reply("r3", 20, 5)]
    t1, t2, t3 = analyze(str(write(tmp_path / "refs.jsonl", recs))).turns
    assert t2.conversation_key == t1.conversation_key
    assert t3.conversation_key != t1.conversation_key


def test_a_stateless_turn_answering_an_earlier_call_stays_in_its_conversation(
        tmp_path: Path) -> None:
    first = {"model": MODEL, "input": [ASK]}
    answer_only = {"model": MODEL, "input": [ANSWER]}
    recs = [req(first), reply("r1", 40, 12, output=[CALL]),
            req(answer_only), reply("r2", 70, 20)]
    t1, t2 = analyze(str(write(tmp_path / "answer.jsonl", recs))).turns
    assert t2.conversation_key == t1.conversation_key


def test_a_chain_resending_its_history_counts_only_the_new_message_as_new(
        tmp_path: Path) -> None:
    q1 = {"role": "user", "content": "Summarise the policy " * 20}
    a1 = {"role": "assistant", "content": "It covers flood and fire damage to the home. " * 10}
    q2 = {"role": "user", "content": "And theft?"}
    first = {"model": MODEL, "input": [q1]}
    again = {"model": MODEL, "previous_response_id": "r1", "input": [q1, a1, q2]}
    only = {"model": MODEL, "previous_response_id": "r1", "input": [q2]}
    runs = []
    for name, second in (("again", again), ("only", only)):
        recs = [req(first), reply("r1", 200, 120, output=[message(a1["content"])]),
                req(second), reply("r2", 500, 10)]
        runs.append(analyze(str(write(tmp_path / f"{name}.jsonl", recs))).turns[1])
    resent, plain = runs
    assert "history_resent" in resent.markers and "history_resent" not in plain.markers
    # The repeats are not new input, and owned state does not count them twice.
    assert resent.new_input_estimate == plain.new_input_estimate == 7
    extra = resent.request_bytes - plain.request_bytes
    assert extra == len(orjson.dumps([q1, a1])) - 1  # the items and a comma
    assert resent.owned_state_bytes == plain.owned_state_bytes


def _rejected(message_text: str) -> dict[str, Any]:
    return {"dir": "res", "status_code": 400, "elapsed_ms": 80, "body": {"error": {
        "message": message_text, "type": "invalid_request_error", "param": "input",
        "code": None}}}


def test_a_retry_that_repairs_the_history_after_a_400_is_one_turn(tmp_path: Path) -> None:
    first = {"model": MODEL, "input": [ASK]}
    # The application forgot the call's output; the provider refuses, it adds it and retries.
    broken = {"model": MODEL, "input": [ASK, CALL, {"role": "user", "content": "Thanks"}]}
    fixed = {"model": MODEL, "input": [ASK, CALL, ANSWER, {"role": "user", "content": "Thanks"}]}
    recs = [req(first), reply("r1", 40, 12, output=[CALL]),
            req(broken), _rejected("No tool output found for function call call_1."),
            req(fixed), reply("r2", 80, 9)]
    turns = analyze(str(write(tmp_path / "retry.jsonl", recs))).turns
    # The turn lists both attempts: the rejected one and the one that answered.
    assert [(t.index, t.status, len(t.attempts)) for t in turns] == [
        (1, "completed", 0), (2, "completed", 2)]
    rejected, answered = turns[1].attempts
    assert (rejected["http_status"], rejected["line"]) == (400, 3)
    assert answered["status"] == "completed"
    assert turns[1].conversation_key == turns[0].conversation_key


def test_a_request_after_a_400_that_is_another_conversation_is_its_own_turn(
        tmp_path: Path) -> None:
    broken = {"model": MODEL, "input": [ASK, CALL]}
    other = {"model": MODEL, "input": [{"role": "user", "content": "Unrelated"}]}
    recs = [req(broken), _rejected("No tool output found for function call call_1."),
            req(other), reply("r2", 20, 5)]
    turns = analyze(str(write(tmp_path / "other.jsonl", recs))).turns
    assert [(t.index, t.status, len(t.attempts)) for t in turns] == [
        (1, "failed", 0), (2, "completed", 0)]


def test_a_reusable_prompt_shows_its_variables_and_counts_them_as_new_input(
        tmp_path: Path) -> None:
    png = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42"
           "mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
    body = {"model": MODEL, "prompt": {"id": "pmpt_1", "version": "2", "variables": {
        "city": "Paris", "topic": {"type": "input_text", "text": "museums open on Monday"},
        "photo": {"type": "input_image", "image_url": png, "detail": "low"}}}}
    t = analyze(str(write(tmp_path / "prompt.jsonl", [req(body), reply("r1", 300, 10)]))
                ).turns[0]
    assert t.user_text == "city: Paris topic: museums open on Monday"
    assert t.new_input_estimate == 100  # 4-bytes estimate of the text + the image at low
    assert [m["type"] for m in t.media_input] == ["input_image"]


def test_the_context_command_sizes_the_carried_conversation_from_input_items() -> None:
    """dotnet_function_call_previd_input_items (real, MIT: tests/fixtures/real): turn 2
    continues turn 1 by previous_response_id, and the capture recorded the provider's
    input_items of turn 2's response (user message, call, output)."""
    import json
    path = Path(__file__).resolve().parents[1] / "fixtures" / "real" / \
        "dotnet_function_call_previd_input_items.jsonl"
    run = ["context", str(path), "--turn", "2", "--format", "json"]
    plain, filled = (run_cli(*run), run_cli(*run, "--items", str(path)))
    assert (plain.returncode, filled.returncode) == (0, 0), plain.stderr + filled.stderr
    plain, filled = json.loads(plain.stdout), json.loads(filled.stdout)
    [before] = [c for c in plain["input_account"] if c["component"] == "carried"]
    [after] = [c for c in filled["input_account"] if c["component"] == "carried"]
    assert (before["tokens"], before["basis"]) == (37, "estimated")  # by difference
    # Item by item: the message and the call; the 3 left are the framing of the earlier
    # turn's reply, which no item shows.
    assert (after["tokens"], after["basis"]) == (34, "known")
    assert [(c["component"], c["tokens"]) for c in filled["provider_items"]] == [
        ("message", 17), ("function_call", 17)]
    assert filled["input_tokens"] == filled["expected_input"] == 109
    assert filled["known_tokens"] == 106
    assert set(plain) < set(filled)  # keys added, none changed
