"""Routing: one HTTP request in, one provider-shaped reply out (no sockets here)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import traceview.sim.bodies as bodies
import traceview.sim.corpus as corpus
import traceview.sim.stores as stores
import traceview.sim.stream as stream
import traceview.sim.tokens as tokens
from traceview.sim.engine import Engine
from traceview.sim.items import check_include, normalize_input, render
from traceview.sim.latency import HEADER as LATENCY_HEADER
from traceview.sim.latency import LatencyModel
from traceview.sim.state import ConversationRecord, SimError, SimState


@dataclass
class Reply:
    status: int
    body: Any = None
    events: Iterator[bytes] | None = None  # SSE frames, for streams
    processing_ms: int = 50
    headers: dict[str, str] = field(default_factory=dict)


def _query_list(query: dict[str, list[str]], name: str) -> list[str]:
    return query.get(f"{name}[]", []) + query.get(name, [])


def _limit(query: dict[str, list[str]]) -> int:
    raw = (query.get("limit") or ["20"])[-1]
    try:
        limit = int(raw)
    except ValueError:
        raise SimError(400, f"Invalid 'limit': expected an integer, but got '{raw}' instead.",
                       param="limit", code="invalid_type") from None
    if limit < 1:
        raise SimError(400, "Invalid 'limit': integer below minimum value. Expected a value >= 1,"
                       f" but got {limit} instead.", param="limit", code="integer_below_min_value")
    if limit > 100:
        raise SimError(400, "Invalid 'limit': integer above maximum value. Expected a value <= "
                       f"100, but got {limit} instead.", param="limit",
                       code="integer_above_max_value")
    return limit


def paginate(items: list[dict[str, Any]], query: dict[str, list[str]]) -> dict[str, Any]:
    """Cursor pagination the provider's way: ``after`` an id, ``limit`` 1–100, desc first."""
    order = (query.get("order") or ["desc"])[-1]
    if order not in ("asc", "desc"):
        raise SimError(400, f"Invalid value: '{order}'. Supported values are: 'asc' and 'desc'.",
                       param="order", code="invalid_value")
    include = check_include(_query_list(query, "include"))
    limit = _limit(query)
    ordered = list(items) if order == "asc" else list(reversed(items))
    after = (query.get("after") or [""])[-1]
    if after:
        ids = [i.get("id") for i in ordered]
        if after not in ids:
            raise SimError(404, f"Item with id '{after}' not found.", param="after")
        ordered = ordered[ids.index(after) + 1 :]
    data = [render(i, include) for i in ordered[:limit]]
    return bodies.page(data, has_more=len(ordered) > limit)


_ROUTES: list[tuple[str, re.Pattern[str], str]] = [
    (m, re.compile(p), h)
    for m, p, h in [
        ("POST", r"/v1/responses/compact", "compact"),
        ("POST", r"/v1/responses", "create_response"),
        ("GET", r"/v1/responses/(?P<rid>[^/]+)/input_items", "input_items"),
        ("GET", r"/v1/responses/(?P<rid>[^/]+)", "get_response"),
        ("DELETE", r"/v1/responses/(?P<rid>[^/]+)", "delete_response"),
        ("POST", r"/v1/conversations", "create_conversation"),
        ("GET", r"/v1/conversations/(?P<cid>[^/]+)/items", "list_items"),
        ("POST", r"/v1/conversations/(?P<cid>[^/]+)/items", "add_items"),
        ("GET", r"/v1/conversations/(?P<cid>[^/]+)/items/(?P<iid>[^/]+)", "get_item"),
        ("DELETE", r"/v1/conversations/(?P<cid>[^/]+)/items/(?P<iid>[^/]+)", "delete_item"),
        ("GET", r"/v1/conversations/(?P<cid>[^/]+)", "get_conversation"),
        ("POST", r"/v1/conversations/(?P<cid>[^/]+)", "update_conversation"),
        ("DELETE", r"/v1/conversations/(?P<cid>[^/]+)", "delete_conversation"),
        ("POST", r"/v1/chat/completions", "chat"),
        ("POST", r"/v1/files", "create_file"),
        ("GET", r"/v1/files/(?P<fid>[^/]+)", "get_file"),
        ("DELETE", r"/v1/files/(?P<fid>[^/]+)", "delete_file"),
        ("POST", r"/v1/containers", "create_container"),
        ("GET", r"/v1/containers/(?P<cid>[^/]+)", "get_container"),
        ("DELETE", r"/v1/containers/(?P<cid>[^/]+)", "delete_container"),
        ("POST", r"/v1/vector_stores", "create_vector_store"),
        ("GET", r"/v1/vector_stores/(?P<vid>[^/]+)", "get_vector_store"),
        ("DELETE", r"/v1/vector_stores/(?P<vid>[^/]+)", "delete_vector_store"),
    ]
]


