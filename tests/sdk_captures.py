"""Response bodies built through the openai SDK's own types, for shapes no real capture
here holds (compaction chains, retries, screenshots, approvals, unknown items).

Every body is validated by the SDK model and dumped the way an application records
``resp.model_dump()``; an item type the SDK does not know is added after the dump, as a
newer provider would send it.
"""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from tests.builders import message, usage


def body(rid: str, inp: int | None, out: int | None, output: list[dict[str, Any]], *,
         model: str = "gpt-4.1-2025-04-14", status: str = "completed", conv: str | None = None,
         reasoning: int = 0, error: dict[str, Any] | None = None,
         **extra: Any) -> dict[str, Any]:
    """A Responses body validated by `Response` and dumped like model_dump()."""
    raw = {"id": rid, "object": "response", "created_at": 1.0, "status": status,
           "model": model, "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
           "tools": [], "usage": usage(inp, out, 0, reasoning) if inp is not None else None,
           "conversation": {"id": conv} if conv else None, "error": error,
           "incomplete_details": None, **extra}
    if raw["usage"] is not None:
        raw["usage"]["input_tokens_details"]["cache_write_tokens"] = 0
    return Response.model_validate(raw).model_dump(warnings=False)


def compaction(cid: str, blob: str) -> dict[str, Any]:
    return {"id": cid, "type": "compaction", "encrypted_content": blob}


def function_call(call_id: str, name: str, fid: str = "fc_1") -> dict[str, Any]:
    return {"id": fid, "type": "function_call", "call_id": call_id, "name": name,
            "arguments": "{}", "status": "completed"}


def code_interpreter(cid: str) -> dict[str, Any]:
    return {"id": cid, "type": "code_interpreter_call", "status": "completed",
            "code": "print(1)", "container_id": "cntr_1", "outputs": None}


def computer_call(call_id: str) -> dict[str, Any]:
    return {"id": "cu_1", "type": "computer_call", "call_id": call_id, "status": "completed",
            "action": {"type": "click", "button": "left", "x": 10, "y": 20},
            "pending_safety_checks": []}


def approval_request(rid: str) -> dict[str, Any]:
    return {"id": rid, "type": "mcp_approval_request", "name": "delete_repo",
            "arguments": "{}", "server_label": "gitmcp"}


def refusal_message() -> dict[str, Any]:
    return {"id": "msg_r", "type": "message", "role": "assistant", "status": "completed",
            "content": [{"type": "refusal", "refusal": "I can't help with that."}]}


def web_search(wid: str) -> dict[str, Any]:
    return {"id": wid, "type": "web_search_call", "status": "completed",
            "action": {"type": "search", "query": "weather", "sources": None}}


def chat(cid: str, finishes: list[str], inp: int, out: int, *,
         fingerprint: str | None = None, refusal: str | None = None) -> dict[str, Any]:
    raw = {"id": cid, "object": "chat.completion", "created": 1, "model": "gpt-4o-mini-2024-07-18",
           "choices": [{"index": i, "finish_reason": f, "logprobs": None,
                        "message": {"role": "assistant", "content": f"answer {i}",
                                    "refusal": refusal}}
                       for i, f in enumerate(finishes)],
           "usage": {"prompt_tokens": inp, "completion_tokens": out,
                     "total_tokens": inp + out},
           "system_fingerprint": fingerprint}
    return ChatCompletion.model_validate(raw).model_dump(warnings=False)


def png(width: int, height: int) -> bytes:
    """A real (tiny-bodied) PNG of the given size: header, one IDAT, end."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    raw = zlib.compress(b"\x00" * (width + 1) * 2)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def data_url(image: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64," + base64.b64encode(image).decode()


__all__ = ["body", "chat", "compaction", "message"]
