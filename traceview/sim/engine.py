"""The simulated model call: context, tools, canned reply, usage, stored state.

Rules (all deterministic, see also tokens.py and corpus.py):

* Billed input = priming + instructions + tool definitions + every item of the rendered
  context: the stored conversation (``conversation``) or chain (``previous_response_id``)
  followed by the new input. This is why a one-line request can bill thousands of tokens.
* A hosted ``file_search`` stores its result chunks on the ``file_search_call`` item
  in the conversation, so they are billed on every *later* turn (a deposit). The
  response shows them only when ``include`` asks for ``file_search_call.results``.
* ``tool_choice``: ``none`` runs nothing; ``required`` runs file_search if offered, else
  web_search, else calls the first function; ``{"type": "file_search"}`` /
  ``{"type": "web_search"}`` force that tool; ``auto`` runs file_search when the user's
  message names an index term of the policy that no result already in the context
  contains, and web_search when it contains a word such as "latest" or "today".
* ``context_management: [{"type": "compaction", "compact_threshold": N}]``: when the
  rendered input exceeds N, the turn is billed in full, a ``compaction`` item is emitted
  first in ``output``, and the stored context is replaced by it (later turns are
  smaller). A trailing ``compaction_trigger`` input does the same regardless of N.
* ``truncation: "auto"``: when the input exceeds the context window, the oldest items are
  silently left out of the rendering (the stored items stay); ``disabled`` answers 400.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import traceview.sim.bodies as bodies
import traceview.sim.corpus as corpus
import traceview.sim.tokens as tokens
from traceview.sim.items import check_include, normalize_input, render, user_text
from traceview.sim.state import Prefix, ResponseRecord, SimError, SimState

DEFAULT_CONTEXT_WINDOW = 128_000


def processing_ms(output_tokens: int, file_searches: int, web_searches: int) -> int:
    """The simulated server time, reported in ``openai-processing-ms``."""
    return 600 + 4 * output_tokens + 3_500 * file_searches + 1_500 * web_searches


class Outcome:
    """A created response plus what the transport layer needs to send it."""

    def __init__(self, body: dict[str, Any], include: list[str], ms: int) -> None:
        self.body = body
        self.include = include
        self.processing_ms = ms

    def rendered(self) -> dict[str, Any]:
        return {**self.body, "output": [render(i, self.include) for i in self.body["output"]]}


def _opaque(seed: str, token_cost: int) -> str:
    """Opaque ``encrypted_content`` whose length makes it cost ``token_cost`` tokens."""
    out = b""
    block = seed.encode()
    while len(out) < token_cost * 3:
        block = hashlib.sha256(block).digest()
        out += block
    return "gAAAAA" + base64.urlsafe_b64encode(out[: token_cost * 3]).decode()[: token_cost * 4 - 6]


def _head(request: dict[str, Any]) -> tuple[str, str]:
    return (request.get("instructions") or "", json.dumps(request.get("tools") or [],
                                                          sort_keys=True))


def _base_tokens(request: dict[str, Any]) -> int:
    instructions = request.get("instructions")
    return (
        tokens.PRIMING
        + tokens.count_text(instructions if isinstance(instructions, str) else None)
        + tokens.count_tools(request.get("tools"))
    )


def _prefix(request: dict[str, Any], items: list[dict[str, Any]]) -> Prefix:
    return Prefix(
        head=_head(request),
        item_ids=tuple(str(i.get("id")) for i in items),
        item_tokens=tuple(tokens.count_item(i) for i in items),
        base_tokens=_base_tokens(request),
    )


def _content_key(item: dict[str, Any]) -> str:
    """An item's identity for a content-keyed cache: everything but its id."""
    body = json.dumps({k: v for k, v in item.items() if k != "id"}, sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()[:24]


def _cached(previous: Prefix | None, current: Prefix) -> int:
    if previous is None or previous.head != current.head:
        return 0
    shared = current.base_tokens
    for a, b, cost in zip(previous.item_ids, current.item_ids, current.item_tokens, strict=False):
        if a != b:
            break
        shared += cost
    previous_total = previous.base_tokens + sum(previous.item_tokens)
    return tokens.cached_tokens(previous_total, shared)


def _choose_tools(
    request: dict[str, Any], context: list[dict[str, Any]]
) -> tuple[bool, bool, str | None]:
    """(file_search?, web_search?, function name to call) under the documented rule."""
    tools = request.get("tools") or []
    kinds = {t.get("type") for t in tools if isinstance(t, dict)}
    has_fs = "file_search" in kinds
    has_ws = bool(kinds & {"web_search", "web_search_preview", "web_search_2025_08_26"})
    functions = [
        t.get("name") for t in tools if isinstance(t, dict) and t.get("type") == "function"
    ]
    choice = request.get("tool_choice", "auto")
    if choice == "none" or not tools:
        return False, False, None
    if isinstance(choice, dict):
        kind = choice.get("type")
        if kind == "file_search":
            return has_fs, False, None
        if kind in ("web_search", "web_search_preview", "web_search_2025_08_26"):
            return False, has_ws, None
        if kind == "function":
            return False, False, choice.get("name")
        return False, False, None
    if choice == "required":
        if has_fs:
            return True, False, None
        if has_ws:
            return False, True, None
        return False, False, functions[0] if functions else None
    message = user_text(context)
    deposited = [
        r.get("text", "")
        for item in context
        if item.get("type") == "file_search_call"
        for r in item.get("results") or []
    ]
    return (
        has_fs and corpus.wants_file_search(message, deposited),
        has_ws and corpus.wants_web_search(message),
        None,
    )


def _validate(request: dict[str, Any]) -> None:
    if not request.get("model"):
        raise SimError(400, "Missing required parameter: 'model'.", param="model",
                       code="missing_required_parameter")
    if request.get("conversation") and request.get("previous_response_id"):
        raise SimError(
            400,
            "Mutually exclusive parameters: Ensure you are only providing one of: "
            "'previous_response_id' or 'conversation'.",
            param="conversation", code="mutually_exclusive_parameters",
        )
    choice = request.get("tool_choice", "auto")
    if not (choice in ("none", "auto", "required") or isinstance(choice, dict)):
        raise SimError(400, f"Invalid value: '{choice}'. Supported values are: 'none', 'auto',"
                       " and 'required'.", param="tool_choice", code="invalid_value")
    if request.get("truncation") not in (None, "auto", "disabled"):
        raise SimError(400, "Invalid value for 'truncation'.", param="truncation",
                       code="invalid_value")


def _compact_threshold(request: dict[str, Any]) -> int | None:
    for entry in request.get("context_management") or []:
        if isinstance(entry, dict) and entry.get("type") == "compaction":
            return entry.get("compact_threshold")
    return None


class Engine:
    """Creates responses and compactions against one :class:`SimState`."""

    def __init__(self, state: SimState, context_window: int = DEFAULT_CONTEXT_WINDOW) -> None:
        self.state = state
        self.context_window = context_window
        # Prompt caching by content across requests (a request that resends its transcript,
        # or a new conversation's first turn, hits the cache the previous request with the
        # same instructions and tools left). Off by default so the checked-in samples keep
        # their numbers; the ab profile turns it on.
        self.stateless_cache = False
        self._stateless_prefixes: dict[tuple[str, str], Prefix] = {}

    def compaction_item(self, replaced: list[dict[str, Any]]) -> dict[str, Any]:
        cmp_id = self.state.ids.new("cmp")
        cost = max(32, sum(tokens.count_item(i) for i in replaced) // 10)
        return {"id": cmp_id, "type": "compaction", "encrypted_content": _opaque(cmp_id, cost),
                "created_by": None}

    def create(self, request: dict[str, Any]) -> Outcome:
        _validate(request)
        include = check_include(request.get("include"))
        state = self.state
        with state.lock:
            conv_ref = request.get("conversation")
            conv_id = conv_ref.get("id") if isinstance(conv_ref, dict) else conv_ref
            conv = state.conversation(conv_id) if conv_id else None
            prev_id = request.get("previous_response_id")
            prev = state.response(prev_id, param="previous_response_id") if prev_id else None
            earlier = list(conv.items) if conv else list(prev.next_context) if prev else []
            new_items, trigger = normalize_input(state, request.get("input"))
            context = earlier + new_items

            rendered = self._fit_window(request, context)
            prefix = _prefix(request, rendered)
            previous_prefix = conv.last_prefix if conv else prev.prefix if prev else None
            input_tokens = prefix.base_tokens + sum(prefix.item_tokens)
            cached = self._cached_tokens(prefix, previous_prefix, rendered)

            output: list[dict[str, Any]] = []
            threshold = _compact_threshold(request)
            compacted = trigger or (threshold is not None and input_tokens > threshold)
            if compacted:
                output.append(self.compaction_item(earlier))
            run_fs, run_ws, function = _choose_tools(request, rendered)
            output.extend(self._tool_calls(request, rendered, run_fs, run_ws))
            output.append(self._answer(rendered, run_fs, run_ws, function))
            output_tokens = sum(tokens.count_output(i) for i in output)

            ms = processing_ms(output_tokens, int(run_fs), int(run_ws))
            created = state.clock.now()
            state.clock.advance(ms)
            resp_id = state.ids.new("resp")
            body = bodies.response(
                resp_id=resp_id, request=request, created_at=created,
                completed_at=state.clock.now(), status="completed", output=output,
                usage_body=bodies.usage(input_tokens, cached, output_tokens),
            )
            generated = [i for i in output if i.get("type") != "compaction"]
            if compacted:
                next_context = [output[0], *new_items, *generated]
            else:
                next_context = context + generated
            record = ResponseRecord(
                body=body, input_items=rendered, next_context=next_context, prefix=prefix,
                stored=request.get("store", True) is not False,
            )
            state.responses[resp_id] = record
            if conv:
                conv.items = next_context if compacted else conv.items + new_items + generated
                conv.last_prefix = prefix
            return Outcome(body, include, ms)

    def _fit_window(self, request: dict[str, Any],
                    context: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The context the model sees: all of it, or with ``truncation: auto`` the oldest
        items dropped silently (no item, no event) until it fits the window."""
        base = _base_tokens(request)
        rendered = list(context)
        while base + sum(tokens.count_item(i) for i in rendered) > self.context_window:
            if request.get("truncation") != "auto" or len(rendered) <= 1:
                raise SimError(
                    400,
                    "Your input exceeds the context window of this model. "
                    "Please adjust your input and try again.",
                    param="input", code="context_length_exceeded",
                )
            rendered.pop(0)
        return rendered

    def _cached_tokens(self, prefix: Prefix, previous_prefix: Prefix | None,
                       rendered: list[dict[str, Any]]) -> int:
        """Tokens served from the cache: the prefix shared with this conversation's last
        request, or (stateless cache) with any earlier request of the same head."""
        cached = _cached(previous_prefix, prefix)
        if self.stateless_cache:  # the provider's cache is by content, across requests
            by_content = Prefix(prefix.head, tuple(_content_key(i) for i in rendered),
                                prefix.item_tokens, prefix.base_tokens)
            cached = max(cached, _cached(self._stateless_prefixes.get(prefix.head), by_content))
            self._stateless_prefixes[prefix.head] = by_content
        return cached

    def _tool_calls(
        self, request: dict[str, Any], context: list[dict[str, Any]], run_fs: bool, run_ws: bool
    ) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = []
        query = corpus.search_query(user_text(context)) or "policy wording"
        if run_fs:
            tool = next(t for t in request["tools"] if t.get("type") == "file_search")
            results = corpus.file_search(query, tool.get("max_num_results"))
            store = (tool.get("vector_store_ids") or [corpus.DEFAULT_VECTOR_STORE])[0]
            calls.append({
                "id": self.state.ids.new("fs"), "type": "file_search_call", "status": "completed",
                "queries": [query],
                "results": [{**r, "vector_store_id": store} for r in results],
            })
        if run_ws:
            calls.append({
                "id": self.state.ids.new("ws"), "type": "web_search_call", "status": "completed",
                "action": {
                    "type": "search", "queries": [query], "query": query,
                    "sources": [{"type": "url", "url": u} for u in corpus.WEB_SOURCES],
                },
            })
        return calls

    def _answer(
        self, context: list[dict[str, Any]], run_fs: bool, run_ws: bool, function: str | None
    ) -> dict[str, Any]:
        if function:
            return {
                "id": self.state.ids.new("fc"), "type": "function_call", "status": "completed",
                "arguments": "{}", "call_id": self.state.ids.new("call"), "name": function,
            }
        text = corpus.reply_for(user_text(context))
        annotations: list[dict[str, Any]] = []
        cut = text.find("\n\n")
        index = cut if cut > 0 else len(text)
        if run_fs:
            annotations.append({"type": "file_citation", "file_id": corpus.POLICY_FILE_ID,
                                "filename": corpus.POLICY_FILENAME, "index": index})
        if run_ws:
            annotations.append({"type": "url_citation", "end_index": index, "start_index": 0,
                                "title": "Financial Ombudsman Service",
                                "url": corpus.WEB_SOURCES[0]})
        return {
            "id": self.state.ids.new("msg"), "type": "message", "status": "completed",
            "content": [{"type": "output_text", "annotations": annotations, "logprobs": [],
                         "text": text}],
            "role": "assistant",
        }

    def compact(self, request: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """``POST /v1/responses/compact``: user messages kept, the rest in one compaction."""
        if not request.get("model"):
            raise SimError(400, "Missing required parameter: 'model'.", param="model",
                           code="missing_required_parameter")
        state = self.state
        with state.lock:
            prev_id = request.get("previous_response_id")
            earlier = list(state.response(prev_id, param="previous_response_id").next_context) \
                if prev_id else []
            new_items, _ = normalize_input(state, request.get("input"))
            context = earlier + new_items
            input_tokens = _base_tokens(request) + sum(tokens.count_item(i) for i in context)
            users = [i for i in context if i.get("type") == "message" and i.get("role") == "user"]
            item = self.compaction_item(context)
            ms = 400 + input_tokens // 20
            created = state.clock.now()
            state.clock.advance(ms)
            output_tokens = tokens.count_item(item) - tokens.ITEM_OVERHEAD
            body = {
                "id": state.ids.new("resp"), "object": "response.compaction",
                "created_at": created, "output": [*users, item],
                "usage": bodies.usage(input_tokens, 0, output_tokens),
            }
            return body, ms
