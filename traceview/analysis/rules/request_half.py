"""A turn's input account as far as its request decides it: its lines and what follows
from them alone (hosted or not, the items' sum, history sent again, whether the context
could be compacted). The same wherever the request is read, so a worker makes it for a
large capture's requests (account_workers.py) and the main process only joins it with the
response's lines (account.py)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from traceview.analysis.account.account import RequestFacts, request_lines
from traceview.analysis.account.context import ItemTokens
from traceview.analysis.account.framing import CHAT, RESPONSES, framing_for
from traceview.analysis.account.model import Component, unknown

# One line of the report's `input_account`: (component, name, tokens, basis, source_turn,
# reason), pooled.
Line = Component

# Lines that are the same on every turn of a conversation or that the next turn's
# difference accounts for apart: framing, the carried conversation, hosted passes.
_APART = frozenset({"request", "carried", "hosted_pass"})
# Lines that are not carried from one turn to the next: re-billed each turn as sent.
STATIC = frozenset({"instructions", "tools", "response_format", "prompt", "prompt_variable",
                    "preamble", "reasoning_mode"})


class Half(NamedTuple):
    """A turn's account as far as its request decides it: the same wherever the request is
    read, so a worker can make it for a large capture and the main process only joins it
    with the response's lines."""

    facts: RequestFacts
    chat: bool  # made for the chat endpoint
    lines: tuple[Line, ...]
    hosted: bool
    items: int | None
    items_unknown: str | None
    resent: tuple[int, int] | None
    compactable: bool
    carried_message: int


def request_half(body: dict[str, Any], model: str | None, chat: bool,
                 item_tokens: ItemTokens, pool: dict[Any, Any]) -> Half:
    """The request's lines and what follows from them alone (`model`: the turn's, else the
    request's; `item_tokens`: resent reasoning by id). Requests repeat their halves (the
    same lines and facts, a message of the same length): each distinct one is kept once,
    in `pool`, found by its fields; only a new one has its lines and facts shared there."""
    name = model or _str(body.get("model"))
    comps, facts = request_lines(body, name, _CHAT_CALL if chat else _RESPONSES_CALL,
                                 item_tokens)
    items = body.get("input")
    lines, item_comps, hosted, items_sum, unknown_item = _lines(comps)
    fields = (facts, chat, lines, hosted, items_sum,
              _why(unknown_item) if unknown_item is not None else None,
              _resent(item_comps, items) if hosted and isinstance(items, list) else None,
              _compactable(body, hosted),
              framing_for(name, CHAT if chat else RESPONSES).message - 1)
    half: Half | None = pool.get(fields)  # a Half equals the tuple of its fields
    if half is None:
        shared = tuple([pool.setdefault(c, c) for c in lines])
        half = Half(pool.setdefault(facts, facts), chat, pool.setdefault(shared, shared),
                    *fields[3:])
        pool[half] = half
    return half


_CHAT_CALL = "POST /v1/chat/completions"
_RESPONSES_CALL = "POST /v1/responses"
_NOT_ITEMS = _APART | STATIC


def _lines(comps: tuple[Component, ...]) -> tuple[tuple[Line, ...], list[Component], bool,
                                                   int | None, Component | None]:
    """In one pass over the request's components: its lines (a carried line without its
    handle: every hosted turn shares it), the input items' lines among them, whether one
    is carried (a hosted turn), and the items' sum (None when one is unknown: the first
    such, returned last)."""
    lines: list[Line] = []
    item_comps: list[Component] = []
    hosted = False
    items_sum = 0
    unknown_item = None
    for c in comps:
        kind = c[0]
        if kind == "carried":
            hosted = True
            c = _unnamed(c[5])
        elif kind not in _NOT_ITEMS:
            item_comps.append(c)
            tokens = c[2]
            if tokens is not None:
                items_sum += tokens
            elif unknown_item is None:
                unknown_item = c
        lines.append(c)
    return (tuple(lines), item_comps, hosted, items_sum if unknown_item is None else None,
            unknown_item)


@lru_cache(maxsize=8)
def _unnamed(reason: str) -> Line:
    """The carried line without its handle: the handle is the turn's own
    (previous_response_id or conversation), filled when the report is read, so every
    hosted turn shares this line."""
    return unknown("carried", "", reason)


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _why(c: Component) -> str:
    return f"{c.component} {c.name}: {c.reason}" if c.reason else f"{c.component} {c.name}"


# Input items only the model produces: a hosted turn that sends them sends history again.
_MODEL_ITEMS = frozenset({"function_call", "custom_tool_call", "reasoning", "web_search_call",
                          "file_search_call", "code_interpreter_call", "image_generation_call",
                          "mcp_call", "mcp_list_tools", "computer_call", "local_shell_call"})


def _resent(item_comps: list[Component], items: list[Any]) -> tuple[int, int] | None:
    """On a hosted turn: the tokens and count of the items before the last user message
    when they include model-produced ones (the history the provider already holds)."""
    if len(items) < 2:  # one item sends no history
        return None
    last_user = -1  # the last user message: looked for from the end, where a turn's new one is
    for i in range(len(items) - 1, -1, -1):
        item = items[i]
        if isinstance(item, dict) and item.get("role") == "user":
            last_user = i
            break
    if last_user <= 0:  # nothing before it (a turn that sends only its new message)
        return None
    before = [it for it in items[:last_user] if isinstance(it, dict)]
    if not any(it.get("role") == "assistant" or it.get("type") in _MODEL_ITEMS for it in before):
        return None
    # The account lists an item's text line first, then its media: count the lines that
    # belong to the first `last_user` items by walking both in order.
    tokens = _leading_tokens(item_comps, items, last_user)
    return (tokens, len(before)) if tokens else None


def _leading_tokens(comps: list[Component], items: list[Any], n: int) -> int:
    """The known tokens of the lines made for the first `n` input items."""
    media = {"image", "file", "audio", "part"}
    total = seen = 0
    for c in comps:
        if c.component not in media:
            seen += 1
        if seen > n:
            break
        total += c.tokens or 0
    return total


def _compactable(body: Mapping[str, Any], hosted: bool) -> bool:
    """Whether the provider could have compacted this turn's context: it carries a stored
    conversation (`hosted`, store not false), truncates automatically, manages the context
    (`context_management`), or the input holds a compaction item. A stateless request is
    billed for what it sends: without truncation nothing can shrink it."""
    if hosted and body.get("store") is not False:
        return True
    if body.get("truncation") == "auto" or body.get("context_management"):
        return True
    items = body.get("input")
    if isinstance(items, list):
        for i in items:
            if isinstance(i, dict) and i.get("type") == "compaction":
                return True
    return False
