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
