"""The fleet tables' schema, stated once: Parquet, DuckDB, CSV and the README read it here.

`traceview.turns/1` is the report's turn object (`report --format json`) flattened into
one row: every key of `TurnReport.to_dict()` is a column (or, for `cost` and `index`,
named below), so a number in the table means exactly what it means in the report. Types
are written in a small notation of plain tuples, so this module imports nothing heavy;
`arrow_schema()` turns them into pyarrow types when the `[fleet]` extra is installed.
"""

from __future__ import annotations

from typing import Any

TURNS = "traceview.turns/1"
CONVERSATIONS = "traceview.conversations/1"
PROBLEMS = "traceview.problems/1"
HOSTED_CALLS = "traceview.hosted_calls/1"

# A type is "string" | "int64" | "float64" | "bool" | "timestamp" (ms, UTC, no zone),
# "json" (a string holding JSON: for values whose shape varies from row to row),
# ("list", type) or ("struct", ((name, type), ...)).
Type = Any

HOSTED_CALL: Type = ("struct", (
    ("type", "string"), ("id", "string"), ("status", "string"), ("evidence", "string"),
    ("include", "string"), ("queries", ("list", "string")), ("detail", "string")))
ATTRIBUTION: Type = ("struct", (
    ("turn", "int64"), ("turns", ("list", "int64")), ("hosted_calls", ("list", "string")),
    ("types", ("list", "string")), ("evidence_missing", "bool"),
    ("include", ("list", "string")), ("include_sent", ("list", "string"))))
LIMITS: Type = ("struct", tuple((name, "string") for name in (
    "retry-after", "retry-after-ms", "x-ratelimit-remaining-requests",
    "x-ratelimit-remaining-tokens", "x-ratelimit-reset-requests", "x-ratelimit-reset-tokens")))
ATTEMPT: Type = ("struct", (
    ("line", "int64"), ("status", "string"), ("http_status", "int64"), ("error", "string"),
    ("error_code", "string"), ("elapsed_ms", "int64"), ("limits", LIMITS)))
UNKNOWN_ITEM: Type = ("struct", (("index", "int64"), ("type", "string")))
ACTION_ITEM: Type = ("struct", (
    ("type", "string"), ("call_id", "string"), ("name", "string"), ("id", "string")))
COUNTER: Type = ("struct", (
    ("counter", "string"), ("provider", "int64"), ("items", "int64"), ("item", "string")))
PROVIDER_COPY: Type = ("struct", (
    ("object", "string"), ("kind", "string"), ("state", "string"), ("line", "int64"),
    ("note", "string")))
MARKER_COUNT: Type = ("struct", (("marker", "string"), ("count", "int64")))

