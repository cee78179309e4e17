"""A turn's row in traceview.report/1: its keys in contract order, and the row read back
as attributes for the explanation.

Apart from TurnReport (turn_report.py) because the contract is what every writer and
export reads, while the report is how one turn's values are found.
"""

from __future__ import annotations

from typing import Any

from traceview.analysis.explain import explain

# Keys of a turn in traceview.report/1, in contract order.
CONTRACT_KEYS = (
    "index", "line", "conversation", "api", "status", "user_text", "request_bytes",
    "owned_state_bytes", "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens",
    "elapsed_ms", "expected_input", "unexplained_tokens", "tools_offered", "hosted_calls",
    "markers", "cost_usd",
)
EXTRA_KEYS: tuple[str, ...] = (
    "source", "conversation_key", "model", "response_id", "previous_response_id",
    "user_words", "cumulative_input_tokens", "new_input_estimate", "input_account",
    "attribution", "cost", "incomplete_reason", "error", "stream_events", "notes", "explanation",
    # issue #10: attempts, run-level facts, non-text input, items that need the application
    "attempts", "caller_elapsed_ms", "http_status", "error_code", "request_id",
    "processing_ms", "store", "service_tier", "system_fingerprint", "media_input",
    "expected_input_unknown", "model_passes", "finish_reasons", "unknown_items",
    "action_items", "provider_counters", "analysis_context",
    # issue #13: hosted state over a conversation's life
    "carried_context", "provider_copy",
    "ts",
    "findings",
    # issue #34: time as the caller saw it, the stream as evidence (analysis/timing.py)
    "timing",
    # issue 33: who the turn was for
    "attributed_to",
    "lineage",  # issue #35: citations, retrieval, choices and settings (analysis/lineage.py)
)
ROW_KEYS = (*CONTRACT_KEYS, *EXTRA_KEYS)


# The prose keys (made apart, from the row read back: RowRead), and the keys a text
# report's table does not read either (`row(whole=False)`).
PROSE = frozenset({"explanation", "findings"})
TABLE_UNREAD = PROSE | {"cost", "carried_context", "ts", "timing", "attributed_to"}
WHOLE_KEYS = tuple(k for k in ROW_KEYS if k not in PROSE)  # the JSON report's row


def explain_row(d: dict[str, Any]) -> list[str]:
    """The explanation of a row made with `row(explained=False)`."""
    return explain(RowRead(d, d["_view"]))


class RowRead:
    """A turn's row read as attributes, for `explain` (which reads a TurnReport alike):
    the row's values are its __dict__ (read, not copied), anything else the report's,
    read once (the carried context is looked up in the ledger)."""

    __slots__ = ("__dict__", "_report", "_more")

    def __init__(self, row: dict[str, Any], report: object) -> None:
        self.__dict__ = row
        self._report = report
        self._more: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        more = self._more
        if name not in more:
            more[name] = getattr(self._report, name)
        return more[name]
