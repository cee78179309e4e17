"""The explanation's sentences for the lineage, stream and cost markers (issues 33-35):
what happened on this turn, in the turn's own numbers and ids, so a reader of the account
learns which citation, which sequence numbers, which budget, without opening the JSON.

Each sentence reads what the core kept behind the marker (the lineage's citations, the
stream's facts, the cost section's findings); a marker whose facts are not at hand still
gets a sentence saying what the marker means.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from traceview.analysis.cost.section import cost_marks
from traceview.analysis.explain_words import count_text, dollars, include_text
from traceview.analysis.turn_reading import TurnReading

CITATIONS_NAMED = 3  # citations named per sentence; the rest are counted


def _lineage(r: TurnReading) -> dict[str, Any]:
    return getattr(r, "lineage", None) or {}


def _tool_choice_unmet(r: TurnReading) -> list[str]:
    choice = _lineage(r).get("tool_choice")
    if choice is None or choice in ("required", "allowed_tools:required"):
        said = f'tool_choice "{choice}"' if choice else "tool_choice"
        return [f"The request's {said} forced a tool call, but the response holds none: "
                "the model answered without calling a tool."]
    kind, _, name = choice.partition(":")
    what = f"{kind} tool {name}" if name else f"the {kind} tool"
    return [f"The request's tool_choice named {what}, but the response holds no call of "
            "it: the model answered without the tool it was told to call."]


def _cited(c: dict[str, Any], n: int) -> str:
    """"citation 2 (url_citation https://…, "title", output item 0, characters 10–40)"."""
    parts = [c["type"]]
    source = c.get("url") or c.get("file_id")
    if source:
        parts[0] += f" {source}"
    if c.get("title"):
        parts.append(f"{c['title']!r}")
    if c.get("start_index") is not None and c.get("end_index") is not None:
        parts.append(f"output item {c['output_item']}, characters {c['start_index']}–"
                     f"{c['end_index']}")
    else:
        parts.append(f"output item {c['output_item']}")
    return f"citation {n} ({', '.join(parts)})"


def _some(found: list[str]) -> list[str]:
    more = len(found) - CITATIONS_NAMED
    return found[:CITATIONS_NAMED] + ([f"{more} more alike"] if more > 0 else [])


def _citation_unretrieved(r: TurnReading) -> list[str]:
    cites = _lineage(r).get("citations") or []
    out = []
    returned = [_cited(c, n) for n, c in enumerate(cites, 1) if c["source"] == "not_returned"]
    if returned:
        out.append("No captured retrieval of this conversation returned the source of "
                   + "; ".join(_some(returned)) + ".")
    unchecked = [(n, c) for n, c in enumerate(cites, 1) if c["source"] == "not_captured"]
    for n, c in unchecked[:CITATIONS_NAMED]:
        out.append(_unchecked(r, c, n))
    if len(unchecked) > CITATIONS_NAMED:
        out.append(f"{len(unchecked) - CITATIONS_NAMED} more citations could not be checked "
                   "alike.")
    return out or ["A citation names a source no captured retrieval returned."]


def _unchecked(r: TurnReading, c: dict[str, Any], n: int) -> str:
    """A citation whose retrieval ran but whose results the capture does not hold: which
    call, on which turn, and the include flag that would have captured them."""
    head = _cited(c, n)
    head = head[0].upper() + head[1:] + " could not be checked: "
    by, flag = c.get("retrieved_by") or {}, c.get("include")
    if not flag:
        return head + "the retrieval's evidence is not in the capture."
    call = f"the {flag.split('.')[0].removesuffix('_call')} call {by.get('call') or ''}"
    if by.get("turn") != r.index:
        return (head + f"{call} on turn {by.get('turn')} returned results the capture does "
                f"not hold (capturing them takes {include_text(flag)} on that request).")
    if flag in r.include_sent:
        return (head + f"{call} ran although the request sent {include_text(flag)}, and the "
                "provider returned no results to check it against.")
    return (head + f"{call} returned results the capture does not hold (the request lacked "
            f"{include_text(flag)}).")


def _citation_unidentified(r: TurnReading) -> list[str]:
    cites = _lineage(r).get("citations") or []
    named = [_cited(c, n) for n, c in enumerate(cites, 1) if c["source"] == "unidentified"]
    if not named:
        return ["A citation names no source (no url or file id)."]
    return ["Nothing identifies the source of " + "; ".join(_some(named))
            + ": it has no url or file id to check against a retrieval."]


def _stream_facts(r: TurnReading) -> dict[str, Any]:
    """The stream's facts the scan kept on the response (capture/stream_facts.py)."""
    res = getattr(r, "res", None)
    extra = getattr(res, "extra", None)
    return (extra.get("stream") if extra else None) or {}


