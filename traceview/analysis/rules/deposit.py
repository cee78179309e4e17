"""The deposit rule: billed for far more than the turn explains.

When a turn's billed input exceeds its expected input (counted once per model pass) by
at least the larger of `deposit_min_tokens` and `deposit_ratio` × expected, context
entered the conversation without a request — typically hosted tool results stored on the
provider's side. Only a turn whose conversation the provider holds (a conversation handle
or `previous_response_id`: its input account is `hosted`, or its request could not be
read) can take one in; where the whole input was sent, a surplus is the account's.

Where the rest lives: `rules/__init__.py` (`turn_markers`) calls `deposit()` with the
turn's expected input and model passes; `analysis/analyzer.py` (`_attribute`) then
attributes the deposit to the conversation's turns with hosted calls since its previous
deposit (the report's `attribution`).
"""

from __future__ import annotations

from traceview.analysis.options import Options
from traceview.wire import HOSTED_CALL_TYPES

# Hosted items after which the model samples again inside the same response (a pass).
_PASS_TYPES = HOSTED_CALL_TYPES - {"mcp_list_tools"}


def model_passes(types: tuple[str, ...]) -> int:
    """Model passes a response's output shows: one, plus one per hosted call the model
    continued after (its billed input counts the context once per pass)."""
    return 1 + sum(1 for t in types[:-1] if t in _PASS_TYPES)


def deposit(input_tokens: int | None, expected: int | None, passes: int,
            options: Options, *, hosted: bool = True) -> bool:
    """Whether billed input exceeds `passes` × expected input by at least the larger of
    the options' floor and ratio: context that arrived without a request. ``hosted``:
    the provider holds the turn's conversation (else nothing arrives unsent: False)."""
    if not hosted or input_tokens is None or expected is None:
        return False
    unexplained = input_tokens - expected * passes
    return unexplained >= max(options.deposit_min_tokens, options.deposit_ratio * expected)
