"""What a turn's itemised change says beyond its numbers: history sent twice, a cache lost.

`history_resent`: a turn that continues a chain or conversation handle (the provider
already holds the history) and sends the history again is billed for it twice.
`cache_lost`: the cached share of billed input collapses right after the prompt's prefix
changed (instructions, tools, schema, or a compaction): the lost cache is priced against
the previous turn's share.
"""

from __future__ import annotations

from typing import Any

from traceview.analysis.pricing import Pricing
from traceview.analysis.rules.account import TurnAccount
from traceview.analysis.rules.facts import TurnFacts
from traceview.analysis.rules.state import ConversationState

# A cache counts as lost when the previous share was at least this and this turn's is
# below half of it.
CACHED_SHARE_MIN = 0.5


def history_resent(acc: TurnAccount | None, found: dict[str, Any]) -> bool:
    """Whether a hosted turn sends again history the provider holds (`found`: tokens,
    items)."""
    if acc is None or acc.resent is None:
        return False
    tokens, items = acc.resent
    found["history_resent"] = {"tokens": tokens, "items": items}
    return True


def prefix_changes(acc: TurnAccount | None, st: ConversationState,
                   compacted: bool) -> list[str]:
    """What changed at the front of the prompt since the conversation's last turn with
    usage: the kinds of static lines that differ, and a compaction."""
    changed: list[str] = []
    prev = st.last_static
    if acc is not None and prev is not None and acc.static.kinds != prev.kinds:
        now, before = dict(acc.static.kinds), dict(prev.kinds)
        changed = [kind for kind in ("instructions", "tools", "response_format", "prompt")
                   if now.get(kind) != before.get(kind)]
    if compacted or st.last_compacted:
        changed.append("compaction")
    return changed


def cache_lost(f: TurnFacts, st: ConversationState, changed: list[str], pricing: Pricing,
               found: dict[str, Any]) -> bool:
    """Whether the cached share collapsed after a prefix change (`found`: what changed,
    the shares, the tokens no longer cached and what they cost over the cached rate)."""
    prev, inp, cached = st.last_cached_share, f.input_tokens, f.cached_tokens
    if not changed or prev is None or prev < CACHED_SHARE_MIN or not inp or cached is None:
        return False
    share = cached / inp
    if share >= prev / 2:
        return False
    lost = round(prev * inp) - cached
    full = pricing.cost(f.model, lost, 0, 0, ()).tokens_usd
    kept = pricing.cost(f.model, lost, lost, 0, ()).tokens_usd
    found["cache_lost"] = {
        "changed": changed, "previous_share": round(prev, 4), "share": round(share, 4),
        "tokens": lost, "usd": None if full is None or kept is None else round(full - kept, 6)}
    return True