# (column, type, meaning). Order is the column order of every output.
TURN_COLUMNS: tuple[tuple[str, Type, str], ...] = (
    ("source", "string", "capture file the turn was read from (as named on the command line)"),
    ("capture_index", "int64", "the turn's index in its capture (report `index`)"),
    ("line", "int64", "line of the turn's first record in the capture"),
    ("conversation_index", "int64", "1-based position of the turn in its conversation"),
    ("conversation", "string", "provider conversation id, null for chains and stateless"),
    ("conversation_key", "string", "traceview's key for the conversation (any kind)"),
    ("conversation_kind", "string", "conversation | chain | stateless"),
    ("ts", "timestamp", "when the turn started (response `created_at`, else record `ts`), UTC"),
    ("date", "string", "UTC date of `ts` (YYYY-MM-DD), `unknown` without one; partition key"),
    ("api", "string", "responses | chat | compact"),
    ("status", "string", "completed | incomplete | failed | cancelled | … | unknown"),
    ("model", "string", "model of the response, else of the request"),
    ("response_id", "string", "the response's id"),
    ("previous_response_id", "string", "the request's previous_response_id"),
    ("user_text", "string", "short text of the new user input (sanitised, secrets masked)"),
    ("user_words", "int64", "words in the new user input"),
    ("request_bytes", "int64", "bytes of the request body on the wire"),
    ("owned_state_bytes", "int64", "bytes the turn would send if the app owned the transcript"),
    ("input_tokens", "int64", "billed input tokens"),
    ("cached_tokens", "int64", "cached part of the billed input"),
    ("output_tokens", "int64", "billed output tokens"),
    ("reasoning_tokens", "int64", "reasoning part of the output"),
    ("elapsed_ms", "int64", "response time in ms"),
    ("expected_input", "int64", "the input account's sum; hosted turns: previous input + "
     "visible output + the itemised change"),
    ("unexplained_tokens", "int64", "input_tokens - expected_input (deposit > 0, compaction < 0)"),
    ("cumulative_input_tokens", "int64", "billed input of the conversation so far"),
    ("new_input_estimate", "int64", "estimated tokens of the request's new input"),
    ("tools_offered", ("list", "string"), "tool types the request offered"),
    ("hosted_calls", ("list", HOSTED_CALL), "hosted calls in the response, with their evidence"),
    ("markers", ("list", "string"), "deposit, compaction, evidence_missing, …"),
    ("attribution", ATTRIBUTION, "for a deposit: the hosted calls it is attributed to"),
    ("carried_context", "int64",
     "tokens of earlier context this turn is billed for again (the carried-context ledger; "
     "null when the analysis has none)"),
    ("carried_context_usd", "float64", "what that carried context cost on this turn"),
    ("carried_context_detail", "json", "the report's whole `carried_context` object"),
    ("cost_usd", "float64", "tokens + hosted tool fees, USD (null when not priced)"),
    ("cost_tokens_usd", "float64", "token part of the cost (report `cost.tokens_usd`)"),
    ("cost_hosted_usd", "float64", "hosted tool fees (report `cost.hosted_usd`)"),
    ("cost_reason", "string", "why the cost is unknown or partial (report `cost.reason`)"),
    ("incomplete_reason", "string", "the response's incomplete_details.reason"),
    ("error", "string", "error text (secrets masked)"),
    ("stream_events", "int64", "stream events recorded for a streamed turn"),
    ("http_status", "int64", "HTTP status of the final attempt"),
    ("error_code", "string", "the provider's error code"),
    ("request_id", "string", "the provider's request id (x-request-id)"),
    ("processing_ms", "int64", "the provider's own processing time (openai-processing-ms)"),
    ("attempts", ("list", ATTEMPT), "every try of the turn: failed ones retried, then the final"),
    ("caller_elapsed_ms", "int64", "what the caller waited, failed attempts included"),
    ("store", "bool", "the request's `store` (null: not sent)"),
    ("service_tier", "string", "service tier of the response"),
    ("system_fingerprint", "string", "the response's system_fingerprint"),
    ("finish_reasons", ("list", "string"), "finish reasons of the response"),
    ("model_passes", "int64", "model passes inside the turn (hosted tool loops)"),
    ("media_input", "json", "non-text parts of the new input, with estimated tokens"),
    ("input_account", "json", "billed input itemised: [{component, name, tokens, basis, "
     "source_turn, reason}] (docs/input-account.md)"),
    ("expected_input_unknown", "string", "why expected_input is null"),
    ("unknown_items", ("list", UNKNOWN_ITEM), "output items traceview does not know"),
    ("action_items", ("list", ACTION_ITEM), "output items that hand the next step to the app"),
    ("provider_counters", ("list", COUNTER), "the provider's tool counters vs the items seen"),
    ("analysis_context", "json", "rare analysis findings behind the markers"),
    ("provider_copy", PROVIDER_COPY, "when the capture deleted this turn's provider copy"),
    ("notes", ("list", "string"), "reader notes on the turn"),
    ("explanation", ("list", "string"), "the report's plain-language sentences"),
    ("findings", ("list", "string"), "the sentences that say what is wrong or surprising"),
    # issue #34: the report's `timing` object, flattened (analysis/timing.py)
    ("ttft_ms", "int64", "time to first token: request sent -> first output event (streams "
     "with recorded arrival times)"),
    ("generation_ms", "int64", "first output event -> last event"),
    ("output_tokens_per_s", "float64", "output tokens over the generation time"),
    ("processing_share", "float64", "openai-processing-ms / elapsed_ms (null: not known or "
     "the header exceeds the elapsed time)"),
    ("network_queue_ms", "int64", "elapsed_ms - openai-processing-ms"),
    ("hosted_ms", "int64", "streamed: time inside hosted calls (item added -> done)"),
    ("caller_latency_ms", "int64", "first attempt sent -> final response received, backoff "
     "included"),
    ("caller_latency_basis", "string", "ts | elapsed | elapsed_sum_no_ts (backoff unknown)"),
    ("backoff_ms", "int64", "what the caller waited between attempts (from ts)"),
    ("background_ms", "int64", "background job: create -> terminal status"),
    ("background_polls", "int64", "polls that read a background job's status"),
    ("background_basis", "string", "ts | provider_seconds | stream"),
    ("stream_events_by_type", "json", "stream events counted by type"),
    ("stream_sequence_faults", "int64", "duplicate, missing or out-of-order sequence numbers"),
    ("stream_text_mismatch", "string", "where the text deltas disagree with .done or the body"),
    # issue 33: tier, priced lines and attribution
    ("cost_tier", "string", "processing tier the tokens were priced at (report `cost.tier`): "
     "default, flex, batch, priority, …"),
    ("cost_lines", "json", "the turn's priced lines (report `cost.lines`): [{line_item, usd, "
     "quantity, rate, unit}]"),
    ("metadata", "json", "request metadata over its conversation's (report "
     "`attributed_to.metadata`): query with json_extract_string(metadata, '$.tenant')"),
    ("end_user", "string", "the request's `user` (report `attributed_to.user`)"),
    ("safety_identifier", "string", "the request's `safety_identifier`"),
    ("extras", "string", "JSON of report keys this schema version has no column for"),
    ("lineage", "json", "citations, retrieval, tool_choice and sampling settings (the "
     "report's `lineage`; null: none)"),
    ("project", "string", "the provider project the turn was billed to, from the recorded "
     "openai-project header (report `attributed_to.project`; null: not recorded)"),
    ("organization", "string", "the provider organization (`attributed_to.organization`)"),
)

