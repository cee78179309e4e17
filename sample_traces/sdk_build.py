"""Build provider-shaped bodies through the openai SDK's own pydantic types.

The samples must look exactly like what an application writes when it records
``resp.model_dump()``: every declared key present (mostly ``null``), ``created_at``
a float on responses, ``async_``/``schema_`` spellings. Hand-written dicts drift from
that shape, so every body here is validated by the SDK model and then dumped.
Only sample generation uses this module; traceview itself never imports openai.
"""

from __future__ import annotations

import hashlib
from typing import Any

from openai.types.chat import ChatCompletion
from openai.types.conversations import Conversation
from openai.types.responses import (
    FileSearchTool,
    FunctionTool,
    Response,
    ResponseCompactionItem,
    ResponseFileSearchToolCall,
    ResponseFunctionToolCall,
    ResponseFunctionWebSearch,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseUsage,
    WebSearchTool,
)

MODEL_ALIAS = "gpt-4o-mini"
MODEL = "gpt-4o-mini-2024-07-18"


def hex_id(prefix: str, label: str, ts: int, width: int = 50, sep: str = "_") -> str:
    """A fixed id in the provider's style: the creation time in hex, then a stable hash.

    Real ids start with the hex timestamp (``resp_68a…``); deriving the rest from a label
    keeps every regeneration byte-identical without any randomness.
    """
    digest = hashlib.sha256(f"{prefix}:{label}".encode()).hexdigest() * 2
    return f"{prefix}{sep}{ts:08x}{digest[: width - 8]}"


def alnum_id(prefix: str, label: str, width: int, sep: str = "-") -> str:
    """A fixed base62-looking id (``file-…``, ``chatcmpl-…``) derived from a label."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    n = int(hashlib.sha256(label.encode()).hexdigest(), 16)
    out = []
    for _ in range(width):
        n, r = divmod(n, 62)
        out.append(alphabet[r])
    return prefix + sep + "".join(out)


def dump(model: Any) -> dict[str, Any]:
    """``model_dump()`` as an application would call it, minus stderr noise."""
    return model.model_dump(warnings=False)


# ---------------------------------------------------------------- tools (as echoed)


def file_search_tool(vector_store_id: str) -> FileSearchTool:
    """The file_search tool as the provider echoes it (defaults filled in)."""
    return FileSearchTool(
        type="file_search",
        vector_store_ids=[vector_store_id],
        filters=None,
        max_num_results=20,
        ranking_options={"ranker": "auto", "score_threshold": 0.0},
    )


def web_search_tool() -> WebSearchTool:
    """The web_search tool as the provider echoes it."""
    return WebSearchTool(type="web_search", search_context_size="medium", user_location=None)


def function_tool(name: str, description: str, parameters: dict[str, Any]) -> FunctionTool:
    """A client-executed function tool as echoed on the response."""
    return FunctionTool(
        type="function", name=name, description=description, parameters=parameters, strict=True
    )


# ---------------------------------------------------------------- output items


def message(item_id: str, text: str, annotations: list[dict[str, Any]] | None = None,
            status: str = "completed") -> ResponseOutputMessage:
    """An assistant message with one output_text part."""
    part = ResponseOutputText(type="output_text", text=text, annotations=annotations or [],
                              logprobs=[])
    return ResponseOutputMessage(id=item_id, type="message", role="assistant", status=status,
                                 content=[part])


def file_citation(file_id: str, filename: str, index: int) -> dict[str, Any]:
    """A file_citation annotation pointing into a message's text."""
    return {"type": "file_citation", "file_id": file_id, "filename": filename, "index": index}


def url_citation(url: str, title: str, start: int, end: int) -> dict[str, Any]:
    """A url_citation annotation, always present on web-search answers."""
    return {"type": "url_citation", "url": url, "title": title, "start_index": start,
            "end_index": end}


def file_search_call(item_id: str, queries: list[str],
                     results: list[dict[str, Any]] | None = None) -> ResponseFileSearchToolCall:
    """A hosted file search; ``results`` stays None unless the request asked for it."""
    return ResponseFileSearchToolCall(id=item_id, type="file_search_call", status="completed",
                                      queries=queries, results=results)


