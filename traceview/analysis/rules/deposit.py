"""The deposit rule: billed for far more than the turn explains.

When a turn's billed input exceeds its expected input (counted once per model pass) by
at least the larger of `deposit_min_tokens` and `deposit_ratio` × expected, context
entered the conversation without a request — typically hosted tool results stored on the
provider's side. The deposit is then attributed to the hosted turns since the last one.
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
            options: Options) -> bool:
    """Whether billed input exceeds `passes` × expected input by at least the larger of
    the options' floor and ratio: context that arrived without a request."""
    if input_tokens is None or expected is None:
        return False
    unexplained = input_tokens - expected * passes
    return unexplained >= max(options.deposit_min_tokens, options.deposit_ratio * expected)
