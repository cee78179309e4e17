"""Every real provider capture loads with the right turns, usage and item kinds."""

from __future__ import annotations

from pathlib import Path

import pytest

from traceview.analysis import analyze

REAL = Path(__file__).parent.parent / "fixtures" / "real"

# file -> (model turns, non-turn exchanges, conversation kinds)
EXPECTED = {
    "chatlas_tool_variations_stream_11turns.jsonl": (11, 0, ["stateless"] * 4),
    "dotnet_code_interpreter_files_cached.jsonl": (1, 0, ["stateless"]),
    "dotnet_conversation_item_endpoints.jsonl": (0, 5, []),
    "dotnet_file_search_results_null.jsonl": (1, 1, ["stateless"]),
    "dotnet_function_call_previd_input_items.jsonl": (2, 1, ["chain"]),
    "dotnet_input_items_multipart_pagination.jsonl": (1, 2, ["stateless"]),
    "dotnet_max_output_tokens_incomplete.jsonl": (1, 0, ["stateless"]),
    "dotnet_retrieve_delete_then_404.jsonl": (1, 3, ["stateless"]),
    "dotnet_two_turn_cross_model.jsonl": (2, 0, ["chain"]),
    "dotnet_web_search_reasoning_cached.jsonl": (1, 0, ["stateless"]),
    "dotnet_web_search_with_sources.jsonl": (1, 0, ["stateless"]),
    "ellmer_stateless_function_tools_4turns.jsonl": (4, 0, ["stateless"]),
    "llmplugin_previd_chain.jsonl": (2, 0, ["chain"]),
    "openllmetry_agents_recipe_hierarchy_stream.jsonl": (7, 0, ["stateless", "stateless"]),
    "pai_background_polling_with_tool.jsonl": (2, 3, ["stateless"]),
    "pai_chat_completions_prompt_cache.jsonl": (2, 0, ["stateless", "stateless"]),
    "pai_code_interpreter_reasoning_stream.jsonl": (1, 0, ["stateless"]),
    "pai_conversation_explicit_and_auto.jsonl": (2, 2, ["conversation"]),
    "pai_conversation_streaming.jsonl": (1, 2, ["conversation"]),
    "pai_file_search_stream.jsonl": (1, 0, ["stateless"]),
    "pai_file_search_with_results.jsonl": (1, 0, ["stateless"]),
    "pai_image_generation_jpeg.jsonl": (1, 0, ["stateless"]),
    "pai_mcp_server_tool_stream.jsonl": (1, 0, ["stateless"]),
    "pai_previd_chain_function_tools_4turns.jsonl": (4, 0, ["chain"]),
    "pai_responses_prompt_cache.jsonl": (2, 0, ["stateless", "stateless"]),
    "pai_web_search_reasoning_replay_cached.jsonl": (2, 0, ["stateless"]),
    "ruby_input_items_2025_03.jsonl": (1, 1, ["stateless"]),
    "ruby_previd_followup_2025_03.jsonl": (2, 0, ["chain"]),
}


def test_all_28_real_captures_are_covered() -> None:
    assert sorted(p.name for p in REAL.glob("*.jsonl")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_capture_loads(name: str) -> None:
    turns, exchanges, kinds = EXPECTED[name]
    a = analyze(str(REAL / name))
    assert a.problems == []
    assert len(a.turns) == turns
    assert len(a.capture.exchanges) == exchanges
    assert [c.kind for c in a.conversations] == kinds
    for t in a.turns:  # every model turn in these recordings was answered with usage
        assert t.input_tokens is not None and t.output_tokens is not None, t.index


def _one(name: str):
    return analyze(str(REAL / name))


def test_hosted_evidence_in_real_traffic() -> None:
    fs = _one("dotnet_file_search_results_null.jsonl").turns[0].hosted_calls
    assert [(c["type"], c["evidence"], c["include"]) for c in fs] == [
        ("file_search_call", "missing", "file_search_call.results")]
    got = _one("pai_file_search_with_results.jsonl").turns[0].hosted_calls[0]
    assert got["evidence"] == "captured"
    ws = _one("dotnet_web_search_with_sources.jsonl").turns[0].hosted_calls[0]
    assert ws["evidence"] == "captured"
    ci = _one("dotnet_code_interpreter_files_cached.jsonl").turns[0]
    assert [c["evidence"] for c in ci.hosted_calls] == ["missing"] * 3
    assert ci.cached_tokens == 1408
    img = _one("pai_image_generation_jpeg.jsonl").turns[0]
    assert img.hosted_calls[0]["type"] == "image_generation_call"
    assert img.reasoning_tokens == 1280
    mcp = _one("pai_mcp_server_tool_stream.jsonl").turns[0]
    assert {c["type"] for c in mcp.hosted_calls} == {"mcp_list_tools", "mcp_call"}


def test_statuses_and_streams_in_real_traffic() -> None:
    inc = _one("dotnet_max_output_tokens_incomplete.jsonl").turns[0]
    assert inc.status == "incomplete" and inc.markers == ["incomplete"]
    assert inc.incomplete_reason == "max_output_tokens"
    stream = _one("openllmetry_agents_recipe_hierarchy_stream.jsonl")
    assert sum(t.stream_events for t in stream.turns) == 765
    bg = _one("pai_background_polling_with_tool.jsonl").turns[0]
    assert bg.status == "completed" and bg.input_tokens == 51
    cross = _one("dotnet_two_turn_cross_model.jsonl").turns
    assert [t.model.split("-20")[0] for t in cross] == ["gpt-4o-mini", "o3-mini"]
    assert sum(t.reasoning_tokens for t in cross) == 64
    chat = _one("pai_chat_completions_prompt_cache.jsonl").turns
    assert [t.api for t in chat] == ["chat", "chat"] and chat[1].cached_tokens == 4012


def test_deleted_then_404_is_an_exchange_with_status() -> None:
    a = _one("dotnet_retrieve_delete_then_404.jsonl")
    assert [e.status_code for e in a.capture.exchanges][-1] == 404
    assert a.capture.exchanges[1].object == "response.deleted"
