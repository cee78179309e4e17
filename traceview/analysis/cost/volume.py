"""A capture's own rates scaled to a month of traffic, and budgets checked against it.

The projection is arithmetic on what the capture shows, labelled as such: per conversation
(turns, hosted calls by tool, carried context, token cost) times the conversations a month
given. Each line carries its arithmetic as a sentence, so the reader can redo it: e.g.
"4.8 hosted calls per conversation × 30,000 conversations × $10.00 per 1,000 = $1,440.00".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

LABEL = ("projection: the capture's own per-conversation rates × the conversations a month "
         "given; not a measurement")


@dataclass(frozen=True)
class Budget:
    """`--budget usd=X,per=conversation|day`."""

    usd: float
    per: str  # "conversation" | "day"

    @classmethod
    def parse(cls, text: str) -> Budget:
        """The budget from its flag's text; ValueError naming what is wrong."""
        pairs = [p.split("=", 1) for p in text.split(",")]
        fields = dict(p for p in pairs if len(p) == 2)
        # A bare or repeated field is refused, not dropped or overridden: the budget a
        # person typed is the one applied.
        if len(fields) != len(pairs) or set(fields) - {"usd", "per"} or "usd" not in fields:
            raise ValueError(f"--budget {text!r}: expected usd=AMOUNT[,per=conversation|day]")
        try:
            usd = float(fields["usd"])
        except ValueError:
            raise ValueError(f"--budget: usd={fields['usd']!r} is not a number") from None
        if not usd >= 0 or usd == float("inf"):
            raise ValueError(f"--budget: usd must be a finite amount ≥ 0, not {usd}")
        per = fields.get("per", "conversation")
        if per not in ("conversation", "day"):
            raise ValueError(f"--budget: per={per!r} must be conversation or day")
        return cls(usd, per)


def _money(v: float) -> str:
    return f"${v:,.2f}" if v >= 1 else f"${v:.4f}"


def _num(v: float) -> str:
    return f"{v:,.0f}" if v == int(v) else f"{v:,.2f}".rstrip("0").rstrip(".")


def rates(turns: Sequence[Any], conversations: int) -> dict[str, Any]:
    """The capture's per-conversation rates: turns, hosted calls and fees by line item,
    the share of turns that made a hosted call (trigger rate), carried tokens and cost, and
    the token cost (over priced turns)."""
    calls: dict[str, list[float]] = {}  # line item -> [calls, usd]
    triggered = carried_tokens = 0
    carried_usd = tokens_usd = 0.0
    for t in turns:
        if t.calls:
            triggered += 1
        for p in t.priced.parts:
            if p.unit in ("call", "container"):
                got = calls.setdefault(p.line_item, [0.0, 0.0])
                got[0] += p.quantity
                got[1] += p.usd
            else:
                tokens_usd += p.usd
        carry = t.carried
        if carry is not None:
            d = carry.to_dict()
            carried_tokens += d.get("tokens") or 0
            carried_usd += d.get("cost_usd") or 0.0
    n = max(conversations, 1)
    priced = sum(1 for t in turns if t.cost_usd is not None)

    def per(total: float, known: bool = True) -> float | None:
        # No conversation, or no turn priced: the rate is unknown, not 0.
        return total / n if conversations and known else None
    return {"conversations": conversations, "turns": len(turns),
            "turns_per_conversation": per(len(turns)),
            "trigger_rate": triggered / len(turns) if turns else None,
            "hosted": {k: {"calls_per_conversation": c / n, "usd_per_call": u / c if c else 0.0}
                       for k, (c, u) in sorted(calls.items())},
            "carried_tokens_per_conversation": per(carried_tokens),
            "carried_usd_per_conversation": per(carried_usd, priced > 0),
            "token_usd_per_conversation": per(tokens_usd, priced > 0),
            "cost_unknown_turns": len(turns) - priced}


