"""Items that hand the next step to the application, and whether it took it.

The model may ask for an MCP approval, a computer action or a function call; the next
turn of the conversation should answer each call (by call id, or by item id, which some
clients echo as the call id). A function the request never offered is flagged too.
"""

from __future__ import annotations

from typing import Any

from traceview.analysis.rules.facts import TurnFacts
from traceview.analysis.rules.state import Action


def approval_request(f: TurnFacts) -> bool:
    """The turn ends waiting for approval of an MCP tool call."""
    return any(a[0] == "mcp_approval_request" for a in f.actions)


def computer_action(f: TurnFacts) -> bool:
    """The model asked the application to perform a computer action."""
    return any(a[0] == "computer_call" for a in f.actions)


def unoffered_functions(f: TurnFacts) -> list[str]:
    """Functions the model called that the request did not offer (sorted; empty when
    the request's offer is unknown)."""
    if not f.res_extra:
        return []
    offered = f.req_extra.get("functions") if f.req_extra else None
    if offered is None and not (f.has_req and not f.tools_offered):
        return []
    names = set(offered or ())
    return sorted({a[2] for a in f.actions if a[0] == "function_call"
                   and a[2] is not None and a[2] not in names})


def unanswered(open_actions: tuple[Action, ...], f: TurnFacts) -> list[dict[str, Any]]:
    """The calls the conversation's previous turn handed over that this turn's request
    does not answer (an approval request is answered by a decision, not a call id)."""
    answered = set(f.req_extra.get("answered", ())) if f.req_extra else set()
    return [{"type": a[0], "call_id": a[1], "name": a[2]} for a in open_actions
            if a[0] != "mcp_approval_request" and a[1] is not None
            and a[1] not in answered and a[3] not in answered]
