"""The diff's table and texts: one aligned row per item (capture | provider), the banner
that says a copy is partial or failed, the status and summary lines, the legend, and a
row's two bodies. Built from the core's ``analysis.diff`` rows; nothing is computed here.
Item bodies are redacted before they are shown, and all of it is shown as literal text.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from traceview.analysis.diff import KINDS, message_text
from traceview.report.diff_output import LEGEND, SYMBOLS
from traceview.safety.redact import redact, redact_text
from traceview.ui.diff_worker import DiffOutcome
from traceview.ui.safe_text import clip, safe
from traceview.ui.widgets.json_tree import raw_text
from traceview.ui.widgets.row_table import Column, RowTable

SIDES = {"input": "in", "output": "out", "added": "added"}


def turn_cell(row: Any) -> str:
    turn = "—" if row.turn is None else str(row.turn)
    side = SIDES.get(row.side or "", row.side or "")
    return f"{turn} {side}".strip()


def item_summary(item: dict[str, Any] | None, absent: str) -> Text:
    """``type (role) “text…”`` or ``type id``: what one side holds, in one line."""
    if item is None:
        return Text(absent, style="dim")
    kind = item.get("type") if isinstance(item.get("type"), str) else (
        "message" if "role" in item else "unknown")
    if kind == "message":
        role = item.get("role")
        label = f"{kind} ({role}) " if isinstance(role, str) else f"{kind} "
        return safe(redact_text(label + "“" + clip(message_text(item), 120) + "”"))
    ident = item.get("id") or item.get("call_id") or ""
    return safe(redact_text(f"{kind} {ident}".strip()))


def diff_columns() -> list[Column]:
    return [
        Column("", 3, lambda r: Text(SYMBOLS.get(r.kind, "?"), style="bold"), align="left"),
        Column("turn", 8, turn_cell, align="left"),
        Column("capture", 34,
               lambda r: item_summary(r.capture_item, "— not in the capture"), align="left"),
        Column("provider", 34,
               lambda r: item_summary(r.provider_item, "— not at the provider"), align="left"),
        Column("reason", 0, lambda r: safe(redact_text(r.reason)), align="left",
               min_width=16),
    ]


class DiffTable(RowTable):
    """Diff rows, each coloured by kind through a component class (theme variables)."""

    COMPONENT_CLASSES = RowTable.COMPONENT_CLASSES | {
        f"diff-table--{kind.replace('_', '-')}" for kind in KINDS
    }

    def row_text(self, row: Any, total: int) -> Text:
        text = super().row_text(row, total)
        style = self.get_component_rich_style(
            f"diff-table--{str(row.kind).replace('_', '-')}", partial=True
        )
        text.stylize_before(style)
        return text


def banner_text(outcome: DiffOutcome) -> Text | None:
    """Why this diff is not the whole story (failed or partial), or None when it is."""
    result = outcome.result
    if result is None:
        if outcome.error_kind == "cancelled":
            return None
        kind = outcome.error_kind or "error"
        return safe(f"FAILED — no provider copy, nothing compared. {kind}: {outcome.error}",
                    style="bold")
    if result.complete:
        return None
    stopped = result.stopped or {}
    reason = stopped.get("message") or outcome.error or next(
        iter(result.warnings), "the listing did not reach its last page")
    stop = stopped.get("kind") or outcome.error_kind
    pages = f"{result.pages} page{'s' if result.pages != 1 else ''} read"
    text = safe(f"PARTIAL — {pages}, stopped: {f'{stop}: ' if stop else ''}{reason}",
                style="bold")
    text.append(" — the rows below are not the whole conversation.")
    return text


def status_text(outcome: DiffOutcome | None) -> Text:
    """Complete or PARTIAL first (it decides how far to trust every row), then the source."""
    out = Text()
    if outcome is None:
        out.append("⟳ fetching…", style="italic")
        return out
    result = outcome.result
    if result is None:
        out.append("FAILED", style="bold reverse")
        out.append(" no provider copy")
        return out
    out.append("complete" if result.complete else "PARTIAL", style="bold reverse")
    pages = f"{result.pages} page{'s' if result.pages != 1 else ''}"
    out.append(f"  {pages} read · ")
    origin = {"live": "fetched live", "snapshot": "from a snapshot",
              "capture": "from a listing recorded in the capture"}.get(result.origin,
                                                                       result.origin)
    out.append_text(safe(origin))
    if result.host:
        out.append_text(safe(f" · host {result.host}"))
    if result.fetched_at:
        out.append_text(safe(f" · at {result.fetched_at}"))
    if result.include:
        out.append_text(safe(" · include " + ", ".join(result.include), style="dim"))
    return out


def summary_text(outcome: DiffOutcome) -> Text:
    """Counts by kind (symbol + name, readable without colour), the verdict, and notes."""
    result = outcome.result
    out = Text()
    if result is None:
        out.append("no rows: ", style="bold")
        out.append("press r to fetch again, or open the capture with --items FILE "
                   "(a snapshot saved by `traceview fetch` or by w here)", style="dim")
        return out
    counts = result.counts
    for kind in KINDS:
        out.append(f"{SYMBOLS[kind]} ", style="bold")
        out.append(f"{kind.replace('_', ' ')} {counts[kind]:,}   ")
    out.append("\n")
    out.append_text(safe(result.verdict, multiline=True))
    banner_said = {outcome.error} if outcome.error else set()
    for warning in result.warnings:
        if warning not in banner_said:
            out.append("\nnote: ", style="dim")
            out.append_text(safe(warning, style="dim"))
    return out


def legend_entries() -> list[Text]:
    """One entry per row kind (its symbol and meaning), laid out whole by LegendBox."""
    out = []
    for kind in KINDS:
        entry = Text(f"{SYMBOLS[kind]} ", style="bold")
        entry.append(LEGEND[kind])
        out.append(entry)
    return out


def body_text(side: str, item: dict[str, Any] | None, absent: str) -> Text:
    """One side's item as pretty JSON, redacted and clipped, or a line saying it is absent."""
    if item is None:
        out = Text(f"── {side} ", style="bold")
        out.append("─" * 40 + "\n", style="dim")
        out.append(f"— {absent}\n", style="italic")
        return out
    return raw_text([(side, redact(item))])
