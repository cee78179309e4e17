"""Hosted tool evidence: whether every hosted call's results were captured.

A `file_search_call` (and its kin) comes back with `results: null` unless the request
asked for the include flag that captures them; the turn is marked so the reader knows
which flag would have shown what the provider found.
"""

from __future__ import annotations

from traceview.analysis.rules.facts import TurnFacts
from traceview.wire import HOSTED_TOOL_CALLS


def evidence_missing(f: TurnFacts) -> bool:
    """Whether a hosted call of the response lacks its evidence (results null/absent)."""
    return bool(f.hosted_calls) and any(h.evidence == "missing" for h in f.hosted_calls)


def tool_offered_unused(f: TurnFacts) -> bool:
    """Whether a hosted tool was offered and made none of its calls in a completed
    response (informational; a response with unknown items might hold them)."""
    if not (f.has_req and f.status == "completed" and f.tools_offered) or f.unknown_items:
        return False
    used = {h.type for h in f.hosted_calls}
    for tool in f.tools_offered:
        calls = HOSTED_TOOL_CALLS.get(tool)
        if calls and used.isdisjoint(calls):
            return True
    return False
