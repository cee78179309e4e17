"""A message whose content is neither text nor a list of parts (found by the structure
fuzzer: `"content": true` raised a TypeError in the account) is an unknown line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders import write
from traceview.cli import main


@pytest.mark.parametrize("content", [True, 7, {"text": "hi"}])
def test_content_of_another_type_is_unknown_not_a_crash(
        content: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "odd.jsonl", [
        {"dir": "req", "endpoint": "POST /v1/chat/completions",
         "body": {"model": "gpt-4o", "messages": [{"role": "user", "content": content}]}},
        {"dir": "res", "body": {"id": "c", "object": "chat.completion", "model": "gpt-4o",
                                "choices": [{"index": 0, "finish_reason": "stop",
                                             "message": {"role": "assistant", "content": "a"}}],
                                "usage": {"prompt_tokens": 8, "completion_tokens": 1}}}])
    assert main(["report", str(path), "--format", "json"]) in (0, 1)
    [turn] = json.loads(capsys.readouterr().out)["turns"]
    [line] = [c for c in turn["input_account"] if c["component"] == "message"]
    assert line["basis"] == "unknown" and "content is a" in line["reason"]
    assert turn["expected_input"] is None
