"""The capture-vs-provider diff: alignment, row kinds, reasons and the verdict."""

from __future__ import annotations

from typing import Any

from traceview.analysis.diff import diff, estimate_tokens
from traceview.analysis.transcript import CaptureItem, capture_items

INCLUDE = ["file_search_call.results", "web_search_call.action.sources",
           "code_interpreter_call.outputs"]
CHUNK = "Accidental damage is covered up to £500 with an excess of £95. " * 20


def fs_call(results: Any) -> dict[str, Any]:
    # model_dump() shape: every declared key present, most of them null
    return {"id": "fs_1", "type": "file_search_call", "status": "completed",
            "queries": ["accidental damage"], "results": results}


def answer(n: int, text: str) -> dict[str, Any]:
    return {"id": f"msg_a{n}", "type": "message", "role": "assistant", "status": "completed",
            "phase": None, "content": [{"type": "output_text", "text": text, "annotations": [],
                                        "logprobs": []}]}


def listed_user(n: int, text: str) -> dict[str, Any]:
    return {"id": f"msg_u{n}", "type": "message", "role": "user", "status": "completed",
            "content": [{"type": "input_text", "text": text}]}


RESULTS = [{"file_id": "file_1", "filename": "policy.pdf", "score": 0.9, "text": CHUNK,
            "attributes": {}}] * 3


def capture() -> list[CaptureItem]:
    return capture_items([
        (1, {"conversation": "conv_1", "input": "My washing machine broke"},
         {"output": [answer(1, "Sorry to hear that.")]}),
        (2, {"conversation": "conv_1", "input": [{"role": "user", "content": "Is it covered?"}]},
         {"output": [fs_call(None), answer(2, "Yes, up to £500.")]}),
    ])


def provider() -> list[dict[str, Any]]:
    return [listed_user(1, "My washing machine broke"), answer(1, "Sorry to hear that."),
            listed_user(2, "Is it covered?"), fs_call(RESULTS), answer(2, "Yes, up to £500.")]


def run(cap: list[CaptureItem], prov: list[dict[str, Any]], complete: bool = True) -> Any:
    return diff(cap, prov, conversation="conv_1", complete=complete, pages=1, include=INCLUDE)


def test_string_input_and_typeless_messages_become_listed_messages() -> None:
    items = capture()
    assert [(c.turn, c.side, c.item["type"]) for c in items] == [
        (1, "input", "message"), (1, "output", "message"),
        (2, "input", "message"), (2, "output", "file_search_call"), (2, "output", "message")]
    assert items[0].item["content"] == [{"type": "input_text",
                                         "text": "My washing machine broke"}]


def test_references_and_triggers_are_not_stored_items() -> None:
    items = capture_items([(1, {"input": [{"type": "item_reference", "id": "msg_x"},
                                          {"id": "msg_y"}, {"role": "user", "content": "hi"},
                                          {"type": "compaction_trigger"}]}, None)])
    assert [c.item.get("role") for c in items] == ["user"]


def test_user_messages_match_by_text_and_null_results_are_changed() -> None:
    result = run(capture(), provider())
    assert result.counts == {"same": 4, "changed": 1, "provider_only": 0, "capture_only": 0}
    changed = next(r for r in result.rows if r.kind == "changed")
    assert changed.turn == 2 and changed.item_id == "fs_1"
    assert changed.reason.startswith("results: not captured locally (null); the provider has 3 "
                                     "results, ≈ ")
    assert "include=file_search_call.results" in changed.reason
    assert changed.capture_item is not None and changed.capture_item["results"] is None
    assert changed.provider_item is not None and changed.provider_item["results"] == RESULTS
    tokens = estimate_tokens(RESULTS)
    assert f"≈ {tokens:,} tokens' worth of file-search results" in result.verdict
    assert "estimate" in result.verdict


def test_whitespace_only_difference_still_pairs_the_message() -> None:
    prov = provider()
    prov[2] = listed_user(2, "Is  it covered?")
    row = run(capture(), prov).rows[2]
    assert (row.kind, row.reason) == ("changed", "text differs in whitespace only")


def test_identical_sides_are_all_same_and_say_so() -> None:
    prov = provider()
    prov[3] = fs_call(None) | {"status": "completed"}
    result = run(capture(), prov)
    assert result.counts["same"] == 5 and not result.differs
    assert result.verdict == "The provider copy matches the capture: all 5 items are the same."


