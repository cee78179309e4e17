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


def _tool_turn(tmp_path: Path, required: object) -> Path:
    tool = {"type": "function", "name": "f", "parameters": {
        "type": "object", "properties": {"a": {"type": "string"}}, "required": required}}
    return write(tmp_path / "tool.jsonl", [
        {"dir": "req", "body": {"model": "gpt-4o-mini", "input": "hi", "tools": [tool]}},
        {"dir": "res", "body": {"id": "resp_1", "object": "response", "status": "completed",
                                "model": "gpt-4o-mini", "output": [],
                                "usage": {"input_tokens": 50, "output_tokens": 1}}}])


@pytest.mark.parametrize("required", [[["a"]], [{}], [["a"], "a"]])
def test_a_schema_requiring_what_is_not_a_name_is_still_itemised(
        required: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Found by an attack pass: `"required": [["a"]]` raised a TypeError (unhashable) in
    the tool's rendering and took every turn of the capture down with it. Only names can
    be required: the other entries require nothing, and the turn is itemised (31 expected,
    as with `["a"]`)."""
    path = _tool_turn(tmp_path, required)
    assert main(["report", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    [turn] = doc["turns"]
    assert turn["expected_input"] == 31
    assert doc["problems"] == []


def test_an_account_that_cannot_be_made_is_unknown_and_told(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the account trips on next, that turn's expected input is null and a
    problem names its line; the turn's other numbers and every other turn stand."""
    from traceview.analysis.rules.account import Accounts

    def trips(*_: object, **__: object) -> None:
        raise TypeError("unhashable type: 'list'")

    monkeypatch.setattr(Accounts, "of", trips)
    path = _tool_turn(tmp_path, ["a"])
    assert main(["report", str(path), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    [turn] = doc["turns"]
    assert (turn["expected_input"], turn["input_tokens"], turn["output_tokens"]) == (None, 50, 1)
    [problem] = doc["problems"]
    assert (problem["line"], problem["kind"]) == (1, "input_account_error")
    assert problem["message"] == ("turn 1: its input account could not be made (TypeError: "
                                  "unhashable type: 'list'); its expected input is unknown")