CONVERSATION_COLUMNS: tuple[tuple[str, Type, str], ...] = (
    ("source", "string", "capture file"),
    ("key", "string", "traceview's conversation key (joins turns.conversation_key)"),
    ("id", "string", "provider conversation id, null for chains and stateless"),
    ("kind", "string", "conversation | chain | stateless"),
    ("turns", ("list", "int64"), "capture indices of its turns"),
    ("turn_count", "int64", "number of turns"),
    ("first_ts", "timestamp", "start of its first turn with a time, UTC"),
    ("input_tokens", "int64", "billed input, summed"),
    ("cached_tokens", "int64", "cached input, summed"),
    ("output_tokens", "int64", "output, summed"),
    ("hosted_calls", "int64", "hosted calls, counted"),
    ("cost_usd", "float64", "cost of the priced turns, USD"),
    ("cost_unknown_turns", "int64", "turns that could not be priced"),
    ("usage_turns", "int64", "turns with usage"),
    ("markers", ("list", MARKER_COUNT), "how many turns carry each marker"),
    ("exchanges", ("list", "int64"), "indices of its non-turn exchanges (listings, deletes)"),
    ("carried_context", "int64", "carried-context tokens re-billed over the conversation "
     "(null when the analysis has none)"),
    ("carried_context_usd", "float64", "what the carried context cost"),
    ("carried_context_detail", "json", "the report's whole `carried_context` object"),
    ("extras", "string", "JSON of report keys this schema version has no column for"),
)

PROBLEM_COLUMNS: tuple[tuple[str, Type, str], ...] = (
    ("source", "string", "capture file"),
    ("line", "int64", "line in the capture (0: the whole file)"),
    ("kind", "string", "malformed_json | truncated_line | unknown_record | …"),
    ("message", "string", "what is wrong (sanitised)"),
)

