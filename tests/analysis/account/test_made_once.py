"""What every request of a model, API or tool list shares is made once (a context, the
tools' lines, the halves): what does not decide it must never be reused from another
request (the sizes earlier turns told, a tool search's loaded tools), and a request whose
lines were made before still notes the counts it read (a worker sends them on)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from traceview.analysis.account import account, tokens
from traceview.analysis.account.sized import media_key
from traceview.analysis.rules.account_workers import request_halves

_TOOL = {"type": "function", "name": "made_once_lookup", "description": "Look a code up.",
         "parameters": {"type": "object", "properties": {"code": {"type": "string"}},
                        "required": ["code"]}}


@pytest.fixture
def noted() -> Iterator[dict[tuple[str, str], int]]:
    """The counts read from here on (as a worker records its chunk's)."""
    seen = tokens.fresh()
    try:
        yield seen
    finally:
        tokens._MEMO.seen = None


def test_resent_reasoning_takes_the_sizes_this_request_was_given() -> None:
    body = {"model": "gpt-4.1", "input": [{"role": "user", "content": "go on"},
                                          {"type": "reasoning", "id": "rs_once"}]}
    for tokens_told in (100, 200, 100):
        acc = account(body, item_tokens={"rs_once": (tokens_told, 1)})
        line = next(c for c in acc.components if c.component == "reasoning")
        assert (line.tokens, line.source_turn) == (tokens_told, 1)


def test_tools_made_before_note_their_counts_again(noted: dict[tuple[str, str], int]) -> None:
    body = {"model": "gpt-4o", "input": "hello", "tools": [_TOOL]}
    first = account(body)
    noted.clear()  # a new chunk: the tool list was made in an earlier one
    again = account(copy.deepcopy(body))
    assert again == first
    assert any("made_once_lookup" in text for _, text in noted)  # its rendering
    assert any(text.startswith("# Tools") for _, text in noted)  # the namespace


def _search(body: dict[str, Any], sizes: dict[str, tuple[int, int | None]]) -> int | None:
    acc = account(body, item_tokens=sizes)
    return next(c.tokens for c in acc.components if c.name == "tool_search")


def test_a_tool_search_is_sized_for_each_request_s_own_input() -> None:
    tools = [{"type": "tool_search"}, _TOOL]
    loaded = {"type": "additional_tools", "tools": [{"type": "function", "name": "later"}]}
    sizes = {media_key("gpt-5.4", {"tools": tools, "loaded": [loaded]}): (300, 1)}
    plain = {"model": "gpt-5.4", "tools": tools, "input": "hi"}
    loading = {"model": "gpt-5.4", "tools": tools,
               "input": [loaded, {"role": "user", "content": "hi"}]}
    assert [_search(loading, sizes), _search(plain, sizes), _search(loading, sizes),
            _search(loading, {})] == [300, None, 300, None]


def test_a_chunk_s_alike_requests_share_one_half() -> None:
    """Requests alike in all their half holds are one object, sent once a chunk."""
    record = {"dir": "req", "body": {"model": "gpt-4o", "conversation": "conv_a",
                                     "input": [{"role": "user", "content": "same words"}]}}
    other = copy.deepcopy(record)
    other["body"]["conversation"] = "conv_b"  # the handle is the turn's own: not in a half
    _, halves = request_halves([(0, record), (10, other)])
    assert halves[0] is halves[10]


def test_alike_halves_of_two_chunks_are_joined_once() -> None:
    """Each chunk's halves are other objects: the main process numbers them by value, so
    turns of any chunk with an alike request and response share one account."""
    from traceview.analysis.rules.account import Accounts

    record = {"dir": "req", "body": {"model": "gpt-4o",
                                     "input": [{"role": "user", "content": "same words"}]}}
    other = {"dir": "req", "body": {"model": "gpt-4o", "input": "other and more words"}}
    _, first = request_halves([(0, record), (10, other), (20, copy.deepcopy(record))])
    _, second = request_halves([(0, copy.deepcopy(record))])
    assert first[0] is not second[0]
    accounts = Accounts(lambda ref: None)
    accounts.take(0, ({}, first))
    accounts.take(1, ({}, second))
    assert accounts.halves == {0: {0: 0, 10: 1, 20: 0}, 1: {0: 0}}
    made = accounts._joined(0, "gpt-4o", False, ("message",), None)
    assert accounts._joined(0, "gpt-4o", False, ("message",), None) is made
    assert made == accounts._join(second[0], ("message",), None)
    assert made != accounts._joined(1, "gpt-4o", False, ("message",), None)
    assert accounts._joined(0, "gpt-4o", True, ("message",), None) is None  # not the chat's
