"""A streamed Chat Completions response, assembled from its chunks.

A stream spreads what a non-streamed response says in one body over its chunks: each
choice's finish reason and content arrive in deltas, `system_fingerprint` on every chunk,
usage (when asked for) on the last. Assembling them into a `chat.completion` body lets the
one reader of chat bodies (response_facts) read both shapes alike: a streamed `length`
choice is then incomplete as a non-streamed one is.
"""

from __future__ import annotations

from typing import Any

CHUNK = "chat.completion.chunk"


def chat_body(events: list[Any]) -> dict[str, Any] | None:
    """The `chat.completion` body the chunks add up to, or None when there are none.

    `_cut` is set when no choice finished and no usage arrived (the stream stopped)."""
    first: dict[str, Any] | None = None
    usage = fingerprint = None
    choices: dict[int, dict[str, Any]] = {}
    for ev in events:
        if not (isinstance(ev, dict) and ev.get("object") == CHUNK):
            continue
        first = first or ev
        if isinstance(ev.get("system_fingerprint"), str):
            fingerprint = ev["system_fingerprint"]
        if isinstance(ev.get("usage"), dict):
            usage = ev["usage"]
        for ch in ev.get("choices") or ():
            if isinstance(ch, dict) and isinstance(ch.get("index", 0), int):
                _add(choices.setdefault(ch.get("index", 0), {"message": {}}), ch)
    if first is None:
        return None
    ordered = [{"index": i, "finish_reason": c.get("finish_reason"), "message": c["message"]}
               for i, c in sorted(choices.items())]
    finished = any(c["finish_reason"] for c in ordered)
    return {"object": "chat.completion", "id": first.get("id"), "model": first.get("model"),
            "created": first.get("created"), "system_fingerprint": fingerprint,
            "service_tier": first.get("service_tier"), "usage": usage, "choices": ordered,
            "_cut": not finished and usage is None}


def _add(choice: dict[str, Any], chunk: dict[str, Any]) -> None:
    """One chunk's delta into its choice: text appended, tool calls by their index."""
    if isinstance(chunk.get("finish_reason"), str):
        choice["finish_reason"] = chunk["finish_reason"]
    delta = chunk.get("delta")
    if not isinstance(delta, dict):
        return
    msg = choice["message"]
    for key in ("content", "refusal"):
        if isinstance(delta.get(key), str):
            msg[key] = msg.get(key, "") + delta[key]
    for call in delta.get("tool_calls") or ():
        if not isinstance(call, dict):
            continue
        calls = msg.setdefault("tool_calls", [])
        at = call.get("index")
        if type(at) is not int or not 0 <= at < len(calls):  # a new call (never a gap)
            at = len(calls)
            calls.append({"id": None, "type": "function", "function": {"name": "",
                                                                       "arguments": ""}})
        if isinstance(call.get("id"), str):
            calls[at]["id"] = call["id"]
        fn = call.get("function")
        if isinstance(fn, dict):
            for key in ("name", "arguments"):
                if isinstance(fn.get(key), str):
                    calls[at]["function"][key] += fn[key]
