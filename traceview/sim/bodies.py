"""Top-level bodies exactly as the provider writes them (key for key)."""

from __future__ import annotations

from typing import Any

MODEL_SNAPSHOTS = {
    "gpt-4.1": "gpt-4.1-2025-04-14",
    "gpt-4.1-mini": "gpt-4.1-mini-2025-04-14",
    "gpt-4o": "gpt-4o-2024-08-06",
    "gpt-4o-mini": "gpt-4o-mini-2024-07-18",
}


def resolve_model(model: str) -> str:
    return MODEL_SNAPSHOTS.get(model, model)


def echo_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A request tool as the response echoes it, with the provider's defaults filled in."""
    kind = tool.get("type")
    if kind == "file_search":
        return {
            "type": "file_search",
            "filters": tool.get("filters"),
            "max_num_results": tool.get("max_num_results", 20),
            "ranking_options": tool.get(
                "ranking_options", {"ranker": "auto", "score_threshold": 0.0}
            ),
            "vector_store_ids": tool.get("vector_store_ids", []),
        }
    if kind in ("web_search", "web_search_preview", "web_search_2025_08_26"):
        out = {"type": kind, "search_context_size": tool.get("search_context_size", "medium")}
        out["user_location"] = tool.get("user_location")
        return out
    if kind == "function":
        return {
            "type": "function",
            "description": tool.get("description"),
            "name": tool.get("name"),
            "parameters": tool.get("parameters"),
            "strict": tool.get("strict", True),
        }
    return dict(tool)


def usage(input_tokens: int, cached: int, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": cached},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }


def response(
    *,
    resp_id: str,
    request: dict[str, Any],
    created_at: int,
    completed_at: int | None,
    status: str,
    output: list[dict[str, Any]],
    usage_body: dict[str, Any] | None,
) -> dict[str, Any]:
    conversation = request.get("conversation")
    if isinstance(conversation, dict):
        conversation = conversation.get("id")
    return {
        "id": resp_id,
        "object": "response",
        "created_at": created_at,
        "status": status,
        "background": False,
        "billing": {"payer": "developer"},
        "completed_at": completed_at,
        "conversation": {"id": conversation} if conversation else None,
        "error": None,
        "frequency_penalty": 0.0,
        "incomplete_details": None,
        "instructions": request.get("instructions"),
        "max_output_tokens": request.get("max_output_tokens"),
        "max_tool_calls": request.get("max_tool_calls"),
        "model": resolve_model(str(request.get("model"))),
        "moderation": None,
        "output": output,
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "presence_penalty": 0.0,
        "previous_response_id": request.get("previous_response_id"),
        "prompt_cache_key": request.get("prompt_cache_key"),
        "prompt_cache_retention": "in_memory",
        "reasoning": {"effort": None, "summary": None},
        "safety_identifier": request.get("safety_identifier"),
        "service_tier": "default",
        "store": request.get("store", True) is not False,
        "temperature": request.get("temperature", 1.0),
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": [echo_tool(t) for t in request.get("tools") or []],
        "top_logprobs": 0,
        "top_p": request.get("top_p", 1.0),
        "truncation": request.get("truncation") or "disabled",
        "usage": usage_body,
        "user": None,
        "metadata": request.get("metadata") or {},
    }


def conversation(conv_id: str, created_at: int, metadata: dict[str, str]) -> dict[str, Any]:
    return {"id": conv_id, "object": "conversation", "created_at": created_at,
            "metadata": metadata}


def deleted(obj_id: str, kind: str) -> dict[str, Any]:
    return {"id": obj_id, "object": f"{kind}.deleted", "deleted": True}


def page(data: list[dict[str, Any]], has_more: bool) -> dict[str, Any]:
    return {
        "object": "list",
        "data": data,
        "first_id": data[0]["id"] if data else None,
        "has_more": has_more,
        "last_id": data[-1]["id"] if data else None,
    }