# One row per hosted call (issue 35): what it searched for and what it returned.
HOSTED_CALL_COLUMNS: tuple[tuple[str, Type, str], ...] = (
    ("source", "string", "capture file"),
    ("capture_index", "int64", "the turn's index (joins turns.capture_index)"),
    ("conversation_key", "string", "the turn's conversation key"),
    ("position", "int64", "the call's place among the turn's hosted calls, from 1"),
    ("type", "string", "file_search_call | web_search_call | code_interpreter_call | …"),
    ("id", "string", "the call's item id"),
    ("status", "string", "the call's status"),
    ("evidence", "string", "captured | empty | missing"),
    ("include", "string", "the include flag that would have captured missing evidence"),
    ("queries", ("list", "string"), "what it searched for"),
    ("result_file_ids", ("list", "string"), "file-search results: file ids (null: results "
     "not captured)"),
    ("result_filenames", ("list", "string"), "file-search results: file names"),
    ("result_scores", ("list", "float64"), "file-search results: scores"),
    ("vector_stores", ("list", "string"), "the vector stores the request's file_search "
     "tool searched"),
    ("sources", ("list", "string"), "web-search sources (URLs; null: not captured)"),
    ("container_id", "string", "the code-interpreter container it ran in"),
)

TABLES: dict[str, tuple[str, tuple[tuple[str, Type, str], ...]]] = {
    "turns": (TURNS, TURN_COLUMNS),
    "conversations": (CONVERSATIONS, CONVERSATION_COLUMNS),
    "problems": (PROBLEMS, PROBLEM_COLUMNS),
    "hosted_calls": (HOSTED_CALLS, HOSTED_CALL_COLUMNS),
}

# Report keys that become differently named columns.
TURN_RENAMED = {"index": "capture_index"}
# `carried_context` (an object in the report) becomes its tokens, its cost and the object.
CARRIED = ("carried_context", "carried_context_usd", "carried_context_detail")
TURN_FLATTENED = {"cost": ("cost_tokens_usd", "cost_hosted_usd", "cost_reason"),
                  "timing": (
                      "ttft_ms", "generation_ms", "output_tokens_per_s", "processing_share",
                      "network_queue_ms", "hosted_ms", "caller_latency_ms",
                      "caller_latency_basis", "backoff_ms", "background_ms",
                      "background_polls", "background_basis", "stream_events_by_type",
                      "stream_sequence_faults", "stream_text_mismatch")}
# Report objects made into columns of their own (issue 33): the report key -> its columns.
COST_MORE = ("cost_tier", "cost_lines")
ATTRIBUTED = {"attributed_to": ("metadata", "end_user", "safety_identifier", "project",
                                 "organization")}


def column_names(table: str) -> list[str]:
    return [name for name, _, _ in TABLES[table][1]]


def column_types(table: str) -> dict[str, Type]:
    """Column name -> type, in column order."""
    return {name: t for name, t, _ in TABLES[table][1]}


def json_columns(table: str) -> list[str]:
    return [name for name, t, _ in TABLES[table][1] if t == "json"]


def describe(t: Type) -> str:
    """The type as the README writes it: `list<struct<type: string, …>>`."""
    if isinstance(t, str):
        return t
    if t[0] == "list":
        return f"list<{describe(t[1])}>"
    return "struct<" + ", ".join(f"{n}: {describe(s)}" for n, s in t[1]) + ">"


def markdown_table(table: str) -> str:
    """The README's table of one schema, generated from the definition above."""
    name, cols = TABLES[table]
    out = [f"`{table}` — `{name}`", "", "| column | type | meaning |", "|---|---|---|"]
    out += [f"| `{n}` | `{describe(t)}` | {m.replace('|', chr(92) + '|')} |"
            for n, t, m in cols]
    return "\n".join(out)


def arrow_type(t: Type) -> Any:
    import pyarrow as pa

    simple = {"string": pa.string(), "json": pa.string(), "int64": pa.int64(),
              "float64": pa.float64(),
              "bool": pa.bool_(), "timestamp": pa.timestamp("ms")}
    if isinstance(t, str):
        return simple[t]
    if t[0] == "list":
        return pa.list_(arrow_type(t[1]))
    return pa.struct([pa.field(n, arrow_type(s)) for n, s in t[1]])


def arrow_schema(table: str) -> Any:
    """The pyarrow schema of `table`, carrying its schema name in the metadata."""
    import pyarrow as pa

    name, cols = TABLES[table]
    return pa.schema([pa.field(n, arrow_type(t)) for n, t, _ in cols],
                     metadata={b"traceview.schema": name.encode()})
