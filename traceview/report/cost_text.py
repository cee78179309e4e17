"""The cost section in words, for the text and markdown reports: who the money went to
(per tenant, case, user…), storage accrued, embeddings and flagged moderations, the month
projected and what went over budget. Every number is the JSON report's `cost` section; the
two renderings share each sentence so they cannot drift apart."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from traceview.report.fmt import num, usd


def _groups(section: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The attribution keys worth printing: those where some group has a value."""
    return [(key, groups) for key, groups
            in (section.get("attribution") or {}).get("groups", {}).items()
            if any(g["value"] is not None for g in groups)]


def _group_cells(g: dict[str, Any]) -> tuple[str, str, str, str, str, str]:
    """One group's name, conversations, turns, carried tokens and their cost, and cost."""
    return ("(none)" if g["value"] is None else str(g["value"]), str(g["conversations"]),
            str(g["turns"]), num(g["carried_tokens"]), usd(g["carried_cost_usd"]),
            usd(g["cost_usd"]))


def _storage(s: dict[str, Any]) -> str:
    if s["days"] is None:  # no life to price: say why, not "? days"
        return f"vector store {s['id']}: storage accrued unknown ({s['basis']})"
    fee = usd(s["usd"]) if s["usd"] is not None else "unknown"
    return (f"vector store {s['id']}: storage accrued {fee} over {s['days']} days, "
            f"{s['ended']} ({s['basis']})")


def _container(c: dict[str, Any]) -> str:
    """One container's billed time and fee, each a range with its basis."""
    head = f"container {c['id']} ({c['memory']}): "
    if c["minutes_low"] is None:
        return head + f"billed time unknown ({c['basis']})"
    fee = "unknown" if c["usd_low"] is None else (
        usd(c["usd_low"]) if c["usd_low"] == c["usd_high"]
        else f"{usd(c['usd_low'])}–{usd(c['usd_high'])}")
    return (head + f"billed time {c['minutes_low']:g}–{c['minutes_high']:g} min "
            f"({c['start_basis']} → {c['last_use_basis']}; at most to its end: "
            f"{c['end_basis']}), fee {fee} ({c['basis']})")


def _exchanges(ex: list[dict[str, Any]]) -> str:
    emb = [e for e in ex if e["kind"] == "embeddings"]
    mod = [e for e in ex if e["kind"] == "moderations"]
    cost = sum(e["usd"] or 0.0 for e in ex)
    return (f"{len(emb)} embeddings ({num(sum(e['tokens'] or 0 for e in emb))} tokens) "
            f"and {len(mod)} moderations priced: {usd(cost)}")


def _flagged(f: dict[str, Any]) -> str:
    return (f"moderation at line {f['line']} flagged {', '.join(f['categories'])}: "
            f"guarded turn {f['guarded_turn']}")


def _budget_head(budget: dict[str, Any]) -> str:
    over = budget["over"]
    return (f"budget ${budget['usd']:g} per {budget['per']}: "
            + (f"{len(over)} over" if over else "nothing over"))


def _over(budget: dict[str, Any], o: dict[str, Any]) -> str:
    return (f"{o[budget['per']]}: {usd(o['cost_usd'])} (over by {usd(o['over_by_usd'])}; "
            f"from turn {o['first_turn_over']})")


def _facts(section: dict[str, Any]) -> list[str]:
    """Storage, exchanges and flagged moderations: one sentence each."""
    out = [_storage(s) for s in section.get("storage") or ()]
    out += [_container(c) for c in section.get("containers") or ()]
    if section.get("exchanges"):
        out.append(_exchanges(section["exchanges"]))
    out += [_flagged(f) for f in section.get("moderation_flagged") or ()]
    return out


def cost_text(section: dict[str, Any] | None) -> list[str]:
    """Lines to print (none when the capture has nothing of the kind to say)."""
    if not section:
        return []
    out: list[str] = []
    for key, groups in _groups(section):
        out += ["", f"by {key}: conversations · turns · carried context · cost"]
        for g in groups[:12]:
            name, convs, turns, tokens, carried, cost = _group_cells(g)
            out.append(f"  {name:<20} {convs:>4} · {turns:>5} · {tokens:>9} tokens "
                       f"({carried}) · {cost}")
    out += _facts(section)
    proj = section.get("projection")
    if proj:
        out += ["", f"{proj['label']} ({num(proj['per_month'])} conversations a month):"]
        out.extend(f"  {line['arithmetic']}" for line in proj["lines"])
        out.append(f"  total: {proj['total_arithmetic']}")
    budget = section.get("budget")
    if budget:
        out += ["", _budget_head(budget)]
        out.extend(f"  {_over(budget, o)}" for o in budget["over"])
    return out


def cost_markdown(section: dict[str, Any] | None, cell: Callable[[str], str]) -> list[str]:
    """The same section as markdown: a table per attribution key, the rest as bullets.
    `cell` escapes text that lands in a table cell (tenant names are the caller's text)."""
    if not section:
        return []
    out: list[str] = []
    for key, groups in _groups(section):
        out += ["", f"### Cost by {cell(key)}", "",
                "| value | conversations | turns | carried tokens | carried cost | cost |",
                "|---|---:|---:|---:|---:|---:|"]
        out += ["| " + " | ".join(cell(c) for c in _group_cells(g)) + " |"
                for g in groups[:12]]
    facts = _facts(section)
    if facts:
        out += ["", "### Cost outside the turns", ""] + [f"- {cell(f)}" for f in facts]
    proj = section.get("projection")
    if proj:
        out += ["", "### Volume projection", "",
                f"{cell(proj['label'])} ({num(proj['per_month'])} conversations a month):", ""]
        out += [f"- {cell(line['arithmetic'])}" for line in proj["lines"]]
        out.append(f"- **total:** {cell(proj['total_arithmetic'])}")
    budget = section.get("budget")
    if budget:
        out += ["", "### Budget", "", f"{cell(_budget_head(budget))}:", ""]
        out += [f"- {cell(_over(budget, o))}" for o in budget["over"]]
    return ["", "## Cost", *out] if out else []
