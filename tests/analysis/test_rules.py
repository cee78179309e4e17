"""The per-turn rules (traceview/analysis/rules/), each stated at its boundary.

Each rule reads a turn's facts and its conversation's running state; here the facts are
given directly (a namespace with TurnFacts' fields), so every value a rule decides on is
named in the test.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from traceview.analysis.options import Options
from traceview.analysis.pricing import Pricing
from traceview.analysis.rules import turn_markers
from traceview.analysis.rules.account import Static, TurnAccount
from traceview.analysis.rules.actions import unanswered, unoffered_functions
from traceview.analysis.rules.change import cache_lost, history_resent, prefix_changes
from traceview.analysis.rules.compaction import CompactionItems, compaction, compaction_likely
from traceview.analysis.rules.deposit import deposit, model_passes
from traceview.analysis.rules.evidence import tool_offered_unused
from traceview.analysis.rules.numbers import cumulative_input, expected_input, owned_state_bytes
from traceview.analysis.rules.state import ConversationState
from traceview.capture.model import HostedCall

OPTIONS = Options()  # deposit_min_tokens 500, deposit_ratio 0.25, compaction_min_drop 0
PRICING = Pricing.load(None)


def facts(**values: Any) -> Any:
    """A completed responses turn with a request and a response, nothing else set."""
    base: dict[str, Any] = {
        "index": 2, "row": 1, "source": 0, "api": "responses", "model": "gpt-4.1",
        "attempts": (), "has_req": True, "request_bytes": 300, "input_bytes": 200,
        "new_input_tokens": 40, "req_conversation_id": None, "previous_response_id": None,
        "tools_offered": (), "instructions": False, "compaction_input": False,
        "compaction_trigger": False, "req_extra": None, "has_res": True,
        "input_tokens": 1000, "cached_tokens": 0, "output_tokens": 100,
        "reasoning_tokens": 0, "status": "completed", "hosted_calls": (),
        "output_types": ("message",), "cache_miss_reason": None, "fingerprint": None,
        "service_tier": None, "output_bytes": 400, "elapsed_ms": 900,
        "compaction_output": False, "stream_cut": False, "refusal": False,
        "res_extra": None, "web_search_requests": None, "file_search_requests": None,
        "store": None, "actions": (), "unknown_items": False}
    base.update(values)
    return SimpleNamespace(**base)


def test_deposit_at_exactly_its_threshold() -> None:
    """Unexplained = billed - expected; a deposit from max(500, 25 % of expected) on."""
    assert deposit(2000 + 500, 2000, 1, OPTIONS)  # 500 = max(500, 500): exactly there
    assert not deposit(2000 + 499, 2000, 1, OPTIONS)
    assert deposit(10_000 + 2500, 10_000, 1, OPTIONS)  # the ratio decides: 2,500
    assert not deposit(10_000 + 2499, 10_000, 1, OPTIONS)
    assert not deposit(None, 2000, 1, OPTIONS) and not deposit(5000, None, 1, OPTIONS)
    # only a conversation the provider holds takes in context unsent (the rule, in one place)
    assert not deposit(2000 + 5000, 2000, 1, OPTIONS, hosted=False)


def test_a_hosted_loop_bills_the_context_once_per_pass() -> None:
    types = ("file_search_call", "message")
    assert model_passes(types) == 2 and model_passes(("message",)) == 1
    assert model_passes(("message", "file_search_call")) == 1  # nothing sampled after it
    assert not deposit(2 * 2000 + 499, 2000, 2, OPTIONS)
    assert deposit(2 * 2000 + 500, 2000, 2, OPTIONS)


def test_compaction_likely_needs_billed_input_to_fall() -> None:
    st = ConversationState(0, last_input=1000)
    assert not compaction_likely(facts(input_tokens=1000), st, OPTIONS, None, {})  # equal
    assert compaction_likely(facts(input_tokens=999), st, OPTIONS, None, {})
    drop = Options(compaction_min_drop=100)
    assert not compaction_likely(facts(input_tokens=900), st, drop, None, {})  # 100: not more
    assert compaction_likely(facts(input_tokens=899), st, drop, None, {})


def test_a_fall_after_a_hosted_loop_is_the_loop_ending() -> None:
    st = ConversationState(0, last_input=9000, last_passes=3, last_index=4)
    found: dict[str, Any] = {}
    assert not compaction_likely(facts(input_tokens=3000), st, OPTIONS, None, found)
    assert found == {"after_passes": {"turn": 4, "passes": 3}}


def test_a_compact_call_is_a_compaction_without_a_compaction_item() -> None:
    st = ConversationState(0)
    assert compaction(facts(api="compact"), st, None)
    assert not compaction(facts(), st, None)
    assert compaction(facts(compaction_output=True), st, None)
    assert compaction(facts(compaction_trigger=True), st, None)


def test_a_resent_compaction_item_is_not_a_new_compaction() -> None:
    items = CompactionItems()
    first = facts(index=3, res_extra={"compaction_keys": ("cmp_1",)}, compaction_output=True)
    assert items.resent(first) is None
    again = facts(index=5, req_extra={"compaction_keys": ("cmp_1",)}, compaction_input=True)
    resent = items.resent(again)
    assert resent == 3
    assert not compaction(again, ConversationState(0), resent)
    st = ConversationState(0, last_input=5000)
    assert not compaction_likely(facts(input_tokens=100), st, OPTIONS, resent, {})


NOTHING = Static(0, (), ())


def _account(expected: int | None = None, *, hosted: bool = False, items: int | None = 0,
             static: Static = NOTHING, resent: tuple[int, int] | None = None,
             compactable: bool = True) -> TurnAccount:
    """A turn's account as the rules read it (lines left out but an unknown one)."""
    lines = () if expected is not None or hosted else (
        ("file", "user #1 input_file", None, "unknown", None, "not sized"),)
    return TurnAccount(lines, expected, hosted, items, None if items is not None else "x",
                       static, resent, compactable, 3)


