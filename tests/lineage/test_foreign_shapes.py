"""Another provider's traffic with no endpoint and no header to name it: bare request and
response bodies, records holding a stream's events, and files whose lines are the bodies or
the stream events themselves. Each is one problem naming the provider, exit 1, no turn
(issue 35); an OpenAI-compatible gateway's labelled chat call with a claude model is not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders import write
from traceview.cli import main

ANTHROPIC, GEMINI, BEDROCK = ("Anthropic Messages", "Gemini generateContent",
                              "Bedrock invoke/converse")

A_REQ = {"model": "claude-sonnet-4-5", "max_tokens": 64,
         "messages": [{"role": "user", "content": "Hello"}]}
A_RES = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
         "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn",
         "usage": {"input_tokens": 10, "output_tokens": 3}}
A_EVENTS = [
    {"type": "message_start", "message": {**A_RES, "content": [], "stop_reason": None}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "ping"},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
    {"type": "message_stop"}]
A_TOOL_REQ = {"model": "my-deployment", "messages": [
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "w",
                                       "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                  "content": "sunny"}]}]}
G_REQ = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
         "generationConfig": {"maxOutputTokens": 10}}
G_RES = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hello"}]},
                         "finishReason": "STOP"}],
         "usageMetadata": {"promptTokenCount": 2, "candidatesTokenCount": 1},
         "modelVersion": "gemini-2.5-flash"}
B_REQ = {"messages": [{"role": "user", "content": [{"text": "Hi"}]}]}
B_RES = {"output": {"message": {"role": "assistant", "content": [{"text": "Hello"}]}},
         "usage": {"inputTokens": 2, "outputTokens": 1, "totalTokens": 3}}
B_EVENTS = [{"messageStart": {"role": "assistant"}},
            {"contentBlockDelta": {"delta": {"text": "Hi"}, "contentBlockIndex": 0}},
            {"contentBlockStop": {"contentBlockIndex": 0}},
            {"messageStop": {"stopReason": "end_turn"}},
            {"metadata": {"usage": {"inputTokens": 2, "outputTokens": 1, "totalTokens": 3}}}]
NEUTRAL_REQ = {"model": "my-deployment", "messages": [{"role": "user", "content": "Hi"}]}


def _req(body: dict[str, Any]) -> dict[str, Any]:
    return {"dir": "req", "body": body}


def _res(**what: Any) -> dict[str, Any]:
    return {"dir": "res", **what}


# records (written twice), the provider they are the traffic of
CASES: dict[str, tuple[list[Any], str]] = {
    "anthropic-bare-request": ([_req(A_REQ)], ANTHROPIC),
    "anthropic-bare-pair": ([_req(A_REQ), _res(body=A_RES)], ANTHROPIC),
    "anthropic-tool-blocks": ([_req(A_TOOL_REQ), _res(body=A_RES)], ANTHROPIC),
    "anthropic-thinking": ([_req({**NEUTRAL_REQ, "thinking": {"type": "enabled",
                                                              "budget_tokens": 1024}})],
                           ANTHROPIC),
    "anthropic-tools-input-schema": ([_req({**NEUTRAL_REQ, "tools": [
        {"name": "w", "description": "weather", "input_schema": {"type": "object"}}]})],
        ANTHROPIC),
    "anthropic-events-record": ([_req(NEUTRAL_REQ), _res(events=A_EVENTS)], ANTHROPIC),
    "anthropic-stream-lines": (A_EVENTS, ANTHROPIC),
    "anthropic-body-lines": ([A_REQ, A_RES], ANTHROPIC),
    "gemini-bare-pair": ([_req(G_REQ), _res(body=G_RES)], GEMINI),
    "gemini-usage-only": ([_res(body={"usageMetadata": {"promptTokenCount": 2}})], GEMINI),
    "gemini-events-record": ([_req(NEUTRAL_REQ), _res(events=[G_RES, G_RES])], GEMINI),
    "gemini-stream-lines": ([G_RES, G_RES, G_RES], GEMINI),
    "gemini-body-lines": ([G_REQ, G_RES], GEMINI),
    "bedrock-bare-pair": ([_req(B_REQ), _res(body=B_RES)], BEDROCK),
    "bedrock-system-list": ([_req({**B_REQ, "system": [{"text": "be brief"}]})], BEDROCK),
    "bedrock-response-only": ([_req(NEUTRAL_REQ), _res(body=B_RES)], BEDROCK),
    "bedrock-events-record": ([_req(NEUTRAL_REQ), _res(events=B_EVENTS)], BEDROCK),
    "bedrock-stream-lines": (B_EVENTS, BEDROCK),
    "bedrock-body-lines": ([B_REQ, B_RES], BEDROCK),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_unlabelled_foreign_traffic_is_named(
        case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records, name = CASES[case]
    path = write(tmp_path / "other.jsonl", records * 2)
    assert main(["report", str(path), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    foreign = [p for p in doc["problems"] if p["kind"] == "foreign_traffic"]
    assert len(foreign) == 1, doc["problems"]
    assert f"{name} traffic: traceview reads OpenAI captures" in foreign[0]["message"]
    if all("dir" in r for r in records):  # a request whose answer is foreign stays a turn
        assert all(t["markers"] == ["request_only"] for t in doc["turns"])
        assert len(doc["turns"]) <= 2
    else:
        assert doc["turns"] == []


def test_a_claude_model_through_a_labelled_chat_endpoint_is_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An OpenAI-compatible gateway serving a claude model speaks Chat Completions: with its
    endpoint recorded it is read, not taken for Anthropic's own API."""
    path = write(tmp_path / "gateway.jsonl", [
        {"dir": "req", "endpoint": "POST /v1/chat/completions", "body": A_REQ},
        {"dir": "res", "body": {"id": "c", "object": "chat.completion",
                                "model": "claude-sonnet-4-5",
                                "choices": [{"index": 0, "finish_reason": "stop",
                                             "message": {"role": "assistant",
                                                         "content": "a"}}],
                                "usage": {"prompt_tokens": 3, "completion_tokens": 1}}}])
    assert main(["report", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["turns"]) == 1 and doc["problems"] == []


def test_a_claude_model_with_openai_chat_keys_is_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "gateway.jsonl", [
        {"dir": "req", "body": {**A_REQ, "messages": [
            {"role": "system", "content": "brief"}, {"role": "user", "content": "q"}]}}])
    assert main(["report", str(path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["problems"] == []
