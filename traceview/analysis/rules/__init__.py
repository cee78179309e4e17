"""The per-turn rules: one small function per marker, and the order they are shown in.

Where to look:
  deposit.py     deposit — billed for far more than the turn explains; model passes
  compaction.py  compaction (explicit) and compaction_likely; resent compaction items
  account.py     the turn's input account, from its request body read again
  numbers.py     expected input (from the account), owned-state bytes, cumulative input
  change.py      history_resent, cache_lost: what the itemised change says
  evidence.py    evidence_missing, tool_offered_unused
  outcome.py     failed / incomplete / cancelled, stream_cut, request_only,
                 response_only, retried, refusal
  actions.py     approval_request, computer_action, unoffered_function, unanswered_call
  chain.py       unstored_chain, fingerprint_changed, instructions_dropped
  cost.py        the turn's cost (Pricing.cost), counter_mismatch
  stream.py      stream_sequence, stream_text_mismatch: the stream read as evidence
Each rule reads a TurnFacts (facts.py) and the conversation's running state (state.py);
analysis/analyzer.py runs them once per turn, in `turn_markers`'s order.
"""

from __future__ import annotations

from typing import Any

from traceview.analysis.options import Options
from traceview.analysis.pricing import Pricing
from traceview.analysis.rules import (
    actions,
    chain,
    change,
    compaction,
    cost,
    evidence,
    outcome,
    stream,
)
from traceview.analysis.rules.account import TurnAccount
from traceview.analysis.rules.deposit import deposit, model_passes
from traceview.analysis.rules.facts import TurnFacts
from traceview.analysis.rules.state import ConversationState

__all__ = ["ConversationState", "TurnFacts", "deposit", "model_passes", "turn_markers"]


def turn_markers(f: TurnFacts, st: ConversationState, expected: int | None, passes: int,
                 resent: int | None, options: Options, found: dict[str, Any],
                 acc: TurnAccount | None, pricing: Pricing) -> list[str]:
    """The turn's markers in display order (markers.MARKERS); what lies behind the rare
    ones goes into `found` (the turn's analysis context). `acc`: the turn's input account
    (None: its request could not be read)."""
    m: list[str] = []
    if deposit(f.input_tokens, expected, passes, options, hosted=acc is None or acc.hosted):
        m.append("deposit")
    if resent is not None:
        found["compaction_resent"] = resent
    compacted = compaction.compaction(f, st, resent)
    if compacted:
        m.append("compaction")
    elif compaction.compaction_likely(f, st, options, resent, found, expected,
                                      acc is None or acc.compactable):
        m.append("compaction_likely")
    if change.history_resent(acc, found):
        m.append("history_resent")
    if change.cache_lost(f, st, change.prefix_changes(acc, st, compacted), pricing, found):
        m.append("cache_lost")
    if evidence.evidence_missing(f):
        m.append("evidence_missing")
    failure = outcome.terminal_failure(f)
    if failure:
        m.append(failure)
    if outcome.request_only(f):
        m.append("request_only")
    elif outcome.stream_cut(f):
        m.append("stream_cut")
    if outcome.response_only(f):
        m.append("response_only")
    elif evidence.tool_offered_unused(f):
        m.append("tool_offered_unused")
    if outcome.retried(f):
        m.append("retried")
    m.extend(_action_markers(f, found))
    if outcome.refusal(f):
        m.append("refusal")
    m.extend(_chain_markers(f, st, found))
    if f.res_extra:  # the stream's evidence is among the response's extra facts
        if stream.stream_sequence(f):
            m.append("stream_sequence")
        if stream.stream_text_mismatch(f):
            m.append("stream_text_mismatch")
    return m


def _action_markers(f: TurnFacts, found: dict[str, Any]) -> list[str]:
    """unknown_item, approval_request, computer_action, unoffered_function."""
    m: list[str] = []
    if not f.res_extra:  # each of the four reads the response's extra facts
        return m
    if f.unknown_items:
        m.append("unknown_item")
    if actions.approval_request(f):
        m.append("approval_request")
    if actions.computer_action(f):
        m.append("computer_action")
    stray = actions.unoffered_functions(f)
    if stray:
        m.append("unoffered_function")
        found["unoffered"] = stray
    return m


def _chain_markers(f: TurnFacts, st: ConversationState, found: dict[str, Any]) -> list[str]:
    """counter_mismatch, unstored_chain, fingerprint_changed, instructions_dropped."""
    m = []
    counted = cost.counter_report(f)
    if counted:
        found["counters"] = counted
        if cost.counter_mismatch(counted):
            m.append("counter_mismatch")
    if chain.unstored_chain(f):
        m.append("unstored_chain")
    changed = chain.changed_serving(f, st)
    if changed:
        m.append("fingerprint_changed")
        found["changed"] = changed
    if chain.instructions_dropped(f, st):
        m.append("instructions_dropped")
    return m