def web_search_call(item_id: str, query: str,
                    sources: list[str] | None) -> ResponseFunctionWebSearch:
    """A hosted web search; ``sources`` appear only with include=[…action.sources]."""
    action: dict[str, Any] = {"type": "search", "query": query}
    if sources is not None:
        action["sources"] = [{"type": "url", "url": u} for u in sources]
    return ResponseFunctionWebSearch(id=item_id, type="web_search_call", status="completed",
                                     action=action)


def function_call(item_id: str, call_id: str, name: str,
                  arguments: str) -> ResponseFunctionToolCall:
    """A client-executed function call the model asked for."""
    return ResponseFunctionToolCall(id=item_id, type="function_call", status="completed",
                                    call_id=call_id, name=name, arguments=arguments)


def compaction_item(item_id: str, blob: str) -> ResponseCompactionItem:
    """A server-side compaction item (opaque encrypted summary)."""
    return ResponseCompactionItem(id=item_id, type="compaction", encrypted_content=blob)


# ---------------------------------------------------------------- responses


def usage(input_tokens: int, output_tokens: int, cached: int = 0,
          reasoning: int = 0) -> ResponseUsage:
    """Token usage with the totals derived, so they can never disagree."""
    return ResponseUsage(
        input_tokens=input_tokens,
        input_tokens_details={"cached_tokens": cached, "cache_write_tokens": 0},
        output_tokens=output_tokens,
        output_tokens_details={"reasoning_tokens": reasoning},
        total_tokens=input_tokens + output_tokens,
    )


def response(*, resp_id: str, created_at: int, output: list[Any], usage_: ResponseUsage | None,
             tools: list[Any] | None = None, status: str = "completed",
             conversation_id: str | None = None, previous_response_id: str | None = None,
             metadata: dict[str, str] | None = None, elapsed_s: int = 3,
             instructions: str | None = None, max_output_tokens: int | None = None,
             incomplete_reason: str | None = None, error: dict[str, str] | None = None,
             truncation: str = "disabled", model: str = MODEL,
             store: bool = True) -> Response:
    """A Response with the fields the provider echoes on every call filled in."""
    return Response(
        id=resp_id,
        object="response",
        created_at=created_at,
        completed_at=created_at + elapsed_s if status == "completed" else None,
        status=status,
        background=False,
        error=error,
        incomplete_details={"reason": incomplete_reason} if incomplete_reason else None,
        instructions=instructions,
        max_output_tokens=max_output_tokens,
        max_tool_calls=None,
        model=model,
        output=output,
        parallel_tool_calls=True,
        previous_response_id=previous_response_id,
        conversation={"id": conversation_id} if conversation_id else None,
        prompt_cache_key=None,
        prompt_cache_retention=None,
        reasoning={"effort": None, "summary": None},
        safety_identifier=None,
        service_tier="default",
        temperature=1.0,
        text={"format": {"type": "text"}, "verbosity": "medium"},
        tool_choice="auto",
        tools=tools or [],
        top_logprobs=0,
        top_p=1.0,
        truncation=truncation,
        usage=usage_,
        user=None,
        metadata=metadata or {},
        store=store,  # undeclared on the 3.57 model; the server sends it and it survives dumps
    )


def conversation(conv_id: str, created_at: int, metadata: dict[str, str]) -> Conversation:
    """The body ``POST /v1/conversations`` returns (created_at stays an int)."""
    return Conversation(id=conv_id, object="conversation", created_at=created_at,
                        metadata=metadata)


def chat_completion(*, cmpl_id: str, created: int, content: str, prompt_tokens: int,
                    completion_tokens: int, cached: int) -> ChatCompletion:
    """A Chat Completions answer with the usage block a 2025 gpt-4o-mini call returns."""
    return ChatCompletion(
        id=cmpl_id,
        object="chat.completion",
        created=created,
        model=MODEL,
        choices=[{
            "index": 0,
            "message": {"role": "assistant", "content": content, "refusal": None,
                        "annotations": []},
            "finish_reason": "stop",
            "logprobs": None,
        }],
        usage={
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0,
                                          "rejected_prediction_tokens": 0},
        },
        service_tier="default",
        system_fingerprint="fp_560af6e559",
    )
