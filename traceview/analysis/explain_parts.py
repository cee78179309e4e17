"""The explanation's sentences about what a turn holds beyond its tokens: hosted calls
and their evidence, context carried from earlier turns, non-text input, provider counters,
items the application must act on, attempts and run-level facts (explain.py puts them in
order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from traceview.analysis.explain_words import count_text, include_text, usd_text
from traceview.analysis.turn_reading import TurnReading
from traceview.capture.media import RULE as IMAGE_RULE

if TYPE_CHECKING:
    from traceview.analysis.hosted.carry import TurnCarry


def hosted_sentence(c: dict[str, Any], sent: tuple[str, ...] = ()) -> str:
    name = c["type"].removesuffix("_call")
    q = c.get("queries") or []
    queries = f" for {', '.join(repr(x) for x in q[:3])}" if q else ""
    base = f"{name} call {c.get('id') or ''} ({c.get('status') or 'no status'}){queries}: "
    ev = c["evidence"]
    if ev == "captured":
        return base + f"evidence captured{' — ' + c['detail'] if c.get('detail') else ''}."
    if ev == "empty":
        return base + "ran and found nothing (empty result list)."
    if c.get("include") and c["include"] in sent:
        return base + (f"results not captured although the request sent "
                       f"{include_text(c['include'])}: the provider returned nothing.")
    if c.get("include"):
        return base + f"results not captured — add {include_text(c['include'])} to the request."
    return base + f"no evidence recorded{' — ' + c['detail'] if c.get('detail') else ''}."


def carried_sentences(carry: TurnCarry, index: int) -> list[str]:
    """The ledger's account: what this turn's arrivals cost later, what it carries now,
    from the ledger's one walk of the turn's sources (`TurnCarry.account`)."""
    out: list[str] = []
    # The sources that arrived before this turn: their tokens, their cost (None once one
    # is unknown; else added in order, as sum() adds), and where they came from.
    tokens, froms = 0, []
    cost: float | None = 0.0
    for arrived, n, here, kind, later, rebilled, ended in carry.account():
        if kind is not None:  # arrived on this turn: what it costs later
            what = "This deposit" if kind == "deposit" else "These captured hosted results"
            if later:
                out.append(f"{what} has been re-billed on {later} later turn"
                           f"{'s' if later != 1 else ''}: ≈ {count_text(n * later)} tokens, "
                           f"{usd_text(rebilled)} (apportioned at each turn's cached/fresh "
                           "split)" + (f"; carrying ended by {ended[1].replace('_', ' ')} "
                                       f"on turn {ended[0]}." if ended else "."))
            else:
                out.append(f"{what} is billed on this turn ({count_text(n)} tokens); no "
                           "later turn of the conversation has re-billed it yet"
                           + (f" (compaction on turn {ended[0]} ended it)." if ended else "."))
        if arrived != index:
            tokens += n
            if cost is not None:
                cost = None if here is None else cost + here
            froms.append(f"turn {arrived}")
    if froms:
        out.append(f"Carries ≈ {count_text(tokens)} tokens of context that arrived without a "
                   f"request ({', '.join(froms)}): {usd_text(cost)} of this turn's cost "
                   "(apportioned).")
    out.extend(_outlived(carry))
    return out


def _outlived(carry: Any) -> list[str]:
    return [f"Context from {o['source']} outlives its tool configuration: {o['reason']}."
            for o in carry.outlived_tools]


def media_sentences(r: TurnReading) -> list[str]:
    media = r.media_input
    if not media:
        return []
    parts = []
    for m in media:
        what = m["type"]
        if m.get("width"):
            what += f" {m['width']}×{m['height']}"
        if m.get("detail"):
            what += f" detail={m['detail']}"
        parts.append(f"{what}: " + (f"≈ {count_text(m['tokens'])} tokens" if m["tokens"] is not None
                                    else "tokens unknown"))
    s = f"Non-text input: {'; '.join(parts)}"
    if any(m["tokens"] is not None for m in media):
        s += f" (images estimated by the {IMAGE_RULE})"
    return [s + "."]


def counter_sentences(r: TurnReading) -> list[str]:
    out = []
    for c in r.provider_counters:
        if c["provider"] != c["items"]:
            out.append(f"The provider counted {c['provider']} ({c['counter']}) but the output "
                       f"holds {c['items']} {c['item']} items; cost uses the provider's count.")
    return out


def item_sentences(r: TurnReading) -> list[str]:
    """Items that change what happens next, and items this version cannot read."""
    out = []
    for u in r.unknown_items:
        out.append(f"Output item {u['index']} is an unknown item type {u['type']!r}: not read "
                   "(it may be a hosted call this version does not know).")
    for a in r.action_items:
        name = f" {a['name']}" if a.get("name") else ""
        if a["type"] == "mcp_approval_request":
            out.append(f"The turn ends waiting for approval of MCP call{name}: the application "
                       "must answer with an mcp_approval_response.")
        elif a["type"] == "computer_call":
            out.append(f"Computer action{name} requested: the application must perform it and "
                       "send a computer_call_output screenshot.")
        else:
            out.append(f"The model called {a['type'].removesuffix('_call')}{name}: the "
                       "application must run it and send its output.")
    ctx = r.context or {}
    for a in ctx.get("unanswered", ()):
        out.append(f"The next turn did not answer {a['type']} {a.get('name') or ''} "
                   f"({a.get('call_id')}).")
    if ctx.get("unoffered"):
        out.append(f"The model called {', '.join(ctx['unoffered'])}, which the request did not "
                   "offer as a function tool.")
    if "refusal" in r.markers:
        out.append("The model refused (a refusal is in the output).")
    return out


def attempt_sentences(r: TurnReading) -> list[str]:
    tries = r.attempts
    if not tries:
        return []
    failed = tries[:-1]
    lines = ", ".join(
        f"line {a['line']} {a['status']}"
        + (f" HTTP {a['http_status']}" if a.get("http_status") else "")
        + (f" {a['error_code']}" if a.get("error_code") else "") for a in failed)
    return [f"{len(tries)} attempts: {lines}, then this one. Caller latency "
            f"{count_text(r.caller_elapsed_ms)} ms includes the failed attempts' elapsed time."]


def run_fact_sentences(r: TurnReading) -> list[str]:
    out = []
    if "unstored_chain" in r.markers:
        out.append("store:false on a chained turn: this response is not stored, so the chain "
                   "cannot be read back from the provider or continued from it.")
    for c in (r.context or {}).get("changed", ()):
        out.append(f"{c['field']} changed from {c['from']} to {c['to']} inside the conversation.")
    if "instructions_dropped" in r.markers:
        out.append("Instructions were sent on the chain's first turn but not here: they do not "
                   "carry over previous_response_id, so this turn ran without them.")
    if r.request_id or r.processing_ms is not None:
        rid = f"x-request-id {r.request_id}" if r.request_id else ""
        pm = f"openai-processing-ms {r.processing_ms}" if r.processing_ms is not None else ""
        out.append("Provider headers: " + ", ".join(x for x in (rid, pm) if x) + ".")
    return out
