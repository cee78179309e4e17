"""What changes along a conversation or chain that the provider does not carry over.

`store: false` on a turn that chains makes the chain unreadable; instructions do not
carry over `previous_response_id`; a changed fingerprint or service tier means the
conversation was not served alike throughout.
"""

from __future__ import annotations

from typing import Any

from traceview.analysis.rules.facts import TurnFacts
from traceview.analysis.rules.state import ConversationState


def unstored_chain(f: TurnFacts) -> bool:
    """`store: false` on a turn that names a previous response or a conversation."""
    return f.store is False and bool(f.previous_response_id or f.req_conversation_id)


def instructions_dropped(f: TurnFacts, st: ConversationState) -> bool:
    """Instructions sent on the chain's first request are missing from this chained one."""
    return (f.has_req and bool(st.first_instructions) and bool(f.previous_response_id)
            and not f.instructions)


def changed_serving(f: TurnFacts, st: ConversationState) -> list[dict[str, Any]]:
    """system_fingerprint or service_tier values that differ from the conversation's
    last known ones (`fingerprint_changed`)."""
    if f.fingerprint == st.fingerprint and f.service_tier == st.service_tier:
        return []
    return [{"field": label, "from": before, "to": now}
            for label, now, before in (("system_fingerprint", f.fingerprint, st.fingerprint),
                                       ("service_tier", f.service_tier, st.service_tier))
            if now is not None and before is not None and now != before]
