"""The turns table's columns, and which turns count as marked.

Every cell is a turn row's attribute, formatted; nothing is derived here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from traceview.ui import format as fmt
from traceview.ui.safe_text import safe
from traceview.ui.widgets.row_table import Column, RowTable

if TYPE_CHECKING:
    from traceview.analysis.seams import TurnRow


def _unexplained(turn: TurnRow) -> Text:
    value = turn.unexplained_tokens
    text = Text(fmt.signed(value))
    if "deposit" in (turn.markers or ()):
        text.stylize("bold")
    return text


def _hosted(turn: TurnRow, width: int) -> Text:
    """The hosted cell for ``width`` cells: the tool name gives way, the symbol never."""
    return safe(fmt.hosted_cell(turn.hosted_calls, getattr(turn, "unknown_items", None),
                                width)).copy()


def _hosted_value(turn: TurnRow) -> list[dict[str, object]]:
    """Each hosted call's type, id and evidence (what the cell abbreviates to a symbol)."""
    return [{k: call.get(k) for k in ("type", "id", "status", "evidence", "include")}
            for call in turn.hosted_calls or ()]


# Priorities: 0 stays on screen at any width (the signals); 1 shrinks; higher numbers
# leave the screen first at 80 columns (reachable with →).
TURN_COLUMNS: list[Column] = [
    Column("#", 4, lambda t: fmt.num(t.index), value=lambda t: t.index),
    Column("user", 0, lambda t: t.user_text or fmt.DASH, align="left", min_width=10,
           priority=1, value=lambda t: t.user_text),
    Column("sent", 8, lambda t: fmt.size(t.request_bytes), value=lambda t: t.request_bytes,
           grow=True),
    Column("billed in", 9, lambda t: fmt.num(t.input_tokens), value=lambda t: t.input_tokens,
           grow=True),
    Column("unexpl.≈", 9, _unexplained, value=lambda t: t.unexplained_tokens, grow=True),
    Column("cached", 7, lambda t: fmt.num(t.cached_tokens), priority=2,
           value=lambda t: t.cached_tokens, grow=True),
    Column("out", 6, lambda t: fmt.num(t.output_tokens), priority=3,
           value=lambda t: t.output_tokens, grow=True),
    Column("reasoning", 9, lambda t: fmt.num(t.reasoning_tokens), priority=4,
           value=lambda t: t.reasoning_tokens, grow=True),
    Column("hosted", 17, lambda t: fmt.hosted_cell(t.hosted_calls,
                                                    getattr(t, "unknown_items", None)),
           align="left", shrink=12, fit=_hosted, value=_hosted_value),
    Column("ms", 7, lambda t: fmt.latency_cell(t), priority=5, value=fmt.caller_ms, grow=True),
    Column("markers", 7, lambda t: fmt.markers_cell(t.markers or ()), align="left", shrink=5,
           value=lambda t: list(t.markers or ())),
]


def make_turns_table(id: str = "turns") -> RowTable:
    return RowTable(TURN_COLUMNS, marked=is_marked, id=id)


#: Markers that inform rather than warn: they do not make a turn "marked" for m/M.
INFORMATIONAL = {"tool_offered_unused"}


def is_marked(turn: TurnRow) -> bool:
    return any(m not in INFORMATIONAL for m in turn.markers or ())
