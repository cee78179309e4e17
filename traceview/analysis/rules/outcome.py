"""How the turn ended: failed, incomplete or cancelled; cut off; one half missing."""

from __future__ import annotations

from traceview.analysis.rules.facts import TurnFacts

# Response status -> the marker it earns.
TERMINAL_FAIL = {"failed": "failed", "incomplete": "incomplete", "cancelled": "cancelled"}


def terminal_failure(f: TurnFacts) -> str | None:
    """`failed`, `incomplete` or `cancelled` when the response ended so (else None)."""
    return TERMINAL_FAIL.get(f.status)


def request_only(f: TurnFacts) -> bool:
    """A request with no recorded response."""
    return not f.has_res


def stream_cut(f: TurnFacts) -> bool:
    """A stream that ended before its terminal event: the turn has no usage."""
    return f.has_res and f.stream_cut


def response_only(f: TurnFacts) -> bool:
    """A response with no recorded request."""
    return not f.has_req


def retried(f: TurnFacts) -> bool:
    """The turn took more than one attempt: failed tries retried with the same input."""
    return bool(f.attempts)


def refusal(f: TurnFacts) -> bool:
    """The model refused (a refusal content part, or a chat refusal)."""
    return f.refusal