def test_expected_input_is_the_account_where_the_input_is_visible() -> None:
    st = ConversationState(0, last_input=1000, last_visible=80)
    assert expected_input(facts(), st, _account(1234), {}) == 1234  # not 1000 + 80 + …
    assert expected_input(facts(), ConversationState(0), _account(57), {}) == 57  # first turn
    found: dict[str, Any] = {}
    assert expected_input(facts(), st, _account(None), found) is None
    assert found["expected_unknown"].startswith("expected input unknown: file user #1")
    found = {}
    assert expected_input(facts(), st, None, found) is None  # the body could not be read
    assert "read again" in found["expected_unknown"]


def test_expected_input_on_a_hosted_turn_is_the_previous_plus_the_itemised_change() -> None:
    tools = Static(120, (("tools", "file_search"),), (("tools", (("lookup", 120),)),))
    st = ConversationState(0, last_input=1000, last_visible=80, last_static=tools)
    hosted = _account(hosted=True, items=40, static=tools)
    assert expected_input(facts(previous_response_id="r1"), st, hosted, {}) == 1120
    # A function schema added (855 tokens) is accounted for: no deposit follows.
    more = Static(975, tools.unknown, (("tools", (("lookup", 120), ("big", 855))),))
    expected = expected_input(facts(), st, _account(hosted=True, items=40, static=more), {})
    assert expected == 1975 and not deposit(1975, expected, 1, OPTIONS)
    # A schema dropped (87 tokens) lowers it: no compaction_likely follows.
    less = Static(33, tools.unknown, ())
    expected = expected_input(facts(), st, _account(hosted=True, items=40, static=less), {})
    assert expected == 1033
    assert not compaction_likely(facts(input_tokens=1030), st, OPTIONS, None, {}, expected)
    # An unknown hosted tool dropped: the change is unknown, and so is expected input.
    found: dict[str, Any] = {}
    gone = Static(120, (), tools.kinds)
    assert expected_input(facts(), st, _account(hosted=True, items=40, static=gone),
                          found) is None and "changed" in found["expected_unknown"]
    assert expected_input(facts(), ConversationState(0), hosted, {}) is None  # no usage before