BACKGROUND_POLLS = 2  # polls a background job answers "in_progress" before its outcome


class Api:
    """The provider's HTTP surface over one :class:`SimState`."""

    def __init__(self, state: SimState, engine: Engine, latency: LatencyModel | None = None
                 ) -> None:
        self.state = state
        self.engine = engine
        self.latency = latency  # off by default: see latency.py
        # Background jobs (`background: true`): response id -> polls still answered
        # "in_progress" before the stored outcome is shown.
        self.background: dict[str, int] = {}

    def dispatch(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> Reply:
        for route_method, pattern, handler in _ROUTES:
            match = pattern.fullmatch(path)
            if match and route_method == method:
                if method == "POST" and not isinstance(body, dict):
                    raise SimError(400, "We could not parse the JSON body of your request. "
                                   "(HINT: This likely means you aren't using your HTTP library "
                                   "correctly. The OpenAI API expects a JSON payload.)")
                reply: Reply = getattr(self, handler)(query=query, body=body, **match.groupdict())
                return reply
        raise SimError(404, f"Invalid URL ({method} {path})")

    # -- responses --------------------------------------------------------------
    def create_response(self, query: dict[str, Any], body: dict[str, Any], **_: Any) -> Reply:
        outcome = self.engine.create(body)
        rendered = outcome.rendered()
        headers = ({} if self.latency is None
                   else {LATENCY_HEADER: str(self.latency.for_response(outcome.body))})
        if body.get("stream"):
            obfuscate = (body.get("stream_options") or {}).get("include_obfuscation", True)
            frames = (stream.frame(e) for e in stream.events(rendered, obfuscate is not False))
            return Reply(200, events=frames, processing_ms=outcome.processing_ms,
                         headers=headers)
        if body.get("background") is True:
            return Reply(200, self._queued(rendered), processing_ms=outcome.processing_ms,
                         headers=headers)
        return Reply(200, rendered, processing_ms=outcome.processing_ms, headers=headers)

    def _queued(self, rendered: dict[str, Any]) -> dict[str, Any]:
        """A background job's first answer: queued, no output; BACKGROUND_POLLS polls
        later the stored outcome (the engine has already run it)."""
        with self.state.lock:
            self.background[rendered["id"]] = BACKGROUND_POLLS
        return {**rendered, "background": True, "status": "queued", "output": [],
                "usage": None, "completed_at": None}

    def get_response(self, query: dict[str, Any], rid: str, **_: Any) -> Reply:
        with self.state.lock:
            record = self.state.response(rid)
            waiting = self.background.get(rid)
            if waiting:
                self.background[rid] = waiting - 1
                return Reply(200, {**record.body, "background": True, "status": "in_progress",
                                   "output": [], "usage": None, "completed_at": None})
            include = check_include(_query_list(query, "include"))
            out = [render(i, include) for i in record.body["output"]]
            if waiting is not None:
                del self.background[rid]
                return Reply(200, {**record.body, "background": True, "output": out})
            return Reply(200, {**record.body, "output": out})

    def delete_response(self, rid: str, **_: Any) -> Reply:
        with self.state.lock:
            self.state.response(rid)
            del self.state.responses[rid]
            return Reply(200, bodies.deleted(rid, "response"))

    def input_items(self, query: dict[str, Any], rid: str, **_: Any) -> Reply:
        with self.state.lock:
            return Reply(200, paginate(self.state.response(rid).input_items, query))

    def compact(self, body: dict[str, Any], **_: Any) -> Reply:
        result, ms = self.engine.compact(body)
        return Reply(200, result, processing_ms=ms)

    # -- conversations ----------------------------------------------------------
    def create_conversation(self, body: dict[str, Any], **_: Any) -> Reply:
        items = body.get("items") or []
        if len(items) > 20:
            raise SimError(400, "Invalid 'items': array too long. Expected an array with maximum "
                           f"length 20, but got an array with length {len(items)} instead.",
                           param="items", code="array_above_max_length")
        with self.state.lock:
            conv = ConversationRecord(
                id=self.state.ids.new("conv"), created_at=self.state.clock.now(),
                metadata=dict(body.get("metadata") or {}),
            )
            conv.items = normalize_input(self.state, items)[0]
            self.state.conversations[conv.id] = conv
            return Reply(200, bodies.conversation(conv.id, conv.created_at, conv.metadata))

    def get_conversation(self, cid: str, **_: Any) -> Reply:
        with self.state.lock:
            conv = self.state.conversation(cid)
            return Reply(200, bodies.conversation(conv.id, conv.created_at, conv.metadata))

    def update_conversation(self, cid: str, body: dict[str, Any], **_: Any) -> Reply:
        with self.state.lock:
            conv = self.state.conversation(cid)
            conv.metadata = dict(body.get("metadata") or {})
            return Reply(200, bodies.conversation(conv.id, conv.created_at, conv.metadata))

    def delete_conversation(self, cid: str, **_: Any) -> Reply:
        with self.state.lock:
            self.state.conversation(cid)
            del self.state.conversations[cid]
            return Reply(200, bodies.deleted(cid, "conversation"))

    def list_items(self, query: dict[str, Any], cid: str, **_: Any) -> Reply:
        with self.state.lock:
            return Reply(200, paginate(self.state.conversation(cid).items, query))

    def add_items(self, query: dict[str, Any], cid: str, body: dict[str, Any], **_: Any) -> Reply:
        include = check_include(_query_list(query, "include"))
        with self.state.lock:
            conv = self.state.conversation(cid)
            items = normalize_input(self.state, body.get("items") or [])[0]
            conv.items.extend(items)
            return Reply(200, bodies.page([render(i, include) for i in items], has_more=False))

    def get_item(self, query: dict[str, Any], cid: str, iid: str, **_: Any) -> Reply:
        include = check_include(_query_list(query, "include"))
        with self.state.lock:
            for item in self.state.conversation(cid).items:
                if item.get("id") == iid:
                    return Reply(200, render(item, include))
        raise SimError(404, f"Item with id '{iid}' not found.")

    def delete_item(self, cid: str, iid: str, **_: Any) -> Reply:
        with self.state.lock:
            conv = self.state.conversation(cid)
            kept = [i for i in conv.items if i.get("id") != iid]
            if len(kept) == len(conv.items):
                raise SimError(404, f"Item with id '{iid}' not found.")
            conv.items = kept
            return Reply(200, bodies.conversation(conv.id, conv.created_at, conv.metadata))

    # -- files and vector stores (bookkeeping for the ab runner's hosted arm) -------
    def create_file(self, body: dict[str, Any], **_: Any) -> Reply:
        return Reply(200, stores.create_file(self.state, body))

    def get_file(self, fid: str, **_: Any) -> Reply:
        return Reply(200, stores.get_object(self.state, "files", fid, "No such File object"))

    def create_container(self, body: dict[str, Any], **_: Any) -> Reply:
        return Reply(200, stores.create_container(self.state, body))

    def get_container(self, cid: str, **_: Any) -> Reply:
        return Reply(200, stores.get_object(self.state, "containers", cid, "Container not found"))

    def delete_container(self, cid: str, **_: Any) -> Reply:
        stores.delete_object(self.state, "containers", cid, "Container not found")
        return Reply(200, {"id": cid, "object": "container.deleted", "deleted": True})

    def delete_file(self, fid: str, **_: Any) -> Reply:
        return Reply(200, stores.delete_file(self.state, fid))

    def create_vector_store(self, body: dict[str, Any], **_: Any) -> Reply:
        return Reply(200, stores.create_vector_store(self.state, body))

    def get_vector_store(self, vid: str, **_: Any) -> Reply:
        return Reply(200, stores.get_vector_store(self.state, vid))

    def delete_vector_store(self, vid: str, **_: Any) -> Reply:
        return Reply(200, stores.delete_vector_store(self.state, vid))

    # -- chat completions (stateless) ---------------------------------------------
    def chat(self, body: dict[str, Any], **_: Any) -> Reply:
        messages = body.get("messages")
        if not body.get("model") or not isinstance(messages, list) or not messages:
            raise SimError(400, "Missing required parameter: 'messages'.", param="messages",
                           code="missing_required_parameter")
        prompt = tokens.PRIMING + sum(
            tokens.ITEM_OVERHEAD + tokens.count_text(m.get("content")
                                                     if isinstance(m.get("content"), str) else "")
            for m in messages if isinstance(m, dict)
        )
        last_user = next((m.get("content") for m in reversed(messages)
                          if isinstance(m, dict) and m.get("role") == "user"), "")
        text = corpus.reply_for(last_user if isinstance(last_user, str) else "")
        completion = tokens.count_text(text)
        with self.state.lock:
            chat_id = "chatcmpl-" + self.state.ids.new("c")[2:31]
            created = self.state.clock.now()
        usage = {
            "prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0,
                                          "rejected_prediction_tokens": 0},
        }
        model = bodies.resolve_model(str(body["model"]))
        ms = 300 + 4 * completion
        if body.get("stream"):
            include_usage = (body.get("stream_options") or {}).get("include_usage", False)
            return Reply(200, events=_chat_chunks(chat_id, created, model, text,
                                                  usage if include_usage else None),
                         processing_ms=ms)
        return Reply(200, {
            "id": chat_id, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text,
                                                 "refusal": None, "annotations": []},
                         "logprobs": None, "finish_reason": "stop"}],
            "usage": usage, "service_tier": "default", "system_fingerprint": None,
        }, processing_ms=ms)


def _chat_chunks(chat_id: str, created: int, model: str, text: str,
                 usage: dict[str, Any] | None) -> Iterator[bytes]:
    import json

    def chunk(delta: dict[str, Any], finish: str | None) -> bytes:
        obj = {"id": chat_id, "object": "chat.completion.chunk", "created": created,
               "model": model, "service_tier": "default", "system_fingerprint": None,
               "choices": [{"index": 0, "delta": delta, "logprobs": None,
                            "finish_reason": finish}], "usage": None}
        return b"data: " + json.dumps(obj).encode() + b"\n\n"

    yield chunk({"role": "assistant", "content": "", "refusal": None}, None)
    step = max(1, math.ceil(len(text) / 8))
    for start in range(0, len(text), step):
        yield chunk({"content": text[start : start + step]}, None)
    yield chunk({}, "stop")
    if usage is not None:
        final = {"id": chat_id, "object": "chat.completion.chunk", "created": created,
                 "model": model, "service_tier": "default", "system_fingerprint": None,
                 "choices": [], "usage": usage}
        yield b"data: " + json.dumps(final).encode() + b"\n\n"
    yield b"data: [DONE]\n\n"
