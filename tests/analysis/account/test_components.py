"""Each component kind of the input account, on crafted request bodies."""

from __future__ import annotations

from typing import Any

from tests.analysis.account.helpers import png_url
from traceview.analysis.account import account

EVERYTHING: dict[str, Any] = {
    "model": "gpt-4o", "instructions": "Be terse.", "previous_response_id": "resp_0",
    "input": [
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "xx"},
        {"role": "user", "content": [
            {"type": "input_text", "text": "What is in this image?"},
            {"type": "input_image", "image_url": png_url(1024, 1024)},
            {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "low"},
            {"type": "input_image", "image_url": "https://example.com/b.png"},
            {"type": "input_file", "file_id": "file_1"}]},
        {"type": "function_call", "call_id": "c1", "name": "get_weather",
         "arguments": "{\"city\":\"Paris\"}"},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
        {"type": "item_reference", "id": "msg_9"},
        {"type": "reasoning", "id": "rs_1", "encrypted_content": "xx", "summary": []},
    ],
    "tools": [
        {"type": "function", "name": "get_weather", "description": "Weather for a city",
         "parameters": {"type": "object", "required": ["city"], "properties": {
             "city": {"type": "string"}, "unit": {"type": "string", "enum": ["C", "F"]}}}},
        {"type": "file_search", "vector_store_ids": ["vs_1"]},
        {"type": "mcp", "server_label": "deepwiki"}],
    "text": {"format": {"type": "json_schema", "name": "answer", "strict": True, "schema": {
        "type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
        "additionalProperties": False}}},
    "prompt": {"id": "pmpt_1", "version": "2", "variables": {"city": "Paris"}},
}
FILE_SEARCH_RAN = {"output": [{"type": "file_search_call", "id": "fs_1"}],
                   "created_at": 1760000000}


def lines(body: dict[str, Any], **kw: Any) -> list[tuple[str, str, int | None, str]]:
    acc = account(body, **kw)
    return [(c.component, c.name, c.tokens, c.basis) for c in acc.components]


def test_every_component_kind_is_listed_in_request_order() -> None:
    assert lines(EVERYTHING, response_body=FILE_SEARCH_RAN) == [
        ("request", "framing", 3, "known"),
        ("carried", "resp_0", None, "unknown"),
        ("instructions", "instructions", 7, "known"),
        ("tools", "functions namespace", 5, "known"),
        ("tools", "get_weather", 34, "known"),
        ("tools", "file_search", None, "unknown"),
        ("tools", "mcp:deepwiki", None, "unknown"),
        ("response_format", "answer", 22, "known"),
        ("prompt", "pmpt_1@2", None, "unknown"),
        ("prompt_variable", "city", 1, "known"),
        ("compaction", "cmp_1", None, "unknown"),
        ("message", "user", 10, "known"),
        ("image", "user #1 input_image", 765, "estimated"),
        ("image", "user #2 input_image", 85, "estimated"),
        ("image", "user #3 input_image", None, "unknown"),
        ("file", "user #4 input_file", None, "unknown"),
        ("function_call", "get_weather", 12, "known"),
        ("function_call_output", "get_weather", 14, "known"),
        ("item_reference", "msg_9", None, "unknown"),
        ("reasoning", "rs_1", None, "unknown"),
        ("hosted_pass", "file_search_call", None, "unknown"),
    ]


def test_unknown_components_make_expected_none_never_zero() -> None:
    acc = account(EVERYTHING, response_body=FILE_SEARCH_RAN)
    assert acc.expected is None
    assert acc.known_tokens == 958
    assert acc.basis == "unknown"
    assert all(c.reason for c in acc.unknown)
    assert (acc.encoding, acc.family) == ("o200k_base", "gpt-4o")
    assert acc.to_dict()["components"][1] == {
        "component": "carried", "name": "resp_0", "tokens": None, "basis": "unknown",
        "reason": "the conversation carried by previous_response_id is on the provider's side:"
                  " sized by difference from the previous turn", "source_turn": None}


def test_a_plain_first_turn_is_fully_known() -> None:
    acc = account({"model": "gpt-4o-mini", "input": "Hello, model!"})
    assert acc.expected == 11  # billed 11 in openai-dotnet's CanDeleteResponse record
    assert acc.basis == "known"