def _fault(i: int, kind: str, seq: int, top: int) -> str:
    if kind == "duplicate":
        return f"event {i} repeats {seq}"
    if kind == "out_of_order":
        return f"event {i} has {seq} after {top}"
    return f"event {i} has {seq} after {top} ({seq - top - 1} missing)"


def _stream_sequence(r: TurnReading) -> list[str]:
    s = _stream_facts(r)
    count = s.get("sequence_faults")
    if not count:
        return ["The stream's sequence numbers repeat, skip or go backwards."]
    listed = ", ".join(_fault(*f) for f in s["sequence"])
    more = count - len(s["sequence"])
    return [f"The stream's sequence numbers are not the provider's: {count_text(count)} "
            f"fault{'s' if count != 1 else ''} — {listed}"
            + (f", and {count_text(more)} more" if more > 0 else "")
            + ": the capture's copy of the stream has replayed, resent or dropped events."]


def _stream_text_mismatch(r: TurnReading) -> list[str]:
    said = _stream_facts(r).get("text_mismatch")
    if not said:
        return ["The stream's text deltas disagree with its .done text or the final body."]
    return [f"The stream's text disagrees with itself: {said}; the captured deltas are not "
            "the text the provider said it produced."]


def _moderation_flagged(r: TurnReading) -> list[str]:
    m = cost_marks(r).get("moderation_flagged")
    if m is None:
        return ["A moderation call the capture holds flagged the input this turn sent."]
    cats = ", ".join(m.get("categories") or ()) or "no category named"
    basis = "the same user's turn" if m.get("user") else "the turn"
    basis += " nearest in time" if m.get("ts") is not None else " next by line"
    return [f"The moderation call on line {m['line']} flagged its input ({cats}); this is "
            f"{basis}, the one it guarded."]


def _over_budget(r: TurnReading) -> list[str]:
    b = cost_marks(r).get("over_budget")
    if b is None:
        return ["This turn's conversation or day went over the --budget given."]
    per = b["per"]
    unknown = b["cost_unknown_turns"]
    return [f"Over budget: {per} {b[per]} came to ≈ {dollars(b['cost_usd'])} over "
            f"{b['turns']} turn{'s' if b['turns'] != 1 else ''}, {dollars(b['over_by_usd'])} "
            f"past the --budget of {dollars(b['budget_usd'])} a {per}; its running total "
            "first passed the budget on this turn"
            + (f" ({unknown} of its turns' cost unknown, not counted)." if unknown else ".")]


# In the order the sentences are written.
_SENTENCES: dict[str, Callable[[TurnReading], list[str]]] = {
    "tool_choice_unmet": _tool_choice_unmet,
    "citation_unretrieved": _citation_unretrieved,
    "citation_unidentified": _citation_unidentified,
    "stream_sequence": _stream_sequence,
    "stream_text_mismatch": _stream_text_mismatch,
    "moderation_flagged": _moderation_flagged,
    "over_budget": _over_budget,
}
NEWER_MARKERS = frozenset(_SENTENCES)


def marker_sentences(r: TurnReading) -> list[str]:
    """The sentences of the turn's lineage, stream and cost markers, in a fixed order."""
    markers = r.markers
    out: list[str] = []
    for name, sentences in _SENTENCES.items():
        if name in markers:
            out.extend(sentences(r))
    return out
