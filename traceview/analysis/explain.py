"""Plain-language account of a turn's numbers, for the detail pane and the report.

Only words are composed here; every number comes from the TurnReport as computed.
"""

from __future__ import annotations

from math import log
from typing import Any, NamedTuple

from traceview.analysis.cost.price import rates_text
from traceview.analysis.turn_reading import TurnReading
from traceview.capture.media import RULE as IMAGE_RULE

_GROUPED: dict[int, str] = {}  # f"{n:,}" of the counts met so far (tokens repeat a lot)


def _n(v: int | None) -> str:
    if type(v) is not int:  # 5.0 == 5 as a key, but it reads "5.0": no cache for it
        return "unknown" if v is None else f"{v:,}"
    text = _GROUPED.get(v)
    if text is None:
        text = f"{v:,}"
        if len(_GROUPED) < 2048:
            _GROUPED[v] = text
    return text


_SUFFIXES = ("kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB", "RB", "QB")


def bytes_text(v: int | None) -> str:
    """`humanize.naturalsize(v, format="%.1f")` with " B" for bytes, written out: the same
    text (a test compares), without the translation lookups that made it a tenth of a
    report's time. Kept here so a headless load never imports humanize."""
    if v is None:
        return "unknown"
    if type(v) is int and 1000 <= v < 999_950:  # kB, the common case: one division
        return "%.1f kB" % (v / 1000)
    value = float(v)
    a = abs(value)
    if a < 1000:
        return f"{int(value)} B"
    exp = int(min(log(a, 1000), len(_SUFFIXES)))
    if exp < len(_SUFFIXES) and abs(float("%.1f" % (a / (1000**exp)))) >= 1000:
        exp += 1
    return "%.1f" % (value / (1000**exp)) + " " + _SUFFIXES[exp - 1]


_b = bytes_text


def _dollars(v: float) -> str:
    """Dollars in the report's one style: four decimals under $1, "<$0.0001" when smaller."""
    if 0 < v < 0.00005:
        return "<$0.0001"
    return f"${v:.4f}" if v < 1 else f"${v:,.2f}"


def _include(flag: str) -> str:
    return f'include=["{flag}"]'


class _Plan(NamedTuple):
    """What a turn's markers ask of its explanation, worked out once per combination of
    markers (a capture has a handful: `_plan`), not by a dozen list searches per turn."""

    deposit: bool
    compaction: bool
    compaction_likely: bool
    refusal: bool
    unstored_chain: bool
    instructions_dropped: bool
    stream_cut: bool
    request_only: bool
    response_only: bool


_PLANS: dict[tuple[str, ...], _Plan] = {}
# Markers whose sentences come from the turn's analysis context.
_RARE = frozenset(name for name in _Plan._fields if name != "deposit")


def _plan(markers: list[str]) -> _Plan:
    key = tuple(markers)
    plan = _PLANS.get(key)
    if plan is None:
        has = [name in key for name in _Plan._fields]
        plan = _Plan(*has)
        if len(_PLANS) < 1024:
            _PLANS[key] = plan
    return plan


def explain(r: TurnReading) -> list[str]:
    """The turn's account, sentence by sentence (what the detail pane and the report show)."""
    return _compose(r)[0]


def explain_and_findings(r: TurnReading) -> tuple[list[str], list[str]]:
    """`explain(r)` and `findings(r)` composed at once (a report writes both)."""
    out, deposit = _compose(r)
    return out, _scan(out, deposit)


