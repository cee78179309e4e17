"""Numbers and markers for each turn, computed as turns arrive, in one pass.

Each conversation keeps only what the next turn needs: the last turn with usage, the
bytes an owned transcript would have resent so far, and the hosted calls not yet
matched to a deposit. That keeps memory flat however long the capture is. The
conversations' and the capture's totals are summed in the same pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from traceview.analysis.conversations import ConversationGrouper
from traceview.analysis.markers import NO_MARKERS
from traceview.analysis.options import Options
from traceview.analysis.pricing import Pricing
from traceview.analysis.stats import Totals
from traceview.analysis.turn_report import ConversationReport, TurnReport
from traceview.capture.model import HostedCall, Turn

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
# One list per distinct combination of markers, shared by every turn that carries it (a
# few dozen combinations cover a capture); like NO_MARKERS, never mutated.
_MARKER_LISTS: dict[tuple[str, ...], list[str]] = {}
TERMINAL_FAIL = {"failed": "failed", "incomplete": "incomplete", "cancelled": "cancelled"}


@dataclass(slots=True)
class _ConvState:
    report: ConversationReport
    # Billed input and visible output (output - reasoning) of the last response whose usage
    # is known: what the next turn's expected input starts from.
    last_input: int | None = None
    last_visible: int = 0
    last_compacted: bool = False
    history_bytes: int = 0
    cumulative: int = 0
    pending_hosted: list[tuple[int, tuple[HostedCall, ...]]] = field(default_factory=list)


class Analyzer:
    def __init__(self, options: Options | None = None, pricing: Pricing | None = None) -> None:
        self.options = options or Options()
        self.pricing = pricing or Pricing.load(self.options.pricing_path)
        self.grouper = ConversationGrouper()
        self.states: dict[str, _ConvState] = {}
        self.reports: list[TurnReport] = []
        self.totals = Totals()

    def add(self, turn: Turn, source_name: str) -> TurnReport:
        """Numbers, markers, cost and conversation totals of one turn, in one pass.

        Written as one flat method on purpose: it runs once per turn of captures with a
        hundred thousand turns, and each helper call costs as much as the rule it holds.
        """
        key = self.grouper.assign(turn)
        st = self.states.get(key)
        if st is None:
            st = _ConvState(ConversationReport(key, None, "stateless", source_name))
            self.states[key] = st
        conv = st.report
        conv.kind = self.grouper.kinds[key]
        conv.id = self.grouper.ids[key]
        req, res, o = turn.req, turn.res, self.options
        prev = st.last_input

        # ---- the numbers ----
        owned = expected = cumulative = req_bytes = None
        if req is not None:
            req_bytes = req.request_bytes
            if req_bytes is not None:
                chained = req.conversation_id is not None or req.previous_response_id is not None
                owned = req_bytes + (st.history_bytes if chained else 0)
            if prev is not None:
                expected = prev + st.last_visible + req.new_input_tokens
        if res is not None:
            inp, status, calls = res.input_tokens, res.status, res.hosted_calls
            cached, out = res.cached_tokens, res.output_tokens
        else:
            inp, status, calls, cached, out = None, "unknown", (), None, None
        if inp is not None:
            cumulative = st.cumulative + inp
        elif st.cumulative:
            cumulative = st.cumulative
        rep = TurnReport(turn, source_name, key, owned, expected, cumulative, self.pricing)

        # ---- the markers, in display order (markers.MARKERS), each rule stated once ----
        m: list[str] = []
        if (inp is not None and expected is not None
                and inp - expected >= max(o.deposit_min_tokens, o.deposit_ratio * expected)):
            m.append("deposit")
            rep.attribution = self._attribute(st)
        explicit = turn.api == "compact" or bool(
            (res is not None and (res.compaction_output
                                  or res.cache_miss_reason == "context_compacted"))
            or (req is not None and (req.compaction_trigger or req.compaction_input)))
        if explicit:
            m.append("compaction")
        elif (not st.last_compacted and prev is not None and inp is not None
                and inp < prev - o.compaction_min_drop):
            m.append("compaction_likely")
        if calls and any(c.evidence == "missing" for c in calls):
            m.append("evidence_missing")
        if status in TERMINAL_FAIL:
            m.append(TERMINAL_FAIL[status])
        if res is None:
            m.append("request_only")
        elif res.stream_cut:
            m.append("stream_cut")
        if req is None:
            m.append("response_only")
        elif res is not None and status == "completed" and req.tools_offered:
            used = {c.type for c in calls}
            for tool in req.tools_offered:
                hosted = HOSTED_TOOL_CALLS.get(tool)
                if hosted and not used.intersection(hosted):
                    m.append("tool_offered_unused")
                    break
        rep.markers = _MARKER_LISTS.setdefault(tuple(m), m) if m else NO_MARKERS

        # ---- the cost ----
        model = (res.model if res is not None else None) or (req.model if req else None)
        cost = self.pricing.cost(model, inp, cached, out, calls)
        tokens_usd, hosted_usd = cost.tokens_usd, cost.hosted_usd

        # ---- carry state to the next turn, and into the totals ----
        tot = self.totals
        tot.turns += 1
        tot.owned_state_bytes += owned or 0
        tot.hosted_fees_usd += hosted_usd
        conv.turns.append(turn.index)
        if res is not None:
            reasoning = res.reasoning_tokens
            if inp is not None:
                # Sums over the turns whose usage is known; None while no turn's is.
                conv.usage_turns += 1
                conv.input_tokens = (conv.input_tokens or 0) + inp
                conv.cached_tokens = (conv.cached_tokens or 0) + (cached or 0)
                conv.output_tokens = (conv.output_tokens or 0) + (out or 0)
                st.cumulative += inp
                tot.input_tokens += inp
                if out is not None:
                    st.last_input = inp
                    st.last_visible = out - (reasoning or 0)
                    st.last_compacted = explicit
            tot.cached_tokens += cached or 0
            tot.output_tokens += out or 0
            tot.reasoning_tokens += reasoning or 0
            st.history_bytes += res.output_bytes
            elapsed = res.elapsed_ms
            if elapsed is not None:
                tot.latency.append(elapsed)
                (tot.latency_hosted if calls else tot.latency_plain).append(elapsed)
            if calls:
                conv.hosted_calls += len(calls)
                tot.hosted_calls += len(calls)
                st.pending_hosted.append((turn.index, calls))
        if req is not None:
            st.history_bytes += req.input_bytes
            if req_bytes is not None:
                tot.request_bytes += req_bytes
        if tokens_usd is None:
            conv.cost_unknown_turns += 1
            tot.cost_unknown_turns += 1
        else:
            conv.cost_usd = (conv.cost_usd or 0.0) + tokens_usd + hosted_usd
            tot.priced = True
            tot.cost_usd += tokens_usd + hosted_usd
        cm, tm = conv.markers, tot.markers
        for mk in rep.markers:
            cm[mk] = cm.get(mk, 0) + 1
            tm[mk] = tm.get(mk, 0) + 1
        self.reports.append(rep)
        return rep

    def _attribute(self, st: _ConvState) -> dict[str, Any] | None:
        if not st.pending_hosted:
            return None
        turns = [t for t, _ in st.pending_hosted]
        calls = [c for _, cs in st.pending_hosted for c in cs]
        st.pending_hosted = []
        missing = [c for c in calls if c.evidence == "missing"]
        flags = sorted({c.include for c in missing if c.include})
        return {
            "turn": turns[-1], "turns": turns,
            "hosted_calls": [c.id for c in calls],
            "types": sorted({c.type for c in calls}),
            "evidence_missing": bool(missing),
            "include": flags,
        }

    def conversations(self) -> list[ConversationReport]:
        convs = [s.report for s in self.states.values()]
        return sorted(convs, key=lambda c: c.turns[0] if c.turns else 0)
