"""``traceview reconcile`` as text (a table), markdown or JSON, from the reconciliation's
dict (so every number printed is also in the JSON)."""

from __future__ import annotations

from typing import Any

import orjson

from traceview.safety.redact import redact_json
from traceview.safety.sanitise import json_shown, plain

_HEAD = ("day", "project", "line item", "attributed", "billed", "remainder", "status")


def _usd(v: float | None, signed: bool = False) -> str:
    """Six decimals (a turn can cost a millionth of a dollar); a dash when unknown."""
    if v is None:
        return "—"
    return f"{v:+.6f}" if signed else f"{v:.6f}"


def _cells(row: dict[str, Any]) -> tuple[str, ...]:
    return (row["day"], plain(row["project_id"]), plain(row["line_item"]),
            _usd(row["attributed_usd"]), _usd(row["billed_usd"]),
            _usd(row["remainder_usd"], signed=True), row["status"])


def _header(doc: dict[str, Any]) -> list[str]:
    state = "complete" if doc["complete"] else "PARTIAL (the bill was not read to the end)"
    out = [f"reconciliation · bill read: {state}",
           *_projects(doc.get("projects") or {}),
           "sources: " + "; ".join(plain(s) for s in doc["sources"]),
           f"tolerance: {doc['tolerance']['rule']}",
           "remainder = billed − attributed (+: billed more than the capture attributes)"]
    if doc["stopped"]:
        out.append(f"stopped: {plain(doc['stopped'])}")
    return out


def _projects(p: dict[str, Any]) -> list[str]:
    """Which projects the rows compare, and how the turns' projects were found."""
    named = ", ".join(plain(x) for x in p.get("named") or ()) or "none"
    out = [f"projects named by the capture or --project: {named}"]
    if p.get("unknown_lines"):
        scope = "every project the capture does not name" if p.get("named") \
            else "every project"
        out[0] += (f"; {p['unknown_lines']:,} line(s) with no project, compared as "
                   f"(unknown) with the bill of {scope}")
    turns = p.get("turns")
    if turns:
        out.append(f"turns' projects: {turns['recorded']:,} recorded (openai-project header), "
                   f"{turns['given']:,} from --project, {turns['unknown']:,} unknown")
    return out


def _footer(doc: dict[str, Any], bullet: str) -> list[str]:
    t = doc["totals"]
    out = [f"total: attributed {_usd(t['attributed_usd'])} · billed {_usd(t['billed_usd'])} · "
           f"remainder {_usd(t['remainder_usd'], signed=True)} · "
           f"{doc['beyond_tolerance']} row(s) beyond tolerance"]
    reasons: list[str] = []
    for row in doc["rows"]:
        reasons += [f"{row['day']} {row['line_item']}: {r}" for r in row["reasons"]
                    if r.startswith("traffic not captured:")]
    if doc["beyond_tolerance"] or reasons:
        out.append("expected reasons for a remainder:")
        out += [f"{bullet}billed more: {r}" for r in doc["expected_reasons"]["billed_more"]]
        out += [f"{bullet}billed less: {r}" for r in doc["expected_reasons"]["billed_less"]]
    out += [f"{bullet}measured: {plain(r)}" for r in reasons]
    out += [f"note: {plain(n)}" for n in doc["notes"]]
    return out


def render_text(doc: dict[str, Any]) -> str:
    rows = [_HEAD] + [_cells(r) for r in doc["rows"]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_HEAD))]
    right = {3, 4, 5}
    table = ["  ".join(c.rjust(w) if i in right else c.ljust(w)
                       for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
             for r in rows]
    if not doc["rows"]:
        table.append("(no rows: the capture has no dated turns)")
    return "\n".join(_header(doc) + [""] + table + [""] + _footer(doc, "  - ")) + "\n"


def render_markdown(doc: dict[str, Any]) -> str:
    def esc(s: str) -> str:
        return s.replace("|", "\\|")
    out = [f"- {esc(h)}" for h in _header(doc)] + [""]
    out.append("| " + " | ".join(_HEAD) + " |")
    out.append("|" + "|".join("---:" if i in (3, 4, 5) else "---" for i in range(7)) + "|")
    out += ["| " + " | ".join(esc(c) for c in _cells(r)) + " |" for r in doc["rows"]]
    footer = [esc(x if x.startswith("  - ") else f"- {x}") for x in _footer(doc, "  - ")]
    return "\n".join(out + [""] + footer) + "\n"


def render_json(doc: dict[str, Any]) -> bytes:
    return json_shown(redact_json(orjson.dumps(doc, option=orjson.OPT_INDENT_2))) + b"\n"