def _compose(r: TurnReading) -> tuple[list[str], list[str]]:
    """(the sentences, the deposit's sentences: the first findings)."""
    # Each part is asked for only when its condition holds (most turns have no media, no
    # deposit, no counters, no attempts…): a report explains a hundred thousand turns.
    out: list[str] = []
    put = out.append
    markers = r.markers
    plan = _plan(markers)
    request_bytes = r.request_bytes
    if request_bytes is None:
        put("The request was not recorded, so nothing is known about what was sent.")
    else:
        words = r.user_words
        put(f"Sent {_b(request_bytes)} ({words} words)." if words is not None
            else f"Sent {_b(request_bytes)}.")
    inp = r.input_tokens
    status = r.status
    if inp is not None:
        cached = r.cached_tokens
        reasoning = r.reasoning_tokens
        put(f"Billed {_n(inp)} input tokens"
            f"{f', {_n(cached)} of them cached' if cached else ''}; "
            f"{_n(r.output_tokens)} output tokens"
            f"{f' ({_n(reasoning)} reasoning)' if reasoning else ''}.")
    elif status in ("failed", "unknown") or plan.request_only:
        put("No usage was recorded for this turn, so its billed tokens are unknown.")
    own = r.owned_state_bytes
    if own is not None and request_bytes is not None and own > request_bytes:
        put(f"Had the application kept the transcript itself, this request would have "
            f"resent ≈ {_b(own)}.")
    ctx = r.context or {}
    if r.media_input:
        out.extend(_media(r))
    expected = r.expected_input
    if expected is not None:
        lines = r.input_account or ()
        if any(c["component"] == "carried" for c in lines):
            put(f"Expected ≈ {_n(expected)} input tokens: the previous turn's billed input "
                "and visible output plus this request's itemised change (its input account:"
                " new items, and instructions, tools and schema as they changed).")
        else:
            put(f"Expected ≈ {_n(expected)} input tokens: the sum of this request's input "
                f"account ({len(lines)} lines, counted in the model's own encoding).")
    elif r.expected_input_unknown:
        put(r.expected_input_unknown[0].upper() + r.expected_input_unknown[1:] + ".")
    passes = r.model_passes
    if passes > 1:
        put(f"The output shows {passes} model passes (a hosted tool loop): billed input "
            "counts the context once per pass, so a deposit is claimed only beyond "
            f"{passes} × the expected input.")
    deposit = _deposit(r) if plan.deposit else []
    out.extend(deposit)
    carry = getattr(r, "carried", None)
    if carry is not None:
        out.extend(_carried(carry, r.index))
    copy = getattr(r, "provider_copy", None)
    if copy:
        put(f"The {copy['kind'].replace('_', ' ')} {copy['object']}: {copy['note']}.")
    if _RARE.intersection(markers) or ctx:
        _rare_context(r, plan, ctx, inp, out)
    hosted = r.hosted_calls
    if hosted:
        sent = r.include_sent
        for c in hosted:
            put(_hosted(c, sent))
    if r.provider_counters:
        out.extend(_counters(r))
    if r.unknown_items or r.action_items or ctx or plan.refusal:
        out.extend(_items(r))
    if status == "incomplete" or status == "failed" or r.finish_reasons or r.attempts:
        _failures(r, status, out)
    if (plan.unstored_chain or plan.instructions_dropped or ctx
            or r.request_id or r.processing_ms is not None):
        out.extend(_run_facts(r))
    if plan.stream_cut:
        put(f"The stream stopped after {_n(r.stream_events)} events without its "
            "terminal event, so the turn has no usage.")
    if plan.request_only:
        put("No response was recorded for this request (the writer stopped, or the "
            "call never returned).")
    if plan.response_only:
        put("This response has no recorded request.")
    cost = r.cost_usd
    if cost is not None:
        hosted_usd = r.cost_hosted_usd
        rates = rates_text(r.priced.parts, r.priced.tier)  # issue 33: every rate named
        put(f"Cost ≈ {_dollars(cost)}, of which {_dollars(hosted_usd)} hosted tool fees: "
            f"{rates}." if hosted_usd else f"Cost ≈ {_dollars(cost)}: {rates}.")
    elif r.cost_reason:
        put(f"Cost unknown: {r.cost_reason}.")
    notes = r.notes
    if notes:
        out.extend(notes)
    return out, deposit


