"""A crafted capture of case CS-88213 with every lineage fact: citations (retrieved, not
returned, not captured, unidentified), file-search results, a web search, a forced tool
choice left unmet, sampling settings, a seed served by two backends, logprobs and a
computer call's safety check acknowledged by the next turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.builders import req, res, response, usage, write

CONV = "conv_case88213"


def _msg(text: str, annotations: list[dict[str, Any]], logprobs: Any = None) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "output_text", "text": text, "annotations": annotations}
    if logprobs is not None:
        part["logprobs"] = logprobs
    return {"id": "msg_x", "type": "message", "role": "assistant", "status": "completed",
            "content": [part]}


def _fs(call: str, results: Any) -> dict[str, Any]:
    return {"id": call, "type": "file_search_call", "status": "completed",
            "queries": ["accidental damage excess"], "results": results}


def records() -> list[dict[str, Any]]:
    tools = [{"type": "file_search", "vector_store_ids": ["vs_policy"]}]
    out: list[dict[str, Any]] = [
        {"dir": "req", "endpoint": "POST /v1/conversations",
         "body": {"metadata": {"case_id": "CS-88213"}}},
        {"dir": "res", "body": {"id": CONV, "object": "conversation", "created_at": 1_760_000_000,
                                "metadata": {"case_id": "CS-88213"}}},
        # 1: file search with results; one citation retrieved, one to a file never returned,
        # one with no file id.
        req({"model": "gpt-4o-mini", "conversation": CONV, "input": "What is the excess?",
             "tools": tools, "include": ["file_search_call.results"],
             "temperature": 0.2, "top_p": 0.9, "metadata": {"case_id": "CS-88213"}}),
        res(response("resp_1", 1200, 80, conv=CONV, output=[
            _fs("fs_1", [{"file_id": "file-policy", "filename": "policy.pdf", "score": 0.91,
                          "text": "Excess is £100", "attributes": {}}]),
            _msg("The excess is £100 [1]. See also [2] and [3].", [
                {"type": "file_citation", "file_id": "file-policy", "filename": "policy.pdf",
                 "index": 18},
                {"type": "file_citation", "file_id": "file-ghost", "filename": "ghost.pdf",
                 "index": 32},
                {"type": "file_citation", "file_id": None, "filename": "x", "index": 40}],
                logprobs=[{"token": "The", "logprob": 0.0, "bytes": [84, 104, 101],
                           "top_logprobs": []},
                          {"token": " excess", "logprob": -0.6931471805599453,
                           "bytes": [32], "top_logprobs": []}]),
        ], created_at=1_760_000_010, tools=tools)),
        # 2: file search without include: its citation cannot be checked.
        req({"model": "gpt-4o-mini", "conversation": CONV, "input": "And for theft?",
             "tools": tools, "tool_choice": "required", "seed": 7}),
        res(response("resp_2", 1500, 60, conv=CONV, output=[
            _fs("fs_2", None),
            _msg("Theft is covered [1].", [
                {"type": "file_citation", "file_id": "file-theft", "filename": "theft.pdf",
                 "index": 19}]),
        ], system_fingerprint="fp_a", created_at=1_760_000_020, tools=tools)),
        # 3: tool_choice names a function the model did not call.
        req({"model": "gpt-4o-mini", "conversation": CONV, "input": "File the claim",
             "tools": [{"type": "function", "name": "file_claim", "parameters": {}}],
             "tool_choice": {"type": "function", "name": "file_claim"},
             "reasoning": {"effort": "low"}}),
        res(response("resp_3", 1700, 20, conv=CONV, created_at=1_760_000_030)),
        # 4 (another conversation): a url citation to a page no search returned, the same
        # seed on another backend, a computer call with a safety check.
        req({"model": "gpt-4o-mini", "input": "Check the site", "seed": 7,
             "tools": [{"type": "web_search"}, {"type": "computer_use_preview"}]}),
        res(response("resp_4", 300, 40, output=[
            {"id": "ws_1", "type": "web_search_call", "status": "completed",
             "action": {"type": "search", "query": "insurer excess",
                        "sources": [{"type": "url", "url": "https://insurer.example/excess"}]}},
            _msg("Per the insurer and a blog.", [
                {"type": "url_citation", "url": "https://insurer.example/excess?utm_source=openai",
                 "title": "Excess", "start_index": 4, "end_index": 15},
                {"type": "url_citation", "url": "https://blog.example/post", "title": "Blog",
                 "start_index": 22, "end_index": 27}]),
            {"id": "cu_1", "type": "computer_call", "call_id": "call_cu1", "status": "completed",
             "action": {"type": "click", "button": "left", "x": 1, "y": 2},
             "pending_safety_checks": [{"id": "sc_1", "code": "malicious_instructions",
                                        "message": "check"}]},
        ], system_fingerprint="fp_b", created_at=1_760_000_040)),
        req({"model": "gpt-4o-mini", "previous_response_id": "resp_4", "input": [
            {"type": "computer_call_output", "call_id": "call_cu1",
             "acknowledged_safety_checks": [{"id": "sc_1"}],
             "output": {"type": "computer_screenshot", "image_url": "data:,"}}]}),
        {"dir": "res", "elapsed_ms": 500, "body": {
            "id": "resp_5", "object": "response", "status": "completed", "model": "gpt-4o-mini",
            "output": [_msg("done", [])], "usage": usage(400, 5), "previous_response_id":
            "resp_4", "created_at": 1_760_000_050}},
    ]
    return out


def write_capture(path: Path) -> Path:
    return write(path, records())
