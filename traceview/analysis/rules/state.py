"""What a conversation carries from one turn to the next, for the rules of the next turn.

Only the last turn with usage, the bytes an owned transcript would have resent so far,
the hosted turns not yet matched to a deposit and the calls left open are kept: memory
stays flat however long the capture is.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any

# An action item the application must answer: (type, call id, name, item id).
Action = tuple[str, str | None, str | None, str | None]


@dataclass(slots=True)
class ConversationState:
    """One conversation's running state (`number`: its number in the analyzer's columns)."""

    number: int
    # Billed input and visible output (output - reasoning) of the last response whose
    # usage is known: what the next turn's expected input starts from.
    last_input: int | None = None
    last_visible: int | None = 0  # None: its usage said more reasoning than output
    last_messages: int = 0  # output messages among it
    last_compacted: bool = False
    # Model passes of that turn (a hosted loop bills the context once per pass), its index.
    last_passes: int = 1
    last_index: int = 0
    history_bytes: int = 0
    cumulative: int = 0
    # Rows of the turns with hosted calls since the last deposit (None: none yet), and
    # the TurnColumns they are rows of.
    pending: array[int] | None = None
    pending_cols: Any = None
    # Calls the last turn handed to the application, and that turn's report (marked
    # unanswered_call when the next turn does not answer them).
    open_actions: tuple[Action, ...] = ()
    last_report: Any = None
    fingerprint: str | None = None
    service_tier: str | None = None
    first_instructions: bool | None = None
    # Of the last turn with usage: its cached share of billed input, and what its request
    # sends again each turn (instructions, tools, schema: rules/account.py Static).
    last_cached_share: float | None = None
    last_static: Any = None
