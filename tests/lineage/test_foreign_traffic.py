"""A capture of another provider's traffic is one problem naming it, exit 1 — never an
empty success (issue 35)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders import write
from traceview.cli import main

ANTHROPIC_RES = {"id": "msg_01", "type": "message", "role": "assistant",
                 "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "Hi"}],
                 "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 3}}
CASES: dict[str, tuple[list[dict[str, Any]], str]] = {
    "anthropic-endpoint": ([
        {"dir": "req", "endpoint": "POST /v1/messages",
         "body": {"model": "claude-sonnet-4-5", "max_tokens": 64,
                  "messages": [{"role": "user", "content": "Hello"}]}},
        {"dir": "res", "body": ANTHROPIC_RES}], "Anthropic Messages"),
    "anthropic-header": ([
        {"dir": "req", "headers": {"anthropic-version": "2023-06-01"},
         "body": {"model": "claude-sonnet-4-5", "max_tokens": 64,
                  "messages": [{"role": "user", "content": "Hello"}]}},
        {"dir": "res", "body": ANTHROPIC_RES}], "Anthropic Messages"),
    "anthropic-bodies": ([
        {"dir": "req", "body": {"model": "claude-sonnet-4-5", "max_tokens": 64,
                                "system": "brief",
                                "messages": [{"role": "user", "content": "Hello"}]}},
        {"dir": "res", "body": ANTHROPIC_RES}], "Anthropic Messages"),
    "gemini": ([
        {"dir": "req", "endpoint": "POST /v1beta/models/gemini-2.5-flash:generateContent",
         "body": {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}},
        {"dir": "res", "body": {"candidates": [{"content": {"parts": [{"text": "Hello"}]}}],
                                "usageMetadata": {"promptTokenCount": 2}}}],
        "Gemini generateContent"),
    "bedrock": ([
        {"dir": "req", "endpoint": "POST /model/anthropic.claude-3/converse",
         "body": {"messages": [{"role": "user", "content": [{"text": "Hi"}]}],
                  "inferenceConfig": {"maxTokens": 10}}},
        {"dir": "res", "body": {"output": {"message": {"role": "assistant", "content": []}},
                                "stopReason": "end_turn", "usage": {"inputTokens": 2}}}],
        "Bedrock invoke/converse"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_foreign_traffic_is_one_named_problem_and_exit_1(
        case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records, name = CASES[case]
    path = write(tmp_path / "other.jsonl", records * 3)  # six lines, one problem
    assert main(["report", str(path), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["turns"] == []
    (problem,) = doc["problems"]
    assert problem["kind"] == "foreign_traffic" and problem["line"] == 1
    assert problem["message"].startswith(f"{name} traffic: traceview reads OpenAI captures")


def test_openai_chat_with_max_tokens_is_not_taken_for_anthropic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "chat.jsonl", [
        {"dir": "req", "body": {"model": "gpt-4o", "max_tokens": 9,
                                "messages": [{"role": "user", "content": "q"}]}},
        {"dir": "res", "body": {"id": "c", "object": "chat.completion", "model": "gpt-4o",
                                "choices": [{"index": 0, "finish_reason": "stop",
                                             "message": {"role": "assistant",
                                                         "content": "a"}}],
                                "usage": {"prompt_tokens": 3, "completion_tokens": 1}}}])
    assert main(["report", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["turns"]) == 1 and doc["problems"] == []