def test_items_only_the_provider_holds() -> None:
    prov = provider()
    extra = [listed_user(9, "note added by the support agent"),
             {"id": "ws_1", "type": "web_search_call", "status": "completed",
              "action": {"type": "search", "query": "excess", "sources": []}}]
    prov[2:2] = extra
    result = run(capture(), prov)
    only = [r for r in result.rows if r.kind == "provider_only"]
    assert [r.item_id for r in only] == ["msg_u9", "ws_1"]
    assert all(r.turn == 1 for r in only)  # they sit among turn 1's items
    assert "user message the capture never sent" in only[0].reason
    assert "hosted web_search_call" in only[1].reason
    assert result.verdict.startswith("The provider holds 2 items (≈ ")
    assert [r.kind for r in result.rows][:4] == ["same", "same", "provider_only", "provider_only"]


def test_compacted_items_are_capture_only() -> None:
    prov = [listed_user(1, "My washing machine broke"), listed_user(2, "Is it covered?"),
            {"id": "cmp_1", "type": "compaction", "encrypted_content": "opaque"}]
    result = run(capture(), prov)
    kinds = [(r.kind, r.item_type) for r in result.rows]
    assert kinds.count(("capture_only", "message")) == 2
    assert ("capture_only", "file_search_call") in kinds
    assert ("provider_only", "compaction") in kinds
    c_only = next(r for r in result.rows if r.kind == "capture_only")
    assert "turn 1 output" in c_only.reason and "compacted away" in c_only.reason
    assert "3 items the provider no longer holds" in result.verdict


def test_partial_copy_is_labelled_in_rows_and_verdict() -> None:
    result = run(capture(), provider()[:2], complete=False)
    assert result.counts["capture_only"] == 3
    assert all("partial" in r.reason for r in result.rows if r.kind == "capture_only")
    assert "PARTIAL" in result.verdict


def test_tool_outputs_align_by_call_id_and_content_changes_are_named() -> None:
    call = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "lookup",
            "arguments": "{}", "status": "completed", "async_": None}
    cap = capture_items([
        (1, {"input": "look it up"}, {"output": [call]}),
        (2, {"input": [{"type": "function_call_output", "call_id": "call_1", "output": "42"}]},
         {"output": [answer(2, "It is 42.")]}),
    ])
    prov = [listed_user(1, "look it up"), call | {"async_": None},
            {"id": "fco_9", "type": "function_call_output", "call_id": "call_1",
             "output": "41", "status": "completed"},
            answer(2, "It is 42, and more.")]
    result = run(cap, prov)
    assert [r.kind for r in result.rows] == ["same", "same", "changed", "changed"]
    assert result.rows[2].reason == "content differs in: output"
    assert result.rows[3].reason.startswith("text differs")
    assert "2 items differ in content." in result.verdict


def test_unrequested_gated_fields_and_statuses_do_not_count() -> None:
    reasoning_cap = {"id": "rs_1", "type": "reasoning", "summary": [],
                     "encrypted_content": "gAAA", "status": None, "content": None}
    cap = capture_items([(1, {"input": "hi"}, {"output": [
        reasoning_cap, answer(1, "hello") | {"status": "in_progress"}]})])
    prov = [listed_user(1, "hi"), {"id": "rs_1", "type": "reasoning", "summary": []},
            answer(1, "hello")]
    assert run(cap, prov).counts["same"] == 3


def test_json_document_shape() -> None:
    doc = run(capture(), provider()).to_dict()
    assert doc["schema"] == "traceview.diff/1"
    assert set(doc["counts"]) == {"same", "changed", "provider_only", "capture_only"}
    assert {"conversation", "complete", "pages", "rows"} <= set(doc)
    row = doc["rows"][3]
    assert {"kind", "turn", "reason", "capture_item", "provider_item"} <= set(row)


def test_compaction_listed_before_the_turn_input_is_the_same_item_moved() -> None:
    cmp_item = {"id": "cmp_1", "type": "compaction", "encrypted_content": "opaque"}
    cap = capture_items([(3, {"input": "Summarise"}, {"output": [cmp_item, answer(3, "ok")]})])
    prov = [cmp_item, listed_user(3, "Summarise"), answer(3, "ok")]
    result = run(cap, prov)
    assert [r.kind for r in result.rows] == ["same", "same", "same"]
    assert result.rows[0].item_id == "cmp_1" and "different position" in result.rows[0].reason
