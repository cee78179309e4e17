"""The markers a turn can carry: their words here; their rules in analysis/rules/ (one
module per rule, listed in its __init__), run per turn by analysis/analyzer.py."""

from __future__ import annotations

# marker -> (symbol readable without colour, one-line meaning). Order is display order.
MARKERS: dict[str, tuple[str, str]] = {
    "deposit": ("⊕", "billed for far more than the turn explains: context arrived without "
                "a request"),
    "compaction": ("⇲", "compaction happened: a compaction item, trigger or "
                   "/responses/compact call"),
    "compaction_likely": ("↘", "billed input fell with no compaction signal: context shrank "
                          "(cause unknown)"),
    "history_resent": ("⧉", "a chained or conversation-handle turn sent the history again: "
                       "billed twice"),
    "cache_lost": ("◌", "the cached share of billed input collapsed after the prompt's prefix "
                   "changed (instructions, tools, schema or compaction)"),
    "evidence_missing": ("✗", "a hosted call's results were not captured (see the include flag)"),
    "incomplete": ("…", "the response stopped early (incomplete)"),
    "failed": ("!", "the call failed (error status, HTTP error or transport error)"),
    "cancelled": ("⊘", "the response was cancelled"),
    "stream_cut": ("✂", "the stream ended before its terminal event: no usage"),
    "request_only": ("→", "a request with no recorded response"),
    "response_only": ("←", "a response with no recorded request"),
    "tool_offered_unused": ("·", "a hosted tool was offered but not used (informational)"),
    "retried": ("↻", "the turn took more than one attempt: failed tries retried with the same "
                "input (see attempts)"),
    "unknown_item": ("?", "the response holds an output item of a type traceview does not know"),
    "approval_request": ("⏸", "the turn ends waiting for approval of an MCP tool call"),
    "computer_action": ("⌖", "the model asked the application to perform a computer action"),
    "unanswered_call": ("↯", "a call the model made was not answered by the next turn"),
    "unoffered_function": ("⚠", "the model called a function that was not offered"),
    "refusal": ("⛔", "the model refused (a refusal content part or chat refusal)"),
    "counter_mismatch": ("≠", "the provider's tool counter disagrees with the hosted calls in "
                         "the output"),
    "unstored_chain": ("⊄", "store:false on a turn that chains (previous_response_id or "
                       "conversation): the chain cannot be read back"),
    "fingerprint_changed": ("⇄", "system_fingerprint or service_tier changed inside the "
                            "conversation"),
    "instructions_dropped": ("⌀", "instructions sent on the chain's first turn are missing "
                             "here (they do not carry over previous_response_id)"),
    "stream_sequence": ("⇅", "the stream's sequence numbers repeat, skip or go backwards: "
                        "not the provider's stream as sent"),
    "stream_text_mismatch": ("≄", "the stream's text deltas disagree with its .done text "
                             "or the final body"),
    # issue 33: cost that matches the bill
    "moderation_flagged": ("⚑", "a moderation call the capture holds flagged the input this "
                           "turn sent (the nearest turn of the same conversation or user)"),
    "over_budget": ("$", "the turn's conversation or day went over the --budget given"),
    "tool_choice_unmet": ("⊗", "tool_choice required a tool call (or named one) and the "
                          "response made none"),
    "citation_unretrieved": ("⁇", "a citation names a source no captured retrieval returned, "
                             "or one that cannot be checked: the retrieval's evidence was "
                             "not captured (see the include flag)"),
    "citation_unidentified": ("⍰", "a citation names no source: no url or file id"),
}

# Short labels for narrow tables; the legend spells each one out.
MARKER_SHORT: dict[str, str] = {
    "deposit": "deposit", "compaction": "compact", "compaction_likely": "shrank?",
    "history_resent": "resent", "cache_lost": "no-cache",
    "evidence_missing": "no-evid", "incomplete": "incompl", "failed": "failed",
    "cancelled": "cancel", "stream_cut": "cut", "request_only": "req-only",
    "response_only": "res-only", "tool_offered_unused": "unused", "retried": "retried",
    "unknown_item": "unknown", "approval_request": "approve", "computer_action": "computer",
    "unanswered_call": "unanswd", "unoffered_function": "unoffer", "refusal": "refusal",
    "counter_mismatch": "counter", "unstored_chain": "unstored", "fingerprint_changed": "fprint",
    "instructions_dropped": "no-instr",
    "stream_sequence": "seq", "stream_text_mismatch": "delta≠",
    "moderation_flagged": "flagged", "over_budget": "budget",
    "tool_choice_unmet": "unmet",
    "citation_unretrieved": "cite?", "citation_unidentified": "cite-id",
}

MARKER_LEGEND: dict[str, str] = {k: f"{sym} {text}" for k, (sym, text) in MARKERS.items()}
MARKER_SYMBOLS: dict[str, str] = {k: sym for k, (sym, _) in MARKERS.items()}


# Shared by every turn that carries no marker (most do not); never mutated.
NO_MARKERS: list[str] = []
