"""Plain-language account of a turn's numbers, for the detail pane and the report.

Only words are composed here; every number comes from the TurnReport as computed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from traceview.capture.estimate import METHOD

if TYPE_CHECKING:
    from traceview.analysis.turn_report import TurnReport


def _n(v: int | None) -> str:
    return "unknown" if v is None else f"{v:,}"


def _b(v: int | None) -> str:
    # Imported here: humanize pulls in datetime, decimal, gettext… (4 MB and 30 ms at start-up)
    # that a headless load of a large capture never needs.
    import humanize

    return "unknown" if v is None else humanize.naturalsize(v, binary=False, format="%.1f").replace(
        " Bytes", " B").replace(" Byte", " B")


def _include(flag: str) -> str:
    return f'include=["{flag}"]'


def explain(r: TurnReport) -> list[str]:
    out: list[str] = []
    words = f" ({r.user_words} words)" if r.user_words is not None else ""
    if r.request_bytes is None:
        out.append("The request was not recorded, so nothing is known about what was sent.")
    else:
        out.append(f"Sent {_b(r.request_bytes)}{words}.")
    if r.input_tokens is not None:
        cached = f", {_n(r.cached_tokens)} of them cached" if r.cached_tokens else ""
        reasoning = (f" ({_n(r.reasoning_tokens)} reasoning)" if r.reasoning_tokens else "")
        out.append(f"Billed {_n(r.input_tokens)} input tokens{cached}; "
                   f"{_n(r.output_tokens)} output tokens{reasoning}.")
    elif r.status in ("failed", "unknown") or "request_only" in r.markers:
        out.append("No usage was recorded for this turn, so its billed tokens are unknown.")
    if (r.owned_state_bytes is not None and r.request_bytes is not None
            and r.owned_state_bytes > r.request_bytes):
        out.append(f"Had the application kept the transcript itself, this request would have "
                   f"resent ≈ {_b(r.owned_state_bytes)}.")
    if r.expected_input is not None:
        out.append(f"Expected ≈ {_n(r.expected_input)} input tokens: the previous turn's billed "
                   f"input and visible output plus ≈ {_n(r.new_input_estimate)} for this "
                   f"request's new input (an estimate: {METHOD}).")
    out.extend(_deposit(r))
    if "compaction" in r.markers:
        out.append("Compaction happened on this turn (a compaction item, trigger or compact call "
                   "is in the capture); earlier items were replaced by an opaque summary.")
    if "compaction_likely" in r.markers:
        out.append(f"Billed input fell to {_n(r.input_tokens)} although the conversation grew, and "
                   "nothing in the capture shows compaction: the context shrank (cause unknown — "
                   "truncation=auto, withheld reasoning, or an unlogged compact call).")
    for c in r.hosted_calls:
        out.append(_hosted(c))
    if r.status == "incomplete":
        out.append(f"The response is incomplete ({r.incomplete_reason or 'no reason given'}).")
    if r.status == "failed":
        out.append(f"The call failed: {r.error or 'no error recorded'}.")
    if "stream_cut" in r.markers:
        out.append(f"The stream stopped after {_n(r.stream_events)} events without its terminal "
                   "event, so the turn has no usage.")
    if "request_only" in r.markers:
        out.append("No response was recorded for this request (the writer stopped, or the call "
                   "never returned).")
    if "response_only" in r.markers:
        out.append("This response has no recorded request.")
    if r.cost_usd is not None:
        hosted = r.cost_hosted_usd
        extra = f", of which ${hosted:.4f} hosted tool fees" if hosted else ""
        out.append(f"Cost ≈ ${r.cost_usd:.4f}{extra}.")
    elif r.cost_reason:
        out.append(f"Cost unknown: {r.cost_reason}.")
    out.extend(r.notes)
    return out


def findings(r: TurnReport) -> list[str]:
    """The sentences that say what is wrong or surprising about a turn, for screens to put
    before the arithmetic (a deposit and its cause, compaction, evidence not captured, a
    failed or cut-off call). Each is also in ``explain(r)``; empty for an ordinary turn."""
    out = list(_deposit(r))
    for sentence in explain(r):
        if sentence in out:
            continue
        if (sentence.startswith(("Compaction happened", "Billed input fell", "The call failed",
                                 "The response is incomplete", "The stream stopped"))
                or "results not captured" in sentence):
            out.append(sentence)
    return out


def _deposit(r: TurnReport) -> list[str]:
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
    elif a["evidence_missing"]:
        s += ", not captured."
    else:
        s += " (captured in this capture)."
    return [s]


def _hosted(c: dict) -> str:
    name = c["type"].removesuffix("_call")
    q = c.get("queries") or []
    queries = f" for {', '.join(repr(x) for x in q[:3])}" if q else ""
    base = f"{name} call {c.get('id') or ''} ({c.get('status') or 'no status'}){queries}: "
    ev = c["evidence"]
    if ev == "captured":
        return base + f"evidence captured{' — ' + c['detail'] if c.get('detail') else ''}."
    if ev == "empty":
        return base + "ran and found nothing (empty result list)."
    if c.get("include"):
        return base + f"results not captured — add {_include(c['include'])} to the request."
    return base + f"no evidence recorded{' — ' + c['detail'] if c.get('detail') else ''}."
