"""A streamed Chat Completions response reads as its non-streamed body would (issue 30):
finish reasons per choice, the system fingerprint, a `length` choice incomplete."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.builders import req, write
from traceview.analysis import analyze

ASK = {"model": "gpt-4o-mini", "stream": True, "n": 2,
       "stream_options": {"include_usage": True},
       "messages": [{"role": "user", "content": "Two haiku about rain"}]}


def chunk(choices: list[dict[str, Any]], usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600,
            "model": "gpt-4o-mini-2024-07-18", "system_fingerprint": "fp_7a5b1e2c",
            "choices": choices, "usage": usage}


def delta(index: int, text: str | None, finish: str | None = None) -> dict[str, Any]:
    return {"index": index, "delta": {} if text is None else {"content": text},
            "finish_reason": finish}


def stream(finishes: tuple[str | None, str | None], usage: bool = True) -> dict[str, Any]:
    events = [chunk([delta(0, "Soft rain"), delta(1, "Grey")]),
              chunk([delta(0, " on tin", finishes[0]), delta(1, " skies", finishes[1])])]
    if usage:
        events.append(chunk([], {"prompt_tokens": 12, "completion_tokens": 30,
                                 "total_tokens": 42}))
    return {"dir": "res", "elapsed_ms": 900, "events": events}


def test_a_streamed_chat_response_has_its_finish_reasons_and_fingerprint(
        tmp_path: Path) -> None:
    path = write(tmp_path / "chat.jsonl", [req(ASK, endpoint="POST /v1/chat/completions"),
                                           stream(("stop", "length"))])
    [t] = analyze(str(path)).turns
    assert t.finish_reasons == ["stop", "length"]
    assert t.system_fingerprint == "fp_7a5b1e2c"
    assert t.status == "incomplete"
    assert t.incomplete_reason == "max_output_tokens (1 of 2 choices)"
    assert (t.input_tokens, t.output_tokens) == (12, 30)


def test_a_chat_stream_with_every_choice_stopped_is_complete(tmp_path: Path) -> None:
    path = write(tmp_path / "chat.jsonl", [req(ASK, endpoint="POST /v1/chat/completions"),
                                           stream(("stop", "stop"), usage=False)])
    [t] = analyze(str(path)).turns
    assert t.status == "completed" and t.finish_reasons == ["stop", "stop"]
    assert t.input_tokens is None  # no usage chunk: unknown, not 0


def test_a_chat_stream_cut_before_any_choice_finished_is_not_complete(tmp_path: Path) -> None:
    path = write(tmp_path / "chat.jsonl", [req(ASK, endpoint="POST /v1/chat/completions"),
                                           stream((None, None), usage=False)])
    [t] = analyze(str(path)).turns
    assert t.status != "completed" and "stream_cut" in t.markers


def test_streamed_tool_calls_are_assembled_and_a_wild_index_costs_nothing(
        tmp_path: Path) -> None:
    def call(index: object, **fn: str) -> dict[str, Any]:
        return {"index": 0, "delta": {"tool_calls": [{"index": index, "function": fn}]},
                "finish_reason": None}
    events = [chunk([call(0, name="get_weather", arguments="{\"ci")]),
              chunk([call(0, arguments="ty\":\"Paris\"}")]),
              chunk([call(10**12, name="x")]),  # a hostile index: one more call, no gap
              chunk([delta(0, None, "tool_calls")])]
    ask = {**ASK, "n": 1}
    path = write(tmp_path / "calls.jsonl", [req(ask, endpoint="POST /v1/chat/completions"),
                                            {"dir": "res", "events": events}])
    [t] = analyze(str(path)).turns
    assert t.status == "completed"
    assert [a["name"] for a in t.action_items] == ["get_weather", "x"]
