"""The cost section in words, for the text and markdown reports: who the money went to
(per tenant, case, user…), storage accrued, embeddings and flagged moderations, the month
projected and what went over budget. Every number is the JSON report's `cost` section."""

from __future__ import annotations

from typing import Any

from traceview.report.fmt import num, usd


def cost_text(section: dict[str, Any] | None) -> list[str]:
    """Lines to print (none when the capture has nothing of the kind to say)."""
    if not section:
        return []
    out: list[str] = []
    for key, groups in (section.get("attribution") or {}).get("groups", {}).items():
        if not any(g["value"] is not None for g in groups):
            continue
        out.append("")
        out.append(f"by {key}: conversations · turns · carried context · cost")
        for g in groups[:12]:
            name = "(none)" if g["value"] is None else g["value"]
            out.append(f"  {name:<20} {g['conversations']:>4} · {g['turns']:>5} · "
                       f"{num(g['carried_tokens']):>9} tokens ({usd(g['carried_cost_usd'])}) · "
                       f"{usd(g['cost_usd'])}")
    for s in section.get("storage") or ():
        fee = usd(s["usd"]) if s["usd"] is not None else "unknown"
        out.append(f"vector store {s['id']}: storage accrued {fee} over "
                   f"{s['days'] if s['days'] is not None else '?'} days, {s['ended']} "
                   f"({s['basis']})")
    ex = section.get("exchanges") or []
    if ex:
        emb = [e for e in ex if e["kind"] == "embeddings"]
        mod = [e for e in ex if e["kind"] == "moderations"]
        cost = sum(e["usd"] or 0.0 for e in ex)
        out.append(f"{len(emb)} embeddings ({num(sum(e['tokens'] or 0 for e in emb))} tokens) "
                   f"and {len(mod)} moderations priced: {usd(cost)}")
    for f in section.get("moderation_flagged") or ():
        out.append(f"moderation at line {f['line']} flagged {', '.join(f['categories'])}: "
                   f"guarded turn {f['guarded_turn']}")
    proj = section.get("projection")
    if proj:
        out.append("")
        out.append(f"{proj['label']} ({num(proj['per_month'])} conversations a month):")
        out.extend(f"  {line['arithmetic']}" for line in proj["lines"])
        out.append(f"  total: {proj['total_arithmetic']}")
    budget = section.get("budget")
    if budget:
        over = budget["over"]
        out.append("")
        out.append(f"budget ${budget['usd']:g} per {budget['per']}: "
                   + (f"{len(over)} over" if over else "nothing over"))
        out.extend(f"  {o[budget['per']]}: {usd(o['cost_usd'])} (over by "
                   f"{usd(o['over_by_usd'])}; from turn {o['first_turn_over']})" for o in over)
    return out
