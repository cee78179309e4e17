"""The turn table's columns the analysis reads, bound once per table.

The analysis runs once per turn of captures with a hundred thousand turns. Reading a fact
through the row views (`turn.res.input_tokens`: capture/model.py) costs a view and a
property call per fact; reading the column at the turn's row is one index. The per-turn
rules' facts (rules/facts.py) are read through this binding.
"""

from __future__ import annotations

from traceview.capture.side_columns import RequestSide, ResponseSide, flag_bit
from traceview.capture.table import TurnTable

Q_COMPACTION_INPUT = flag_bit(RequestSide, "compaction_input")
Q_COMPACTION_TRIGGER = flag_bit(RequestSide, "compaction_trigger")
Q_STORE_SET = flag_bit(RequestSide, "store_set")
Q_STORE_VALUE = flag_bit(RequestSide, "store_value")
Q_INSTRUCTIONS = flag_bit(RequestSide, "instructions")
S_COMPACTION_OUTPUT = flag_bit(ResponseSide, "compaction_output")
S_STREAM_CUT = flag_bit(ResponseSide, "stream_cut")
S_STORE_SET = flag_bit(ResponseSide, "store_set")
S_STORE_VALUE = flag_bit(ResponseSide, "store_value")
S_REFUSAL = flag_bit(ResponseSide, "refusal")


class Columns:
    """One table's columns, by the names the row views give them (q_: the request side,
    s_: the response side; a count column holds UNKNOWN (-1) for None, a pooled one a
    number into `values`, whose 0 is None). A table's columns grow in place (rows
    appended, workers' chunks extended), so a binding stays valid while the table grows,
    until a column is widened (a new array): then `version` differs from the table's."""

    __slots__ = ("table", "version", "values", "index", "source", "api", "attempts", "req_row",
                 "res_row", "line", "s_rid",
                 "q_bytes", "q_input_bytes", "q_new", "q_conv", "q_prev", "q_model",
                 "q_include", "q_tools", "q_flags", "q_extra", "s_in", "s_cached", "s_out",
                 "s_reasoning", "s_elapsed", "s_out_bytes", "s_status", "s_model", "s_conv",
                 "s_types", "s_tier", "s_fp", "s_flags", "s_extra", "s_hosted", "s_miss",
                 "s_web", "s_file", "s_started")

    def __init__(self, t: TurnTable) -> None:
        q, s = t.requests, t.responses
        qc, sc = q.cols, s.cols
        self.table = t
        self.version = t.version  # a column widened since (capture/table.py): bind again
        self.values = t.pool.values
        self.index, self.source, self.api, self.attempts = t.index, t.source, t.api, t.attempts
        self.req_row, self.res_row, self.line = t.req_row, t.res_row, t.line
        self.q_bytes, self.q_input_bytes = qc["request_bytes"], qc["input_bytes"]
        self.q_new, self.q_conv = qc["new_input_tokens"], qc["conversation_id"]
        self.q_prev = qc["previous_response_id"]
        self.q_model, self.q_include = qc["model"], qc["include"]
        self.q_tools = qc["tools_offered"]
        self.q_flags, self.q_extra = q.flags, q.dicts["extra"]
        self.s_in, self.s_cached = sc["input_tokens"], sc["cached_tokens"]
        self.s_out, self.s_reasoning = sc["output_tokens"], sc["reasoning_tokens"]
        self.s_elapsed, self.s_out_bytes = sc["elapsed_ms"], sc["output_bytes"]
        self.s_status, self.s_model = sc["status"], sc["model"]
        self.s_conv, self.s_types = sc["conversation_id"], sc["output_types"]
        self.s_tier, self.s_fp = sc["service_tier"], sc["fingerprint"]
        self.s_flags, self.s_extra = s.flags, s.dicts["extra"]
        self.s_hosted = s.dicts["hosted_calls"]
        self.s_miss = s.dicts["cache_miss_reason"]
        self.s_web, self.s_file = s.dicts["web_search_requests"], s.dicts["file_search_requests"]
        self.s_started = sc["started_at"]
        self.s_rid = sc["response_id"]

