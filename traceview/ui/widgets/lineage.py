"""A turn's evidence lineage in the detail view: choices and settings, what each hosted
call retrieved, and each citation beside the text it annotates with where its source
came from. Renders the report's `lineage` (analysis/lineage.py); computes nothing."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from traceview.ui.safe_text import safe

_VERDICT = {"retrieved": ("✓ returned by", "green"),
            "not_returned": ("⁇ no captured retrieval returned it", "red"),
            "not_captured": ("⁇ cannot be checked: evidence not captured", "yellow"),
            "unidentified": ("⍰ names no source (no url or file id)", "red")}
_QUOTE = 60


def _texts(response: Any) -> dict[int, str]:
    """Output item (chat: choice) -> its text, to quote the span a citation annotates."""
    out: dict[int, str] = {}
    if isinstance(response, dict) and isinstance(response.get("body"), dict):
        response = response["body"]  # a capture record
    if not isinstance(response, dict):
        return out
    for n, item in enumerate(response.get("output") or []):
        parts = item.get("content") if isinstance(item, dict) else None
        if isinstance(parts, list):
            out[n] = "".join(p.get("text") or "" for p in parts
                             if isinstance(p, dict) and isinstance(p.get("text"), str))
    for n, ch in enumerate(response.get("choices") or []):
        msg = ch.get("message") if isinstance(ch, dict) else None
        if isinstance(msg, dict) and isinstance(msg.get("content"), str):
            out[n] = msg["content"]
    return out


def _line(out: Text, text: str, style: str | None = None) -> None:
    """One line of untrusted text: sanitised (safe), then the newline."""
    out.append_text(safe(text, style or ""))
    out.append("\n")


def quote(c: dict[str, Any], texts: dict[int, str]) -> str | None:
    """The annotated span (or, for an index-only citation, the words before it)."""
    text = texts.get(c["output_item"])
    start, end = c["start_index"], c["end_index"]
    if text is None or start is None:
        return None
    if end is None:
        span = text[max(0, start - _QUOTE):start]
    else:
        span = text[start:end]
    span = " ".join(span.split())
    return span[:_QUOTE] + ("…" if len(span) > _QUOTE else "")


def lineage_text(lineage: dict[str, Any] | None, response: Any = None) -> Text:
    """The lineage section of the detail view (empty when the turn has none)."""
    out = Text()
    if not lineage:
        return out
    _settings(out, lineage)
    for r in lineage["retrieval"]:
        _retrieval(out, r)
    texts = _texts(response)
    for c in lineage["citations"]:
        _citation(out, c, texts)
    for s in lineage["safety_checks"]:
        ack = {True: "acknowledged by the next turn", False: "NOT acknowledged by the next "
               "turn", None: "no next turn in the capture"}[s["acknowledged"]]
        out.append("safety check ", style="dim")
        _line(out, f"{s['id']} ({s['code']}) on {s['call_id']}: {ack}")
    for note in lineage["notes"]:
        _line(out, f"note: {note}", "italic")
    return out


def _settings(out: Text, lin: dict[str, Any]) -> None:
    s = lin["sampling"]
    bits = [f"{k} {v}" for k, v in (("tool_choice", lin["tool_choice"]),
                                    ("temperature", s["temperature"]), ("top_p", s["top_p"]),
                                    ("seed", s["seed"]),
                                    ("reasoning.effort", s["reasoning_effort"]))
            if v is not None]
    if lin["tool_choice_met"] is False:
        bits.append("⊗ no tool call made")
    lp = lin["logprobs"]
    if lp:
        bits.append(f"logprobs: {lp['tokens']} tokens, mean p {lp['mean_probability']:.3f}, "
                    f"min p {lp['min_probability']:.3f}")
    if bits:
        out.append("choices ", style="dim")
        _line(out, " · ".join(bits))


def _retrieval(out: Text, r: dict[str, Any]) -> None:
    out.append("retrieved ", style="dim")
    head = f"{r['type']} {r['id'] or ''}"
    if r["queries"]:
        head += " for " + ", ".join(repr(q) for q in r["queries"])
    if r["vector_stores"]:
        head += " in " + ", ".join(r["vector_stores"])
    _line(out, head)
    if r["include"]:
        _line(out, f"    ✗ results not captured: include {r['include']}", "yellow")
    for x in r["results"] or ():
        score = "—" if x["score"] is None else f"{x['score']:.3f}"
        _line(out, f"    {score}  {x['file_id']}  {x['filename'] or ''}")
    for url in r["sources"] or ():
        _line(out, f"    {url}")
    if r["container_id"]:
        _line(out, f"    container {r['container_id']}")


def _citation(out: Text, c: dict[str, Any], texts: dict[int, str]) -> None:
    said = quote(c, texts)
    out.append("cites ", style="dim")
    if said:
        out.append_text(safe(f"“{said}” "))
    out.append_text(safe(f"→ {c['title'] or ''} {c['url'] or c['file_id'] or ''} "
                         f"[{c['type']}]  "))
    label, style = _VERDICT.get(c["source"] or "", ("(not checked)", "dim"))
    by = c["retrieved_by"]
    if by and c["source"] == "retrieved":
        label += f" {by['call']} (turn {by['turn']})"
    elif c["include"]:
        label += f": include {c['include']}"
    _line(out, label, style)
