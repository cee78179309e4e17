"""What `/` (search), `&` (filter) and `:` (go to) find in a turn: one rule for all three.

A person arrives with something from elsewhere — a response id from a log, a call id
from a trace, a model or tool name, a phrase the user typed — and wants the turn. Every
string the turn report already holds is searched; nothing is re-read from disk here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from traceview.analysis.seams import TurnRow

#: Turn attributes holding one id or name each (read with getattr: not every core has all).
_SCALARS = ("response_id", "previous_response_id", "conversation", "request_id", "model",
            "user_text")
#: Keys of a hosted call or action item that name or identify it.
_CALL_KEYS = ("type", "id", "call_id", "name", "evidence")

#: `/` or `&` input that asks by attribution (issue 33): ``tenant=acme``, ``case_id=AC-1``,
#: ``user=u-7``, ``safety_identifier=…`` — a metadata key, or the request's end-user ids.
ATTRIBUTION_RE = re.compile(r"^([A-Za-z_][\w.-]{0,63})\s*=\s*(.*)$")

#: `:` input that means a line of the capture: ``L123`` or ``line 123``.
LINE_RE = re.compile(r"^(?:l|line)\s*(\d+)$", re.IGNORECASE)


def searched_strings(turn: TurnRow) -> Iterator[str]:
    """Every string of the turn report `/` looks at, lower-cased. Tools merely offered are
    left out: `file_search` finds the turns where it ran, not every turn that allowed it."""
    for name in _SCALARS:
        value = getattr(turn, name, None)
        if value:
            yield str(value).lower()
    calls: list[Any] = [*(getattr(turn, "hosted_calls", None) or ()),
                        *(getattr(turn, "action_items", None) or ())]
    for call in calls:
        if isinstance(call, dict):
            for key in _CALL_KEYS:
                if call.get(key):
                    yield str(call[key]).lower()
    for marker in getattr(turn, "markers", None) or ():
        yield str(marker).lower()


def matches(turn: TurnRow, query: str) -> bool:
    """Whether ``query`` is in any string of the turn, or is one of its marker or evidence
    symbols (``⊕``, ``✗``); ``marker:NAME`` looks at markers only."""
    from traceview.ui.format import EVIDENCE_SYMBOLS, marker_symbol

    needle = query.strip().lower()
    if not needle:
        return True
    asked = ATTRIBUTION_RE.match(query.strip())
    if asked:  # `tenant=` (nothing after =): the turns without one
        value = asked.group(2).strip().lower()
        got = attribution_value(turn, asked.group(1))
        return got == value if value else got is None
    markers = getattr(turn, "markers", None) or ()
    if needle.startswith("marker:"):
        needle = needle[7:].strip()
        return any(needle in m or needle == marker_symbol(m) for m in markers)
    if any(needle == marker_symbol(m) for m in markers):
        return True
    for call in getattr(turn, "hosted_calls", None) or ():
        if needle == EVIDENCE_SYMBOLS.get(str(call.get("evidence") or "")):
            return True
    return any(needle in s for s in searched_strings(turn))


def attribution_value(turn: TurnRow, key: str) -> str | None:
    """The turn's value of an attribution key, lower-cased (None: the turn has none)."""
    owner = getattr(turn, "attributed_to", None)
    if not isinstance(owner, dict):
        return None
    if key in ("user", "safety_identifier", "project"):
        value = owner.get(key)
    else:
        value = (owner.get("metadata") or {}).get(key)
    return str(value).lower() if value is not None else None


def find_id(turns: list[TurnRow], value: str) -> TurnRow | None:
    """The first turn holding exactly this id (response, conversation, call, request, item)."""
    needle = value.strip().lower()
    for turn in turns:
        if any(s == needle for s in searched_strings(turn)):
            return turn
    return None


def find_line(turns: list[TurnRow], line: int) -> TurnRow | None:
    """The turn whose record is at ``line`` of the capture, else the last one before it."""
    best: TurnRow | None = None
    for turn in turns:
        if turn.line <= line and (best is None or turn.line >= best.line):
            best = turn
    return best