def test_resent_reasoning_takes_the_producing_turns_tokens() -> None:
    body = {"model": "gpt-5", "input": [
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_1", "encrypted_content": "x"},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "1"}]}
    acc = account({**body, "model": "gpt-5.5"}, item_tokens={"rs_1": (1792, 1)})
    reasoning = next(c for c in acc.components if c.component == "reasoning")
    assert (reasoning.tokens, reasoning.basis, reasoning.source_turn) == (1792, "known", 1)
    # gpt-5 (2025-08) reports in 64-token steps: the item is counted at the step's middle
    acc = account(body, item_tokens={"rs_1": (1792, 1)})
    reasoning = next(c for c in acc.components if c.component == "reasoning")
    assert (reasoning.tokens, reasoning.basis, reasoning.source_turn) == (1824, "estimated", 1)


def test_reasoning_before_the_last_user_message_is_dropped_unless_kept() -> None:
    items = [{"role": "user", "content": "a"},
             {"type": "reasoning", "id": "rs_1", "encrypted_content": "x"},
             {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]
    dropped = account({"model": "gpt-5", "input": items}, item_tokens={"rs_1": (900, 1)})
    assert [(c.tokens, c.basis) for c in dropped.components if c.component == "reasoning"] \
        == [(0, "estimated")]
    kept = account({"model": "gpt-5", "input": items, "reasoning": {"context": "all_turns"}},
                   item_tokens={"rs_1": (900, 1)})
    assert [c.tokens for c in kept.components if c.component == "reasoning"] == [900]


def test_chat_messages_tools_calls_and_schema() -> None:
    body = {"model": "gpt-4o", "messages": [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": [{"type": "text", "text": "Weather?"},
                                     {"type": "image_url", "image_url": {
                                         "url": png_url(512, 512), "detail": "high"}}]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "x"}}]}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {
            "type": "object", "properties": {"city": {"type": "string"}}}}}],
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "w", "schema": {"type": "object"}}}}
    assert lines(body, endpoint="POST /v1/chat/completions") == [
        ("request", "framing", 3, "known"),
        ("tools", "functions namespace", 15, "known"),
        ("tools", "get_weather", 15, "known"),
        ("response_format", "w", 20, "known"),
        ("message", "system", 7, "known"),
        ("message", "user", 6, "known"),
        ("image", "user #1 image_url", 255, "estimated"),  # 85 + 170 x 1 tile
        ("function_call", "get_weather", 13, "known"),
        ("function_call_output", "get_weather", 12, "known"),
        ("message", "user", 4, "known"),
        ("audio", "user #0 input_audio", None, "unknown"),
    ]


def test_hosted_tool_measured_on_its_family_only() -> None:
    body = {"model": "gpt-5", "input": "draw a cat", "tools": [{"type": "image_generation"}]}
    tool = [c for c in account(body).components if c.component == "tools"]
    assert [(c.name, c.tokens, c.basis) for c in tool] == [("image_generation", 342, "estimated")]
    body["model"] = "gpt-4o"
    assert [c.tokens for c in account(body).components if c.component == "tools"] == [None]


def test_turns_outside_the_calibration_are_unknown() -> None:
    tools = [{"type": "function", "name": "f", "parameters": {"type": "object"}}]
    early = account({"model": "gpt-4o", "input": "hi", "tools": tools},
                    response_body={"created_at": 1743075639})
    assert [c.component for c in early.unknown] == ["preamble"]
    mini = account({"model": "gpt-4.1-mini", "input": "hi"},
                   response_body={"created_at": 1743075639})
    assert [c.component for c in mini.unknown] == ["preamble"]
    pro = account({"model": "gpt-5.6-sol", "input": "hi", "reasoning": {"mode": "pro"}})
    assert [(c.component, c.name) for c in pro.unknown] == [("reasoning_mode", "pro")]
    search = account({"model": "gpt-4o-search-preview", "messages": [
        {"role": "user", "content": "news?"}]})
    assert [(c.component, c.name) for c in search.unknown] == [("hosted_pass", "web_search")]


def test_unknown_model_is_counted_but_estimated() -> None:
    acc = account({"model": "acme-1", "input": "hello world"})
    assert (acc.family, acc.encoding, acc.basis) == ("unknown", "o200k_base", "estimated")
    assert acc.expected == 2 + 4 + 2


def test_bad_input_never_crashes() -> None:
    for body in ({}, {"input": 5}, {"input": [1, None, {"type": "weird", "x": 1}, {}]},
                 {"messages": [None, {"role": "tool"}, {"tool_calls": [None, {}]}]},
                 {"tools": [None, {"type": "function"}, {"function": "x"}],
                  "text": {"format": {"type": "json_schema"}}, "prompt": {"variables": 3},
                  "instructions": [{"role": "developer", "content": None}]}):
        acc = account(body)
        assert acc.components[0].component == "request"
    weird = account({"input": [{"type": "weird", "x": 1}]})
    assert [(c.component, c.basis) for c in weird.components[1:]] == [("weird", "estimated")]


def test_items_before_a_compaction_item_are_not_billed() -> None:
    """A compaction item stands for everything before it (a real gpt-4.1 capture resends
    1,254 tokens of messages before one and is billed 552 in all)."""
    body = {"model": "gpt-4.1", "input": [
        {"role": "user", "content": "a long question"},
        {"role": "assistant", "content": "a long answer"},
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "x"},
        {"role": "user", "content": "and now?"}]}
    assert lines(body)[1:] == [
        ("message", "user", 0, "estimated"), ("message", "assistant", 0, "estimated"),
        ("compaction", "cmp_1", None, "unknown"), ("message", "user", 7, "known")]


def test_the_early_preamble_is_measured_on_gpt_4o_text_turns() -> None:
    """Real ruby capture (2025-03): "Hello, world!"-sized turn billed 36, the account 18 + 18."""
    early = account({"model": "gpt-4o", "input": "hi"}, response_body={"created_at": 1743075639})
    line = [c for c in early.components if c.component == "preamble"]
    assert [(c.tokens, c.basis) for c in line] == [(18, "estimated")]
    late = account({"model": "gpt-4o", "input": "hi"}, response_body={"created_at": 1743465600})
    assert not [c for c in late.components if c.component == "preamble"]


def test_code_interpreter_definition_measured_on_gpt_5() -> None:
    body = {"model": "gpt-5", "input": "x", "tools": [{"type": "code_interpreter",
                                                        "container": {"type": "auto"}}]}
    tool = [c for c in account(body).components if c.component == "tools"]
    assert [(c.name, c.tokens, c.basis) for c in tool] == [("code_interpreter", 613, "estimated")]