def _rare_context(r: TurnReading, plan: _Plan, ctx: dict[str, Any], inp: int | None,
                  out: list[str]) -> None:
    """Compaction, seen or resent or likely, and input after a hosted loop's passes."""
    if plan.compaction:
        out.append("Compaction happened on this turn (a compaction item, trigger or compact "
                   "call is in the capture); earlier items were replaced by an opaque summary.")
    if ctx.get("compaction_resent"):
        out.append(f"The request resends the compaction item first seen on turn "
                   f"{ctx['compaction_resent']}: not a new compaction; billed input restarts "
                   "from the compacted window.")
    if plan.compaction_likely:
        out.append(f"Billed input fell to {_n(inp)} although the conversation grew, and "
                   "nothing in the capture shows compaction: the context shrank (cause unknown "
                   "— truncation=auto, withheld reasoning, or an unlogged compact call).")
    if ctx.get("after_passes"):
        a = ctx["after_passes"]
        out.append(f"Billed input is lower than turn {a['turn']}'s, which covered "
                   f"{a['passes']} model passes of a hosted tool loop: not a sign of "
                   "compaction.")


def _failures(r: TurnReading, status: str, out: list[str]) -> None:
    """An incomplete or failed response, its choices' finish reasons, its attempts."""
    if status == "incomplete":
        out.append(f"The response is incomplete ({r.incomplete_reason or 'no reason given'}).")
    if r.finish_reasons:
        out.append(f"{len(r.finish_reasons)} choices finished: {', '.join(r.finish_reasons)}.")
    if status == "failed":
        code = f" [HTTP {r.http_status}]" if r.http_status else ""
        ecode = f" (code {r.error_code})" if r.error_code else ""
        out.append(f"The call failed{code}: {r.error or 'no error recorded'}{ecode}.")
    if r.attempts:
        out.extend(_attempts(r))


def findings(r: TurnReading) -> list[str]:
    """The sentences that say what is wrong or surprising about a turn, for screens to put
    before the arithmetic (a deposit and its cause, compaction, evidence not captured, a
    failed or cut-off call). Each is also in ``explain(r)``; empty for an ordinary turn."""
    return explain_and_findings(r)[1]


def findings_of(r: TurnReading, explanation: list[str]) -> list[str]:
    """`findings` from an explanation already composed."""
    return _scan(explanation, _deposit(r) if "deposit" in r.markers else [])


def _scan(explanation: list[str], deposit: list[str]) -> list[str]:
    """The deposit's sentences, then every other sentence of the explanation that reads
    as a finding, in order, each once."""
    out = list(deposit)
    for sentence in explanation:
        if ((sentence.startswith(_FINDING_STARTS) or "results not captured" in sentence)
                and sentence not in out):
            out.append(sentence)
    return out


_FINDING_STARTS = ("Compaction happened", "Billed input fell", "The call failed",
                   "The response is incomplete", "The stream stopped")


def _deposit(r: TurnReading) -> list[str]:
    if "deposit" not in r.markers or r.unexplained_tokens is None:
        return []
    head = f"≈ {_n(r.unexplained_tokens)} tokens arrived without a request"
    a = r.attribution
    if not a:
        return [head + " — no earlier hosted call in this capture explains them (items added "
                "through the Conversations API, another client, or state the capture never saw)."]
    kinds = ", ".join(t.removesuffix("_call") for t in a["types"])
    turns = ", ".join(str(t) for t in a["turns"])
    s = f"{head} — consistent with {kinds} results deposited on turn {turns}"
    if a["evidence_missing"] and a["include"]:
        flags = " and ".join(_include(f) for f in a["include"])
        s += f", not captured (the request lacked {flags})."
    elif a["evidence_missing"] and a.get("include_sent"):
        flags = " and ".join(_include(f) for f in a["include_sent"])
        s += (f", not captured although the request sent {flags} (the provider returned "
              "nothing).")
    elif a["evidence_missing"]:
        s += ", not captured."
    else:
        s += " (captured in this capture)."
    return [s]


