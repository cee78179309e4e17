"""Plain-language account of a turn's numbers, for the detail pane and the report.

Only words are composed here; every number comes from the TurnReport as computed. The
sentences about what a turn holds beyond its tokens are in explain_parts.py, the newer
markers' sentences in explain_markers.py, the number styles in explain_words.py.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from traceview.analysis.cost.price import rates_text
from traceview.analysis.explain_markers import NEWER_MARKERS, marker_sentences
from traceview.analysis.explain_parts import (
    attempt_sentences,
    carried_sentences,
    counter_sentences,
    hosted_sentence,
    item_sentences,
    media_sentences,
    run_fact_sentences,
)
from traceview.analysis.explain_words import bytes_text, count_text, dollars, include_text
from traceview.analysis.turn_reading import TurnReading

# The short names the sentences below (and tests) use.
_n, _b, _dollars, _include = count_text, bytes_text, dollars, include_text


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
    newer: bool  # any marker explain_markers.py puts in words


_PLANS: dict[tuple[str, ...], _Plan] = {}
# Markers whose sentences come from the turn's analysis context.
_RARE = frozenset(name for name in _Plan._fields if name not in ("deposit", "newer"))


def _plan(markers: list[str]) -> _Plan:
    key = tuple(markers)
    plan = _PLANS.get(key)
    if plan is None:
        has = [name in key for name in _Plan._fields[:-1]]
        plan = _Plan._make([*has, not NEWER_MARKERS.isdisjoint(key)])
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
    markers = r.markers
    plan = _plan(markers)
    _sent_and_billed(r, plan, out)
    ctx = r.context or {}
    if r.media_input:
        out.extend(media_sentences(r))
    _expected(r, out)
    deposit = _deposit(r) if plan.deposit else []
    out.extend(deposit)
    carry = getattr(r, "carried", None)
    if carry is not None:
        out.extend(carried_sentences(carry, r.index))
    copy = getattr(r, "provider_copy", None)
    if copy:
        out.append(f"The {copy['kind'].replace('_', ' ')} {copy['object']}: {copy['note']}.")
    if _RARE.intersection(markers) or ctx:
        _rare_context(r, plan, ctx, r.input_tokens, out)
    hosted = r.hosted_calls
    if hosted:
        sent = r.include_sent
        out.extend(hosted_sentence(c, sent) for c in hosted)
    if r.provider_counters:
        out.extend(counter_sentences(r))
    if r.unknown_items or r.action_items or ctx or plan.refusal:
        out.extend(item_sentences(r))
    status = r.status
    if status == "incomplete" or status == "failed" or r.finish_reasons or r.attempts:
        _failures(r, status, out)
    if (plan.unstored_chain or plan.instructions_dropped or ctx
            or r.request_id or r.processing_ms is not None):
        out.extend(run_fact_sentences(r))
    _record_gaps(r, plan, out)
    _cost(r, out)
    if plan.newer:
        out.extend(marker_sentences(r))
    notes = r.notes
    if notes:
        out.extend(notes)
    return out, deposit


def _sent_and_billed(r: TurnReading, plan: _Plan, out: list[str]) -> None:
    """What was sent, what was billed, what keeping the transcript would have resent."""
    request_bytes = r.request_bytes
    if request_bytes is None:
        out.append("The request was not recorded, so nothing is known about what was sent.")
    else:
        words = r.user_words
        out.append(f"Sent {_b(request_bytes)} ({_n(words)} word{'' if words == 1 else 's'})."
                   if words is not None
                   else f"Sent {_b(request_bytes)}.")
    inp = r.input_tokens
    if inp is not None:
        cached = r.cached_tokens
        reasoning = r.reasoning_tokens
        out.append(f"Billed {_n(inp)} input tokens"
                   f"{f', {_n(cached)} of them cached' if cached else ''}; "
                   f"{_n(r.output_tokens)} output tokens"
                   f"{f' ({_n(reasoning)} reasoning)' if reasoning else ''}.")
    elif r.status in ("failed", "unknown") or plan.request_only:
        out.append("No usage was recorded for this turn, so its billed tokens are unknown.")
    own = r.owned_state_bytes
    if own is not None and request_bytes is not None and own > request_bytes:
        out.append(f"Had the application kept the transcript itself, this request would have "
                   f"resent ≈ {_b(own)}.")


def _expected(r: TurnReading, out: list[str]) -> None:
    """The expected input and how it was reckoned; the passes of a hosted loop."""
    expected = r.expected_input
    if expected is not None:
        lines = r.input_account or ()
        if any(c["component"] == "carried" for c in lines):
            out.append(f"Expected ≈ {_n(expected)} input tokens: the previous turn's billed "
                       "input and visible output plus this request's itemised change (its "
                       "input account: new items, and instructions, tools and schema as they "
                       "changed).")
        else:
            out.append(f"Expected ≈ {_n(expected)} input tokens: the sum of this request's "
                       f"input account ({len(lines)} lines, counted in the model's own "
                       "encoding).")
    elif r.expected_input_unknown:
        out.append(r.expected_input_unknown[0].upper() + r.expected_input_unknown[1:] + ".")
    passes = r.model_passes
    if passes > 1:
        out.append(f"The output shows {passes} model passes (a hosted tool loop): billed input "
                   "counts the context once per pass, so a deposit is claimed only beyond "
                   f"{passes} × the expected input.")


def _record_gaps(r: TurnReading, plan: _Plan, out: list[str]) -> None:
    """A stream cut short, a request with no response, a response with no request."""
    if plan.stream_cut:
        out.append(f"The stream stopped after {_n(r.stream_events)} events without its "
                   "terminal event, so the turn has no usage.")
    if plan.request_only:
        out.append("No response was recorded for this request (the writer stopped, or the "
                   "call never returned).")
    if plan.response_only:
        out.append("This response has no recorded request.")


def _cost(r: TurnReading, out: list[str]) -> None:
    """The turn's cost with every rate named (issue 33), or why it is unknown."""
    cost = r.cost_usd
    if cost is not None:
        hosted_usd = r.cost_hosted_usd
        rates = rates_text(r.priced.parts, r.priced.tier)
        out.append(f"Cost ≈ {_dollars(cost)}, of which {_dollars(hosted_usd)} hosted tool "
                   f"fees: {rates}." if hosted_usd else f"Cost ≈ {_dollars(cost)}: {rates}.")
    elif r.cost_reason:
        out.append(f"Cost unknown: {r.cost_reason}.")


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
        out.extend(attempt_sentences(r))


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
