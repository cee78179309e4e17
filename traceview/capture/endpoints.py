"""Which API a recorded call went to, from its endpoint or (when absent) its body."""

from __future__ import annotations

import re
from typing import Any

_CONV_IN_PATH = re.compile(r"/conversations/([^/?]+)")
_RESP_IN_PATH = re.compile(r"/responses/([^/?]+)")


def split_endpoint(endpoint: str) -> tuple[str, str, str]:
    """'GET /v1/x?y=1' -> ('GET', '/v1/x', 'y=1'); a bare path is taken as POST."""
    method, _, rest = endpoint.strip().partition(" ")
    if not rest:
        method, rest = "POST", method
    path, _, query = rest.partition("?")
    if "://" in path:  # a full URL: keep only its path
        path = "/" + path.split("://", 1)[1].partition("/")[2]
    return method.upper(), path, query


def turn_api(method: str, path: str) -> str | None:
    """'responses' | 'chat' | 'compact' for a model call, None for any other exchange."""
    if method != "POST":
        return None
    p = path.rstrip("/")
    if p.endswith("/responses/compact"):
        return "compact"
    if p.endswith("/responses") or p == "responses":
        return "responses"
    if p.endswith("/chat/completions"):
        return "chat"
    return None


def api_from_body(body: Any) -> str | None:
    """Sniff the API of an unlabelled request body (docs/openai-wire.md §6)."""
    if not isinstance(body, dict):
        return None
    if "messages" in body:
        return "chat"
    if ("input" in body or "model" in body or "previous_response_id" in body
            or "conversation" in body or "prompt" in body):
        return "responses"
    return None


def api_from_response(body: Any) -> str | None:
    if not isinstance(body, dict):
        return None
    obj = body.get("object")
    if obj == "response":
        return "responses"
    if obj == "chat.completion":
        return "chat"
    if obj == "response.compaction":
        return "compact"
    return None


def ids_in_path(path: str) -> tuple[str | None, str | None]:
    """(conversation id, response id) named by a path, if any."""
    c = _CONV_IN_PATH.search(path)
    r = _RESP_IN_PATH.search(path)
    rid = r.group(1) if r and r.group(1) not in ("compact",) else None
    return (c.group(1) if c else None), rid


# Another provider's traffic, read as a capture of OpenAI's, would pass as zero turns or as
# wrong numbers: each shape below is named so the reader can say what the capture holds.
ANTHROPIC, GEMINI, BEDROCK = "Anthropic Messages", "Gemini generateContent", \
    "Bedrock invoke/converse"
_GEMINI_PATH = re.compile(r":(stream)?generatecontent$", re.IGNORECASE)
_BEDROCK_PATH = re.compile(r"/model/[^/]+/(invoke|invoke-with-response-stream|converse|"
                           r"converse-stream)$")
_ANTHROPIC_REQUEST_KEYS = ("anthropic_version", "system", "stop_sequences", "top_k")


def foreign_traffic(path: str | None, headers: Any, body: Any, side: str) -> str | None:
    """The name of the other provider whose traffic a record is ("Anthropic Messages"…),
    or None when it may be OpenAI's: by path, then provider headers, then the body's
    shape (a `req` or `res` body, per `side`)."""
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
    if not isinstance(body, dict):
        return None
    return _request_shape(body) if side == "req" else _response_shape(body)


def _request_shape(body: dict[str, Any]) -> str | None:
    """Another provider's request body (an OpenAI request never carries these keys)."""
    if isinstance(body.get("contents"), list) and "messages" not in body \
            and "input" not in body:
        return GEMINI
    if "inferenceConfig" in body or "modelId" in body:
        return BEDROCK
    if isinstance(body.get("messages"), list) and any(
            k in body for k in _ANTHROPIC_REQUEST_KEYS):
        return ANTHROPIC
    return None


def _response_shape(body: dict[str, Any]) -> str | None:
    """Another provider's response body."""
    if body.get("type") == "message" and isinstance(body.get("content"), list) \
            and "stop_reason" in body:
        return ANTHROPIC
    if isinstance(body.get("candidates"), list) and "object" not in body:
        return GEMINI
    if "stopReason" in body and isinstance(body.get("output"), dict):
        return BEDROCK
    return None


def foreign_message(name: str) -> str:
    """The one problem a capture of another provider's traffic gets."""
    return (f"{name} traffic: traceview reads OpenAI captures (Responses, Chat Completions); "
            "this record and every later one like it are not read as turns")
