"""Numbers and markers for each turn, computed as turns arrive, in one pass.

Each conversation keeps only what the next turn needs: the last turn with usage, the
bytes an owned transcript would have resent so far, and the hosted calls not yet
matched to a deposit. That keeps memory flat however long the capture is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from traceview.analysis.conversations import ConversationGrouper
from traceview.analysis.markers import ordered
from traceview.analysis.options import Options
from traceview.analysis.pricing import Pricing
from traceview.analysis.turn_report import ConversationReport, TurnReport
from traceview.capture.model import Turn

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
    last_usage: TurnReport | None = None
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
        cost = self.pricing.cost(rep.model, rep.input_tokens, rep.cached_tokens,
                                 rep.output_tokens, rep.hosted_calls)
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
        if (prev is not None and req is not None and prev.input_tokens is not None
                and prev.output_tokens is not None):
            visible = prev.output_tokens - (prev.reasoning_tokens or 0)
            rep.expected_input = prev.input_tokens + visible + req.new_input_tokens
        if res is not None and res.input_tokens is not None:
            rep.cumulative_input_tokens = st.cumulative + res.input_tokens
        else:
            rep.cumulative_input_tokens = st.cumulative if st.cumulative else None
        return rep

    # ---- the markers ----------------------------------------------------------------
    def _markers(self, turn: Turn, rep: TurnReport, st: _ConvState) -> None:
        req, res, o = turn.req, turn.res, self.options
        m: set[str] = set()
        if req is None:
            m.add("response_only")
        if res is None:
            m.add("request_only")
        if rep.status in TERMINAL_FAIL:
            m.add(TERMINAL_FAIL[rep.status])
        if res is not None and res.stream_cut:
            m.add("stream_cut")
        explicit = turn.api == "compact" or bool(
            (res and (res.compaction_output or res.cache_miss_reason == "context_compacted"))
            or (req and (req.compaction_trigger or req.compaction_input)))
        if explicit:
            m.add("compaction")
        un, exp = rep.unexplained_tokens, rep.expected_input
        if un is not None and exp is not None and un >= max(o.deposit_min_tokens,
                                                            o.deposit_ratio * exp):
            m.add("deposit")
            rep.attribution = self._attribute(st)
        prev = st.last_usage
        if (not explicit and not st.last_compacted and prev is not None
                and prev.input_tokens is not None and rep.input_tokens is not None
                and rep.input_tokens < prev.input_tokens - o.compaction_min_drop):
            m.add("compaction_likely")
        if any(c["evidence"] == "missing" for c in rep.hosted_calls):
            m.add("evidence_missing")
        if res is not None and rep.status == "completed":
            used = {c["type"] for c in rep.hosted_calls}
            for tool in rep.tools_offered:
                calls = HOSTED_TOOL_CALLS.get(tool)
                if calls and not used.intersection(calls):
                    m.add("tool_offered_unused")
        rep.markers = ordered(m)

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
        res = turn.res
        if res is not None and res.input_tokens is not None:
            # Sums over the turns whose usage is known; None while no turn's is.
            conv.usage_turns += 1
            conv.input_tokens = (conv.input_tokens or 0) + res.input_tokens
            conv.cached_tokens = (conv.cached_tokens or 0) + (res.cached_tokens or 0)
            conv.output_tokens = (conv.output_tokens or 0) + (res.output_tokens or 0)
        conv.hosted_calls += len(res.hosted_calls) if res is not None else 0
        if rep.cost_usd is None:
            conv.cost_unknown_turns += 1
        else:
            conv.cost_usd = (conv.cost_usd or 0.0) + rep.cost_usd
        for mk in rep.markers:
            conv.markers[mk] = conv.markers.get(mk, 0) + 1
        if turn.req is not None:
            st.history_bytes += turn.req.input_bytes
        if turn.res is not None:
            st.history_bytes += turn.res.output_bytes
        if rep.input_tokens is not None:
            st.cumulative += rep.input_tokens
        if rep.input_tokens is not None and rep.output_tokens is not None:
            st.last_usage = rep
            st.last_compacted = "compaction" in rep.markers
        if rep.hosted_calls:
            st.pending_hosted.append((rep.index, rep.hosted_calls))

    def conversations(self) -> list[ConversationReport]:
        convs = [s.report for s in self.states.values()]
        return sorted(convs, key=lambda c: c.turns[0] if c.turns else 0)
