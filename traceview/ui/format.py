"""Formatting of numbers the core computed: separators, sizes, signs, symbols.

The screen computes nothing; these functions only turn a value from a TurnReport,
ConversationReport or the totals into text. ``None`` (a number that cannot be known)
is always shown as an em dash, never as 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from traceview.report import fmt

DASH = "—"

#: Evidence states of a hosted call, readable without colour.
EVIDENCE_SYMBOLS: dict[str, str] = {"captured": "✓", "empty": "∅", "missing": "✗"}
EVIDENCE_MEANING: dict[str, str] = {
    "captured": "results captured",
    "empty": "ran, found nothing",
    "missing": "results not captured",
}

def _markers() -> Mapping[str, tuple[str, str]]:
    """The core's marker table: marker -> (symbol, meaning)."""
    from traceview.analysis.markers import MARKERS

    return MARKERS


def known_markers() -> list[str]:
    """Every marker the core can emit, in its display order."""
    return list(_markers())


def marker_symbol(marker: str) -> str:
    """A short symbol for a marker (1–2 cells), readable without colour."""
    entry = _markers().get(marker)
    return (entry[0] if entry else None) or "•"


def marker_meaning(marker: str) -> str:
    """One-line meaning of a marker, from the core's legend."""
    entry = _markers().get(marker)
    return (entry[1] if entry else None) or marker.replace("_", " ")


def latency_cell(turn: Any) -> str:
    """The caller's latency; ``×N`` when the turn took N attempts (failed tries included)."""
    return fmt.latency(turn)


def markers_cell(markers: Iterable[str]) -> str:
    return "".join(marker_symbol(m) for m in markers)


# The same numbers read the same in the report and on screen.
caller_ms = fmt.caller_ms
num = fmt.num
signed = fmt.signed
size = fmt.size
cost = fmt.usd


def hosted_type(call_type: str | None) -> str:
    """``file_search_call`` → ``file_search``: the column is narrow."""
    name = call_type or "?"
    return name[:-5] if name.endswith("_call") else name


def hosted_cell(calls: Sequence[Mapping[str, Any]] | None,
                unknown: Sequence[Mapping[str, Any]] | None = None,
                width: int | None = None) -> str:
    """First hosted call with its evidence symbol, plus how many more; an output item of
    an unknown type shows as ``unknown item type X`` (it may be a hosted call).

    Given a ``width``, the tool name is abbreviated (``file_se…``) so the evidence symbol
    and the count always fit: the symbol is the signal, the name is context.
    """
    if unknown and not calls:
        return f"unknown item type {unknown[0].get('type')}"
    if not calls:
        return DASH
    first = calls[0]
    name = hosted_type(first.get("type"))
    tail = f" {EVIDENCE_SYMBOLS.get(str(first.get('evidence')), '?')}"
    if len(calls) > 1:
        tail += f" +{len(calls) - 1}"
    if width is not None and len(name) + len(tail) > width:
        room = max(1, width - len(tail))
        name = name[: room - 1] + "…" if room > 1 else name[:1]
    return name + tail


def short_id(value: str | None, keep: int = 12) -> str:
    if not value:
        return DASH
    return value if len(value) <= keep else value[:keep] + "…"
