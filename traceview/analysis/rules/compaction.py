"""The compaction rules: the conversation shrank, explicitly or (likely) silently.

*Explicit* when the capture shows it: a `/responses/compact` call, a compaction item in
the output or the input, a compaction trigger, or a cache miss the provider blames on
compaction. *Likely* when only the billed input fell by more than `compaction_min_drop`.
A request that only resends a compaction item seen earlier is not a new compaction:
compaction counts where it happened.
"""

from __future__ import annotations

from typing import Any

from traceview.analysis.options import Options
from traceview.analysis.rules.facts import TurnFacts
from traceview.analysis.rules.state import ConversationState

# How far below the input account a turn may be billed before the fall is unexplained:
# the account's p90 error on real captures (docs/input-account.md).
ACCOUNT_TOLERANCE = 0.05


class CompactionItems:
    """The turn that first produced or sent each compaction item seen in the capture."""

    def __init__(self) -> None:
        self.first_seen: dict[str, int] = {}

    def resent(self, f: TurnFacts) -> int | None:
        """The turn that first produced or sent a compaction item this request carries,
        when one was seen before (a resend); remembers this turn's items."""
        sent = f.req_extra.get("compaction_keys", ()) if f.req_extra else ()
        made = f.res_extra.get("compaction_keys", ()) if f.res_extra else ()
        if not sent and not made:  # most turns: nothing to look up or remember
            return None
        seen = self.first_seen
        found = next((seen[k] for k in sent if k in seen), None)
        for k in (*sent, *made):
            seen.setdefault(k, f.index)
        return found


def compaction(f: TurnFacts, st: ConversationState, resent: int | None) -> bool:
    """Whether the capture shows a compaction on this turn (`resent`: the turn a resent
    compaction item came from, which is not a new one)."""
    if f.api == "compact" or f.compaction_output or f.compaction_trigger:
        return True
    if f.compaction_input and resent is None:
        return True
    return (f.has_res and not st.last_compacted
            and f.cache_miss_reason == "context_compacted")


def compaction_likely(f: TurnFacts, st: ConversationState, options: Options,
                      resent: int | None, found: dict[str, Any], expected: int | None = None,
                      compactable: bool = True) -> bool:
    """Whether billed input fell by more than the options' drop with no compaction in the
    capture. Not when the input account explains the fall (`expected`: a schema, tool or
    instructions dropped, history trimmed by the application), nor when the turn could not
    have been compacted (`compactable`: store false, no truncation "auto", no compaction
    item). A fall after a hosted loop of several passes is the loop ending, not a
    compaction: `found` notes it instead."""
    prev, inp = st.last_input, f.input_tokens
    if st.last_compacted or prev is None or inp is None or not compactable:
        return False
    if inp >= prev - options.compaction_min_drop:
        return False
    if expected is not None and inp >= expected - max(options.compaction_min_drop,
                                                       ACCOUNT_TOLERANCE * expected):
        return False
    if st.last_passes > 1:
        found["after_passes"] = {"turn": st.last_index, "passes": st.last_passes}
        return False
    return resent is None