def test_a_turn_that_cannot_have_been_compacted_is_never_compaction_likely() -> None:
    st = ConversationState(0, last_input=5000)
    fell = facts(input_tokens=1000)
    assert compaction_likely(fell, st, OPTIONS, None, {})
    assert not compaction_likely(fell, st, OPTIONS, None, {}, None, compactable=False)
    assert not compaction_likely(fell, st, OPTIONS, None, {}, 1020)  # the account explains it


def test_history_sent_again_on_a_hosted_turn_and_a_lost_cache() -> None:
    found: dict[str, Any] = {}
    assert history_resent(_account(hosted=True, resent=(812, 4)), found)
    assert found["history_resent"] == {"tokens": 812, "items": 4}
    assert not history_resent(_account(hosted=True), {})
    before = Static(10, (), (("instructions", (("instructions", 10),)),))
    after = Static(12, (), (("instructions", (("instructions", 12),)),))
    st = ConversationState(0, last_input=10000, last_cached_share=0.9, last_static=before)
    changed = prefix_changes(_account(hosted=True, static=after), st, False)
    assert changed == ["instructions"]
    found = {}
    f = facts(model="gpt-4.1", input_tokens=10000, cached_tokens=0)
    assert cache_lost(f, st, changed, Pricing.load(None), found)
    lost = found["cache_lost"]
    assert (lost["changed"], lost["share"], lost["tokens"]) == (["instructions"], 0.0, 9000)
    assert lost["usd"] == 0.0135  # 9,000 tokens at $2.00 - $0.50 per million (gpt-4.1)
    assert not cache_lost(f, st, [], Pricing.load(None), {})  # no prefix change: not this
    kept = facts(model="gpt-4.1", input_tokens=10000, cached_tokens=8000)
    assert not cache_lost(kept, st, changed, Pricing.load(None), {})


def test_owned_state_bytes_and_cumulative_input() -> None:
    st = ConversationState(0, last_input=1000, last_visible=80, history_bytes=5000,
                           cumulative=1000)
    assert owned_state_bytes(facts(), st) == 300  # not chained: its own bytes
    assert owned_state_bytes(facts(previous_response_id="resp_1"), st) == 5300
    assert owned_state_bytes(facts(request_bytes=None), st) is None
    assert cumulative_input(facts(input_tokens=500), st) == 1500
    assert cumulative_input(facts(input_tokens=None), ConversationState(0)) is None


def test_tool_offered_unused_is_about_hosted_tools() -> None:
    fs = HostedCall("file_search_call", "fs_1", "completed", "missing",
                    "file_search_call.results", ())
    assert tool_offered_unused(facts(tools_offered=("file_search",)))
    assert not tool_offered_unused(facts(tools_offered=("file_search",), hosted_calls=(fs,)))
    assert not tool_offered_unused(facts(tools_offered=("function",)))
    assert not tool_offered_unused(facts(tools_offered=("file_search",), status="incomplete"))


def test_calls_left_unanswered_and_functions_never_offered() -> None:
    call = ("function_call", "call_1", "lookup", "fc_1")
    approval = ("mcp_approval_request", "apr_1", "tool", "apr_1")
    assert unanswered((call, approval), facts()) == [
        {"type": "function_call", "call_id": "call_1", "name": "lookup"}]
    assert unanswered((call,), facts(req_extra={"answered": ("call_1",)})) == []
    assert unanswered((call,), facts(req_extra={"answered": ("fc_1",)})) == []  # by item id
    stray = facts(res_extra={"actions": (call,)}, actions=(call,))
    assert unoffered_functions(stray) == ["lookup"]
    offered = facts(res_extra={"actions": (call,)}, actions=(call,),
                    req_extra={"functions": ("lookup",)})
    assert unoffered_functions(offered) == []


def test_markers_come_in_display_order() -> None:
    st = ConversationState(0, last_input=1000, last_visible=0)
    f = facts(input_tokens=5000, new_input_tokens=0, status="incomplete",
              tools_offered=("web_search",), attempts=("try",), refusal=True)
    assert turn_markers(f, st, 1000, 1, None, OPTIONS, {}, None, PRICING) == [
        "deposit", "incomplete", "retried", "refusal"]
    assert turn_markers(facts(has_res=False, status="unknown", input_tokens=None), st, None,
                        1, None, OPTIONS, {}, None, PRICING) == ["request_only"]