def project(turns: Sequence[Any], conversations: int, per_month: int) -> dict[str, Any]:
    """The month projected from the capture's rates, each line with its arithmetic."""
    r = rates(turns, conversations)
    lines = []
    n = _num(per_month)
    for item, h in r["hosted"].items():
        per, fee = h["calls_per_conversation"], h["usd_per_call"]
        usd = per * per_month * fee
        lines.append({"what": item, "usd": round(usd, 2), "arithmetic":
                      f"{per:.1f} {item} per conversation × {n} conversations × "
                      f"{_money(fee * 1000)} per 1,000 = {_money(usd)}"})
    if r["token_usd_per_conversation"] is None:
        return _unknown(r, per_month, lines)
    carried = r["carried_tokens_per_conversation"] * per_month
    carried_usd = r["carried_usd_per_conversation"] * per_month
    lines.append({"what": "carried context", "usd": round(carried_usd, 2), "tokens": round(carried),
                  "arithmetic": f"{r['carried_tokens_per_conversation']:,.0f} carried tokens "
                  f"per conversation × {n} conversations = {carried:,.0f} tokens re-billed, "
                  f"{_money(carried_usd)} (included in the token cost below)"})
    token_usd = r["token_usd_per_conversation"] * per_month
    unpriced = _unpriced(r)
    lines.append({"what": "token cost", "usd": round(token_usd, 2), "arithmetic":
                  f"{_money(r['token_usd_per_conversation'])} of tokens per conversation × "
                  f"{n} conversations = {_money(token_usd)}{unpriced}"})
    total = token_usd + sum(x["usd"] for x in lines[:-2])
    return {"label": LABEL, "per_month": per_month, "rates": _rounded(r), "lines": lines,
            "total_usd": round(total, 2),
            "total_arithmetic": " + ".join(_money(x["usd"]) for x in lines
                                           if x["what"] != "carried context")
            + f" = {_money(total)}" + (", a lower bound (unpriced turns)" if unpriced else "")}


def _unpriced(r: dict[str, Any]) -> str:
    """What the token cost leaves out when some turns are not priced (each adds nothing to
    the rate, so the month is a lower bound): said on the line, not left to be read as the
    whole month."""
    k = r["cost_unknown_turns"]
    if not k:
        return ""
    is_, adds = ("is", "adds") if k == 1 else ("are", "add")
    return (f", a lower bound: {k:,} of the capture's {r['turns']:,} turns {is_} not "
            f"priced (no price for the model, or no usage) and {adds} nothing")


def _unknown(r: dict[str, Any], per_month: int, lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The projection when the capture gives no token cost per conversation to scale (no
    conversation, or no turn priced): its token cost and total are null and say why, where
    they read $0.0000 as if the month cost nothing."""
    why = ("the capture has no conversation to take a rate from" if not r["conversations"]
           else f"none of the capture's {r['turns']:,} turns is priced: their model is not "
                "in the pricing table")
    lines.append({"what": "token cost", "usd": None,
                  "arithmetic": f"token cost per conversation unknown: {why}"})
    return {"label": LABEL, "per_month": per_month, "rates": _rounded(r), "lines": lines,
            "total_usd": None, "total_arithmetic": f"unknown ({why})"}


def _rounded(r: dict[str, Any]) -> dict[str, Any]:
    out = {k: round(v, 6) if isinstance(v, float) else v for k, v in r.items()}
    out["hosted"] = {k: {kk: round(vv, 6) for kk, vv in h.items()}
                     for k, h in r["hosted"].items()}
    return out


def over_budget(turns: Sequence[Any], budget: Budget) -> tuple[list[dict[str, Any]], list[Any]]:
    """What went over the budget: per conversation (its running cost, in turn order) or per
    UTC day (turns by their start; turns with no time are left out, and counted). Returns
    the report's entries and the turns where each running total first passed the budget."""
    totals: dict[str | None, list[Any]] = {}  # key -> [usd, first turn over, turns, unknown]
    for t in turns:
        if budget.per == "conversation":
            key: str | None = t.conversation_key
        else:
            ts = t.ts
            key = ts[:10] if ts else None
        acc = totals.setdefault(key, [0.0, None, 0, 0])
        acc[2] += 1
        cost = t.cost_usd
        if cost is None:
            acc[3] += 1
            continue
        acc[0] += cost
        if acc[1] is None and acc[0] > budget.usd and key is not None:
            acc[1] = t
    entries, marked = [], []
    for key, (usd, first, n, unknown) in totals.items():
        if first is None:
            continue
        marked.append(first)
        entries.append({budget.per: key, "cost_usd": round(usd, 6),
                        "over_by_usd": round(usd - budget.usd, 6), "turns": n,
                        "cost_unknown_turns": unknown, "first_turn_over": first.index})
    entries.sort(key=lambda e: -e["cost_usd"])
    return entries, marked
