"""Another provider's traffic, named: Anthropic Messages, Gemini generateContent, Bedrock.

Read as a capture of OpenAI's, such a file would pass as zero turns or as wrong numbers, so
each shape is named and the reader reports one problem for it. The signs are, in order: the
endpoint, the provider's headers, then the body — a request, a response, or a stream's
events — and each sign below is one an OpenAI record never carries. One sign is not: a
`claude-…` model with `max_tokens` and only user/assistant messages is also what an
OpenAI-compatible gateway is sent, so it counts only when no endpoint was recorded.
"""

from __future__ import annotations

import re
from typing import Any

ANTHROPIC, GEMINI, BEDROCK = "Anthropic Messages", "Gemini generateContent", \
    "Bedrock invoke/converse"
_GEMINI_PATH = re.compile(r":(stream)?generatecontent$", re.IGNORECASE)
_BEDROCK_PATH = re.compile(r"/model/[^/]+/(invoke|invoke-with-response-stream|converse|"
                           r"converse-stream)$")
# `system`, `stop_sequences`, `top_k` and `thinking` are Messages parameters, but also what
# an OpenAI SDK user passes an OpenAI-compatible server (vLLM's top_k, GLM's thinking) or
# OpenAI itself by mistake (a 400 "Unrecognized request argument"): like a claude model,
# they count only when no endpoint was recorded. `anthropic_version` is Anthropic's alone.
_ANTHROPIC_REQUEST_KEYS = frozenset({"anthropic_version"})
_ANTHROPIC_PARAMETERS = frozenset({"system", "stop_sequences", "top_k", "thinking"})
# Content block types of Anthropic's messages; OpenAI chat parts are text, image_url,
# input_audio, file and refusal.
_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking",
                               "document", "image", "server_tool_use",
                               "web_search_tool_result"})
_ANTHROPIC_EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta",
                               "content_block_stop", "message_delta", "message_stop"})
_GEMINI_REQUEST_KEYS = frozenset({"generationConfig", "systemInstruction", "safetySettings",
                                  "cachedContent"})
_BEDROCK_REQUEST_KEYS = frozenset({"inferenceConfig", "modelId", "toolConfig", "guardrailConfig",
                                   "additionalModelRequestFields"})
_BEDROCK_BLOCK_KEYS = frozenset({"toolUse", "toolResult", "reasoningContent", "cachePoint"})
_BEDROCK_EVENTS = frozenset({"messageStart", "contentBlockStart", "contentBlockDelta",
                             "contentBlockStop", "messageStop"})
# Keys only an OpenAI chat request has: with one of them a claude model went to a gateway.
_OPENAI_CHAT_KEYS = frozenset({"max_completion_tokens", "n", "response_format", "logprobs",
                               "stream_options", "frequency_penalty", "presence_penalty",
                               "seed", "store", "parallel_tool_calls", "reasoning_effort",
                               "modalities", "functions", "user"})
_EVENTS_LOOKED_AT = 8
_MESSAGES_LOOKED_AT = 4


def foreign_traffic(path: str | None, headers: Any, body: Any, side: str,
                    events: Any = None) -> str | None:
    """The name of the other provider whose traffic a record is ("Anthropic Messages"…),
    or None when it may be OpenAI's: by path (None: no endpoint was recorded), then
    provider headers, then the body's shape (a `req` or `res` body, per `side`), then a
    response's stream `events`."""
    if path:
        p = path.rstrip("/")
        if p.endswith("/v1/messages") or p == "/messages":
            return ANTHROPIC
        if _GEMINI_PATH.search(p):
            return GEMINI
        if _BEDROCK_PATH.search(p):
            return BEDROCK
    if isinstance(headers, dict):
        low = {str(k).lower() for k in headers}
        if "anthropic-version" in low:
            return ANTHROPIC
        if "x-goog-api-key" in low:
            return GEMINI
        if "x-amz-bedrock-invocation-latency" in low or "x-amzn-bedrock-input-token-count" in low:
            return BEDROCK
    if isinstance(body, dict):
        found = request_shape(body, labelled=bool(path)) if side == "req" \
            else response_shape(body)
        if found is not None:
            return found
    return stream_shape(events) if side == "res" else None


