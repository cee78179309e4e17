"""A turn's account as text: its findings, the user's message, the arithmetic and its
hosted calls, composed by the core and shown by the turns view, the detail and the diff."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

from traceview.ui import format as fmt
from traceview.ui.safe_text import clip, safe

if TYPE_CHECKING:
    from traceview.analysis.seams import TurnRow


def plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def capture_name(sources: list[str]) -> str:
    if not sources:
        return "(no capture)"
    name = Path(sources[0]).name or sources[0]
    return name if len(sources) == 1 else f"{name} +{len(sources) - 1} more"


def findings_text(turn: TurnRow) -> Text:
    """The core's finding sentences (deposit, compaction, missing evidence), bold."""
    out = Text()
    for sentence in getattr(turn, "findings", None) or []:
        out.append_text(safe(sentence, style="bold", multiline=True))
        out.append("\n")
    return out


def account_text(turn: TurnRow, *, with_findings: bool = True, user_limit: int = 2000) -> Text:
    """The turn's explanation (composed by the core): its findings first, then the user's
    message and the arithmetic, then its hosted calls."""
    out = Text()
    out.append(f"turn {turn.index}", style="bold")
    out.append_text(safe(f"  line {turn.line}  {turn.api}  {turn.status}", style="dim"))
    if getattr(turn, "model", None):
        out.append_text(safe(f"  {turn.model}", style="dim"))
    out.append("\n")
    lead = list(getattr(turn, "findings", None) or [])
    if with_findings:
        out.append_text(findings_text(turn))
    if turn.user_text:
        out.append("user: ", style="dim")
        out.append_text(safe(clip(turn.user_text, user_limit), style="italic", multiline=True))
        out.append("\n")
    for sentence in getattr(turn, "explanation", None) or []:
        if sentence in lead:
            continue
        out.append_text(safe(sentence, multiline=True))
        out.append("\n")
    if turn.unexplained_tokens is not None:
        out.append("(unexplained tokens are an estimate: billed − expected input)\n", style="dim")
    for call in turn.hosted_calls or []:
        out.append_text(hosted_line(call))
        out.append("\n")
    return out


def hosted_line(call: dict[str, Any]) -> Text:
    evidence = call.get("evidence")
    symbol = fmt.EVIDENCE_SYMBOLS.get(str(evidence), "?")
    line = Text("  ")
    line.append_text(safe(f"{fmt.hosted_type(call.get('type'))} {symbol} ", style="bold"))
    line.append_text(safe(f"{call.get('status') or fmt.DASH}  "))
    line.append_text(safe(fmt.EVIDENCE_MEANING.get(str(evidence), str(evidence))))
    if evidence == "missing" and call.get("include"):
        line.append_text(safe(f" — needs include=[\"{call['include']}\"]", style="italic"))
    queries = call.get("queries") or []
    if queries:
        line.append_text(safe("  queries: " + "; ".join(f"“{q}”" for q in queries)))
    if call.get("detail"):
        line.append_text(safe(f"  {call['detail']}", style="dim"))
    if call.get("id"):
        line.append_text(safe(f"  {call['id']}", style="dim"))
    return line
