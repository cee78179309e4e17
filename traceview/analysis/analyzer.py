"""Numbers and markers for each turn, computed as turns arrive, in one pass.

Each conversation keeps only what the next turn needs: the last turn with usage, the
bytes an owned transcript would have resent so far, and the hosted calls not yet
matched to a deposit. That keeps memory flat however long the capture is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from traceview.analysis.conversations import ConversationGrouper
from traceview.analysis.markers import NO_MARKERS
from traceview.analysis.options import Options
from traceview.analysis.pricing import Pricing
from traceview.analysis.turn_report import ConversationReport, TurnReport
from traceview.capture.model import ResponseFacts, Turn

HOSTED_TOOL_CALLS = {
    "file_search": ("file_search_call",),
    "web_search": ("web_search_call",),
    "web_search_preview": ("web_search_call",),
    "web_search_2025_08_26": ("web_search_call",),
    "web_search_preview_2025_03_11": ("web_search_call",),
    "code_interpreter": ("code_interpreter_call",),
    "image_generation": ("image_generation_call",),
    "mcp": ("mcp_call", "mcp_list_tools", "mcp_approval_request"),
}
TERMINAL_FAIL = {"failed": "failed", "incomplete": "incomplete", "cancelled": "cancelled"}


@dataclass
class _ConvState:
    report: ConversationReport
    last_usage: ResponseFacts | None = None  # the last response whose usage is known
    last_compacted: bool = False
    history_bytes: int = 0
    cumulative: int = 0
    pending_hosted: list[tuple[int, list[dict[str, Any]]]] = field(default_factory=list)


class Analyzer:
    def __init__(self, options: Options | None = None, pricing: Pricing | None = None) -> None:
        self.options = options or Options()
        self.pricing = pricing or Pricing.load(self.options.pricing_path)
        self.grouper = ConversationGrouper()
        self.states: dict[str, _ConvState] = {}
        self.reports: list[TurnReport] = []

    def add(self, turn: Turn, source_name: str) -> TurnReport:
        key = self.grouper.assign(turn)
        st = self.states.get(key)
        if st is None:
            st = _ConvState(ConversationReport(key, None, "stateless", source_name))
            self.states[key] = st
        conv = st.report
        conv.kind = self.grouper.kinds[key]
        conv.id = self.grouper.ids[key]
        rep = self._numbers(turn, key, source_name, st)
        self._markers(turn, rep, st)
        res = turn.res
        if res is not None:
            cost = self.pricing.cost(turn.model, res.input_tokens, res.cached_tokens,
                                     res.output_tokens, res.hosted_calls)
        else:
            cost = self.pricing.cost(turn.model, None, None, None, ())
        rep.cost_tokens_usd, rep.cost_reason = cost.tokens_usd, cost.reason
        if cost.hosted_usd:
            rep.cost_hosted_usd = cost.hosted_usd
        self._account(turn, rep, st)
        self.reports.append(rep)
        return rep

    # ---- the numbers ----------------------------------------------------------------
    def _numbers(self, turn: Turn, key: str, source_name: str, st: _ConvState) -> TurnReport:
        req, res = turn.req, turn.res
        rep = TurnReport(turn, source_name, key)
        if req is not None and req.request_bytes is not None:
            chained = bool(req.conversation_id or req.previous_response_id)
            rep.owned_state_bytes = req.request_bytes + (st.history_bytes if chained else 0)
        prev = st.last_usage
        if prev is not None and req is not None:
            visible = prev.output_tokens - (prev.reasoning_tokens or 0)
            rep.expected_input = prev.input_tokens + visible + req.new_input_tokens
        inp = res.input_tokens if res is not None else None
        if inp is not None:
            rep.cumulative_input_tokens = st.cumulative + inp
        else:
            rep.cumulative_input_tokens = st.cumulative if st.cumulative else None
        return rep

    # ---- the markers ----------------------------------------------------------------
    def _markers(self, turn: Turn, rep: TurnReport, st: _ConvState) -> None:
        """Markers in display order (markers.MARKERS), each rule stated once."""
        req, res, o = turn.req, turn.res, self.options
        status = res.status if res is not None else "unknown"
        inp = res.input_tokens if res is not None else None
        calls = res.hosted_calls if res is not None else ()
        m: list[str] = []
        exp = rep.expected_input
        if (inp is not None and exp is not None
                and inp - exp >= max(o.deposit_min_tokens, o.deposit_ratio * exp)):
            m.append("deposit")
            rep.attribution = self._attribute(st)
        explicit = turn.api == "compact" or bool(
            (res is not None and (res.compaction_output
                                  or res.cache_miss_reason == "context_compacted"))
            or (req is not None and (req.compaction_trigger or req.compaction_input)))
        if explicit:
            m.append("compaction")
        prev = st.last_usage
        if (not explicit and not st.last_compacted and prev is not None and inp is not None
                and inp < prev.input_tokens - o.compaction_min_drop):
            m.append("compaction_likely")
        if any(c["evidence"] == "missing" for c in calls):
            m.append("evidence_missing")
        if status in TERMINAL_FAIL:
            m.append(TERMINAL_FAIL[status])
        if res is not None and res.stream_cut:
            m.append("stream_cut")
        if res is None:
            m.append("request_only")
        if req is None:
            m.append("response_only")
        if res is not None and status == "completed" and req is not None:
            used = {c["type"] for c in calls}
            for tool in req.tools_offered:
                hosted = HOSTED_TOOL_CALLS.get(tool)
                if hosted and not used.intersection(hosted):
                    m.append("tool_offered_unused")
                    break
        rep.markers = m if m else NO_MARKERS

    def _attribute(self, st: _ConvState) -> dict[str, Any] | None:
        if not st.pending_hosted:
            return None
        turns = [t for t, _ in st.pending_hosted]
        calls = [c for _, cs in st.pending_hosted for c in cs]
        st.pending_hosted = []
        missing = [c for c in calls if c["evidence"] == "missing"]
        flags = sorted({c["include"] for c in missing if c["include"]})
        return {
            "turn": turns[-1], "turns": turns,
            "hosted_calls": [c["id"] for c in calls],
            "types": sorted({c["type"] for c in calls}),
            "evidence_missing": bool(missing),
            "include": flags,
        }

    # ---- carry state to the next turn ---------------------------------------------------
    def _account(self, turn: Turn, rep: TurnReport, st: _ConvState) -> None:
        conv = st.report
        conv.turns.append(turn.index)
        req, res = turn.req, turn.res
        if res is not None:
            inp = res.input_tokens
            if inp is not None:
                # Sums over the turns whose usage is known; None while no turn's is.
                conv.usage_turns += 1
                conv.input_tokens = (conv.input_tokens or 0) + inp
                conv.cached_tokens = (conv.cached_tokens or 0) + (res.cached_tokens or 0)
                conv.output_tokens = (conv.output_tokens or 0) + (res.output_tokens or 0)
                st.cumulative += inp
                if res.output_tokens is not None:
                    st.last_usage = res
                    st.last_compacted = "compaction" in rep.markers
            st.history_bytes += res.output_bytes
            if res.hosted_calls:
                conv.hosted_calls += len(res.hosted_calls)
                st.pending_hosted.append((turn.index, res.hosted_calls))
        if req is not None:
            st.history_bytes += req.input_bytes
        if rep.cost_tokens_usd is None:
            conv.cost_unknown_turns += 1
        else:
            conv.cost_usd = (conv.cost_usd or 0.0) + rep.cost_tokens_usd + rep.cost_hosted_usd
        for mk in rep.markers:
            conv.markers[mk] = conv.markers.get(mk, 0) + 1

    def conversations(self) -> list[ConversationReport]:
        convs = [s.report for s in self.states.values()]
        return sorted(convs, key=lambda c: c.turns[0] if c.turns else 0)