def foreign_document(doc: Any) -> str | None:
    """A line of a file that is not a capture record at all but another provider's
    request, response or stream event (a bare body or a bare stream, one per line)."""
    if not isinstance(doc, dict):
        return None
    return request_shape(doc, labelled=False) or response_shape(doc) or stream_shape([doc])


def _block_sign(body: dict[str, Any]) -> str | None:
    """Whose content blocks a chat-shaped request holds, from its first and last messages
    and its system list: every request of a conversation resends its history, so its ends
    say whose it is without walking a long one on every line."""
    messages = body["messages"]
    if len(messages) > 2 * _MESSAGES_LOOKED_AT:
        messages = messages[:_MESSAGES_LOOKED_AT] + messages[-_MESSAGES_LOOKED_AT:]
    lists = [m.get("content") for m in messages if type(m) is dict]
    lists.append(body.get("system"))
    found = None
    for content in lists:
        if type(content) is not list:
            continue  # a plain string: anyone's
        for b in content:
            if type(b) is not dict:
                continue
            if "type" not in b:  # Converse blocks are keyed by kind, with no "type"
                if "text" in b or not _BEDROCK_BLOCK_KEYS.isdisjoint(b):
                    return BEDROCK
            elif type(b["type"]) is str and b["type"] in _ANTHROPIC_BLOCKS:
                found = ANTHROPIC
    return found


def request_shape(body: dict[str, Any], *, labelled: bool = False) -> str | None:
    """Another provider's request body (an OpenAI request never carries these signs)."""
    if (isinstance(body.get("contents"), list) and "messages" not in body
            and "input" not in body) or not _GEMINI_REQUEST_KEYS.isdisjoint(body):
        return GEMINI
    if not _BEDROCK_REQUEST_KEYS.isdisjoint(body):
        return BEDROCK
    if not isinstance(body.get("messages"), list):
        return None
    sign = _block_sign(body)
    if sign is not None:
        return sign
    if not _ANTHROPIC_REQUEST_KEYS.isdisjoint(body) or (
            not labelled and not _ANTHROPIC_PARAMETERS.isdisjoint(body)):
        return ANTHROPIC
    tools = body.get("tools")
    if isinstance(tools, list) and any(type(t) is dict and "input_schema" in t for t in tools):
        return ANTHROPIC
    if not labelled and _claude_call(body):
        return ANTHROPIC
    return None


def _claude_call(body: dict[str, Any]) -> bool:
    """A Messages call by its model, with nothing of OpenAI's chat in it."""
    model = body.get("model")
    return (isinstance(model, str) and model.startswith("claude") and "max_tokens" in body
            and _OPENAI_CHAT_KEYS.isdisjoint(body)
            and all(isinstance(m, dict) and m.get("role") in ("user", "assistant")
                    for m in body["messages"]))


def response_shape(body: dict[str, Any]) -> str | None:
    """Another provider's response body."""
    if body.get("type") == "message" and isinstance(body.get("content"), list) \
            and "stop_reason" in body:
        return ANTHROPIC
    if "object" not in body and (isinstance(body.get("candidates"), list)
                                 or isinstance(body.get("usageMetadata"), dict)):
        return GEMINI
    output, usage = body.get("output"), body.get("usage")
    if isinstance(output, dict) and ("stopReason" in body or "message" in output):
        return BEDROCK
    if isinstance(usage, dict) and "inputTokens" in usage:
        return BEDROCK
    return None


def stream_shape(events: Any) -> str | None:
    """Another provider's stream, from its first events (a list of parsed events)."""
    if not isinstance(events, list):
        return None
    for event in events[:_EVENTS_LOOKED_AT]:
        if not isinstance(event, dict):
            continue
        t = event.get("type")
        if type(t) is str and t in _ANTHROPIC_EVENTS:
            return ANTHROPIC
        if not _BEDROCK_EVENTS.isdisjoint(event):
            return BEDROCK
        meta = event.get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("usage"), dict) \
                and "inputTokens" in meta["usage"]:
            return BEDROCK
        if "object" not in event and (isinstance(event.get("candidates"), list)
                                      or isinstance(event.get("usageMetadata"), dict)):
            return GEMINI
    return None


def foreign_message(name: str) -> str:
    """The one problem a capture of another provider's traffic gets."""
    return (f"{name} traffic: traceview reads OpenAI captures (Responses, Chat Completions); "
            "this record and every later one like it are not read as turns")
