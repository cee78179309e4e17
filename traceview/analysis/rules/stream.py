"""The stream as evidence: stream_sequence, stream_text_mismatch.

A stream's events are what the provider said, in order; when their sequence numbers
repeat, skip or go backwards, or their deltas do not add up to the text the stream and
the final body give, the capture's copy of the stream is not the one the provider sent
(a proxy that replayed, a reconnect that resent, a logger that dropped events).
"""

from __future__ import annotations

from traceview.analysis.rules.facts import TurnFacts


def stream_sequence(f: TurnFacts) -> bool:
    """Duplicate, missing or out-of-order `sequence_number`s (each is a problem too)."""
    x = f.res_extra
    stream = x.get("stream") if x else None
    return bool(stream and stream["sequence_faults"])


def stream_text_mismatch(f: TurnFacts) -> bool:
    """The output-text deltas disagree with the `.done` text or the final body's."""
    x = f.res_extra
    stream = x.get("stream") if x else None
    return bool(stream and stream["text_mismatch"])