def _hosted(c: dict[str, Any], sent: tuple[str, ...] = ()) -> str:
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
                       f"{_include(c['include'])}: the provider returned nothing.")
    if c.get("include"):
        return base + f"results not captured — add {_include(c['include'])} to the request."
    return base + f"no evidence recorded{' — ' + c['detail'] if c.get('detail') else ''}."


def _usd(v: float | None) -> str:
    return "cost unknown" if v is None else f"≈ {_dollars(v)}"


def _carried(carry: Any, index: int) -> list[str]:
    """The ledger's account: what this turn's arrivals cost later, what it carries now."""
    out: list[str] = []
    charges = carry.charges  # (source, charge) of every source active on this turn
    for s in [s for s, c in charges if s.arrived_turn == c.turn]:  # carry.arrived
        what = "This deposit" if s.kind == "deposit" else "These captured hosted results"
        later = s.later_turns
        if later:
            out.append(f"{what} has been re-billed on {later} later turn"
                       f"{'s' if later != 1 else ''}: ≈ {_n(s.tokens_rebilled)} tokens, "
                       f"{_usd(s.cost_rebilled_usd)} (apportioned at each turn's cached/fresh "
                       "split)" + (f"; carrying ended by {s.ended_by['kind'].replace('_', ' ')} "
                                   f"on turn {s.ended_by['turn']}." if s.ended_by else "."))
        else:
            out.append(f"{what} is billed on this turn ({_n(s.tokens)} tokens); no later turn "
                       "of the conversation has re-billed it yet"
                       + (f" (compaction on turn {s.ended_by['turn']} ended it)."
                          if s.ended_by else "."))
    # The sources that arrived before this turn: their tokens, their cost (None once one
    # is unknown; else added in order, as sum() adds), and where they came from.
    tokens, froms = 0, []
    cost: float | None = 0.0
    for s, c in charges:
        if s.arrived_turn != index:
            tokens += c.tokens
            if cost is not None:
                cost = None if c.cost_usd is None else cost + c.cost_usd
            froms.append(f"turn {s.arrived_turn}")
    if froms:
        out.append(f"Carries ≈ {_n(tokens)} tokens of context that arrived without a request "
                   f"({', '.join(froms)}): {_usd(cost)} of this turn's cost (apportioned).")
    out.extend(_outlived(carry))
    return out


def _outlived(carry: Any) -> list[str]:
    return [f"Context from {o['source']} outlives its tool configuration: {o['reason']}."
            for o in carry.outlived_tools]


def _media(r: TurnReading) -> list[str]:
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
        parts.append(f"{what}: " + (f"≈ {_n(m['tokens'])} tokens" if m["tokens"] is not None
                                    else "tokens unknown"))
    s = f"Non-text input: {'; '.join(parts)}"
    if any(m["tokens"] is not None for m in media):
        s += f" (images estimated by the {IMAGE_RULE})"
    return [s + "."]


def _counters(r: TurnReading) -> list[str]:
    out = []
    for c in r.provider_counters:
        if c["provider"] != c["items"]:
            out.append(f"The provider counted {c['provider']} ({c['counter']}) but the output "
                       f"holds {c['items']} {c['item']} items; cost uses the provider's count.")
    return out


def _items(r: TurnReading) -> list[str]:
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


def _attempts(r: TurnReading) -> list[str]:
    tries = r.attempts
    if not tries:
        return []
    failed = tries[:-1]
    lines = ", ".join(
        f"line {a['line']} {a['status']}"
        + (f" HTTP {a['http_status']}" if a.get("http_status") else "")
        + (f" {a['error_code']}" if a.get("error_code") else "") for a in failed)
    return [f"{len(tries)} attempts: {lines}, then this one. Caller latency "
            f"{_n(r.caller_elapsed_ms)} ms includes the failed attempts' elapsed time."]


def _run_facts(r: TurnReading) -> list[str]:
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
