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
from traceview.analysis.pricing import COUNTERS as _COUNTERS
from traceview.analysis.pricing import Pricing, counters_for
from traceview.analysis.stats import Totals
from traceview.analysis.turn_report import ConversationReport, TurnColumns, TurnReport
from traceview.capture.items import HOSTED_TYPES
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
# Hosted items after which the model samples again inside the same response (a pass).
_PASS_TYPES = HOSTED_TYPES - {"mcp_list_tools"}
EXPECTED_UNKNOWN_MEDIA = ("expected input unknown: the request carries a file/image whose "
                          "tokens cannot be estimated")


def model_passes(types: tuple[str, ...]) -> int:
    """Model passes a response's output shows: one, plus one per hosted call the model
    continued after (its billed input counts the context once per pass)."""
    passes = 1
    last = len(types) - 1
    for i, t in enumerate(types):
        if i < last and t in _PASS_TYPES:
            passes += 1
    return passes


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
    pending_hosted: list[tuple[int, tuple[HostedCall, ...], tuple[str, ...]]] = field(
        default_factory=list)
    # Model passes of the last turn with usage (a hosted loop bills the context once per
    # pass), and its index.
    last_passes: int = 1
    last_index: int = 0
    # Calls the last turn handed to the application, and that turn's report (marked
    # unanswered_call when the next turn does not answer them).
    open_actions: tuple[tuple[str, str | None, str | None, str | None], ...] = ()
    last_report: TurnReport | None = None
    fingerprint: str | None = None
    service_tier: str | None = None
    first_instructions: bool | None = None


class Analyzer:
    def __init__(self, options: Options | None = None, pricing: Pricing | None = None) -> None:
        self.options = options or Options()
        self.pricing = pricing or Pricing.load(self.options.pricing_path)
        self.grouper = ConversationGrouper()
        self.states: dict[str, _ConvState] = {}
        self.reports: list[TurnReport] = []
        self.columns = TurnColumns()  # the reports' own counts, by the turns' table rows
        self.totals = Totals()
        self._compactions: dict[str, int] = {}  # compaction item key -> turn first seen

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
        ctx: dict[str, Any] = {}
        rx = req.extra if req is not None else None
        if req is not None:
            req_bytes = req.request_bytes
            if req_bytes is not None:
                chained = req.conversation_id is not None or req.previous_response_id is not None
                owned = req_bytes + (st.history_bytes if chained else 0)
            media = rx.get("media") if rx else None
            if prev is not None and media and any(m["tokens"] is None for m in media):
                ctx["expected_unknown"] = EXPECTED_UNKNOWN_MEDIA
            elif prev is not None:
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
        rep = TurnReport(turn, source_name, key, owned, expected, cumulative, self.pricing,
                         self.columns)
        # A hosted loop bills the context once per model pass (TurnReport.model_passes).
        passes = model_passes(res.output_types) if calls else 1

        # ---- the markers, in display order (markers.MARKERS), each rule stated once ----
        m: list[str] = []
        if (inp is not None and expected is not None
                and inp - expected * passes >= max(o.deposit_min_tokens,
                                                   o.deposit_ratio * expected)):
            m.append("deposit")
            rep.attribution = self._attribute(st)
        # Compaction counts where it happened: a request that only resends a compaction
        # item seen earlier in the capture is not a new compaction.
        resent = (self._resent_compaction(turn)
                  if rx or (res is not None and res.extra) else None)
        if resent is not None:
            ctx["compaction_resent"] = resent
        explicit = turn.api == "compact" or bool(
            (res is not None and (res.compaction_output
                                  or (res.cache_miss_reason == "context_compacted"
                                      and not st.last_compacted)))
            or (req is not None and (req.compaction_trigger
                                     or (req.compaction_input and resent is None))))
        if explicit:
            m.append("compaction")
        elif (not st.last_compacted and prev is not None and inp is not None
                and inp < prev - o.compaction_min_drop):
            if st.last_passes > 1:
                ctx["after_passes"] = {"turn": st.last_index, "passes": st.last_passes}
            elif resent is None:
                m.append("compaction_likely")
        if calls and any(c.evidence == "missing" for c in calls):
            m.append("evidence_missing")
        if status in TERMINAL_FAIL:
            m.append(TERMINAL_FAIL[status])
        if res is None:
            m.append("request_only")
        elif res.stream_cut:
            m.append("stream_cut")
        xr = res.extra if res is not None else None
        if req is None:
            m.append("response_only")
        elif (res is not None and status == "completed" and req.tools_offered
              and not (xr and "unknown_items" in xr)):
            used = {c.type for c in calls}
            for tool in req.tools_offered:
                hosted = HOSTED_TOOL_CALLS.get(tool)
                if hosted and not used.intersection(hosted):
                    m.append("tool_offered_unused")
                    break
        if turn.attempts:
            m.append("retried")
        actions: tuple[tuple[str, str | None, str | None, str | None], ...] = ()
        if xr:
            if "unknown_items" in xr:
                m.append("unknown_item")
            actions = xr.get("actions", ())
            if any(a[0] == "mcp_approval_request" for a in actions):
                m.append("approval_request")
            if any(a[0] == "computer_call" for a in actions):
                m.append("computer_action")
            offered = rx.get("functions") if rx else None
            if offered is not None or (req is not None and not req.tools_offered):
                names = set(offered or ())
                stray = sorted({a[2] for a in actions if a[0] == "function_call"
                                and a[2] is not None and a[2] not in names})
                if stray:
                    m.append("unoffered_function")
                    ctx["unoffered"] = stray
        if res is not None and res.refusal:
            m.append("refusal")
        counters = (self._counters(res, calls) if res is not None and (
            res.web_search_requests is not None or res.file_search_requests is not None)
            else None)
        if counters:
            ctx["counters"] = counters
            if any(c["provider"] != c["items"] for c in counters):
                m.append("counter_mismatch")
        store = req.store if req is not None else None
        if store is None and res is not None:
            store = res.store
        if store is False and req is not None and (req.previous_response_id
                                                   or req.conversation_id):
            m.append("unstored_chain")
        if res is not None:
            fp, tier = res.fingerprint, res.service_tier
            if (fp is not None and fp != st.fingerprint) or (
                    tier is not None and tier != st.service_tier):
                changed = [{"field": label, "from": before, "to": now}
                           for label, now, before in (
                               ("system_fingerprint", fp, st.fingerprint),
                               ("service_tier", tier, st.service_tier))
                           if now is not None and before is not None and now != before]
                if changed:
                    m.append("fingerprint_changed")
                    ctx["changed"] = changed
                st.fingerprint = fp if fp is not None else st.fingerprint
                st.service_tier = tier if tier is not None else st.service_tier
        if req is not None:
            if st.first_instructions is None:
                st.first_instructions = req.instructions
            elif (st.first_instructions and req.previous_response_id
                  and not req.instructions):
                m.append("instructions_dropped")
        rep.markers = _MARKER_LISTS.setdefault(tuple(m), m) if m else NO_MARKERS
        if st.open_actions:
            self._answer_actions(st, rx)
        if ctx:
            rep.context = ctx

        # ---- the cost ----
        model = (res.model if res is not None else None) or (req.model if req else None)
        cost = self.pricing.cost(model, inp, cached, out, calls,
                                 counters_for(res) if counters else None)
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
                tot.usage_turns += 1
                if out is not None:
                    st.last_input = inp
                    st.last_visible = out - (reasoning or 0)
                    st.last_compacted = explicit
                    st.last_passes = passes
                    st.last_index = turn.index
            tot.cached_tokens += cached or 0
            tot.output_tokens += out or 0
            tot.reasoning_tokens += reasoning or 0
            st.history_bytes += res.output_bytes
            elapsed = rep.caller_elapsed_ms if turn.attempts else res.elapsed_ms
            if elapsed is not None:
                tot.latency.append(elapsed)
                (tot.latency_hosted if calls else tot.latency_plain).append(elapsed)
            if calls:
                conv.hosted_calls += len(calls)
                tot.hosted_calls += len(calls)
                st.pending_hosted.append((turn.index, calls, req.include if req else ()))
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
            tot.cost_turns += 1
            tot.cost_usd += tokens_usd + hosted_usd
        if turn.attempts:
            tot.attempts += len(turn.attempts)
        cm, tm = conv.markers, tot.markers
        for mk in rep.markers:
            cm[mk] = cm.get(mk, 0) + 1
            tm[mk] = tm.get(mk, 0) + 1
        st.open_actions = actions
        st.last_report = rep
        self.reports.append(rep)
        return rep

    def _resent_compaction(self, turn: Turn) -> int | None:
        """The turn that first produced or sent the compaction item this request carries,
        when it was seen before in the capture (a resend, not a new compaction)."""
        seen = self._compactions
        req, res = turn.req, turn.res
        keys = req.extra.get("compaction_keys", ()) if req is not None and req.extra else ()
        found = next((seen[k] for k in keys if k in seen), None)
        out = res.extra.get("compaction_keys", ()) if res is not None and res.extra else ()
        for k in (*keys, *out):
            seen.setdefault(k, turn.index)
        return found

    def _answer_actions(self, st: _ConvState, rx: dict[str, Any] | None) -> None:
        """Mark the conversation's previous turn when this turn leaves its calls unanswered."""
        if not st.open_actions or st.last_report is None:
            return
        answered = set(rx.get("answered", ())) if rx else set()
        # Answered by call id, or by item id (some clients echo the item's id as call_id).
        missing = [a for a in st.open_actions
                   if a[0] != "mcp_approval_request" and a[1] is not None
                   and a[1] not in answered and a[3] not in answered]
        if not missing:
            return
        prev_rep = st.last_report
        prev_rep.markers = [*prev_rep.markers, "unanswered_call"]
        prev_rep.context = {**(prev_rep.context or {}),
                            "unanswered": [{"type": a[0], "call_id": a[1], "name": a[2]}
                                           for a in missing]}
        for d in (st.report.markers, self.totals.markers):
            d["unanswered_call"] = d.get("unanswered_call", 0) + 1

    @staticmethod
    def _counters(res: Any, calls: tuple[HostedCall, ...]) -> list[dict[str, Any]] | None:
        out = []
        for attr, item in _COUNTERS:
            n = getattr(res, attr)
            items = sum(1 for c in calls if c.type == item)
            if n is not None and (n or items):
                out.append({"counter": attr, "provider": n, "items": items, "item": item})
        return out or None

    def _attribute(self, st: _ConvState) -> dict[str, Any] | None:
        if not st.pending_hosted:
            return None
        turns = [t for t, _, _ in st.pending_hosted]
        calls = [c for _, cs, _ in st.pending_hosted for c in cs]
        missing = [(c, inc) for _, cs, inc in st.pending_hosted for c in cs
                   if c.evidence == "missing"]
        st.pending_hosted = []
        flags = sorted({c.include for c, inc in missing if c.include and c.include not in inc})
        sent = sorted({c.include for c, inc in missing if c.include and c.include in inc})
        return {
            "turn": turns[-1], "turns": turns,
            "hosted_calls": [c.id for c in calls],
            "types": sorted({c.type for c in calls}),
            "evidence_missing": bool(missing),
            "include": flags,
            "include_sent": sent,
        }

    def conversations(self) -> list[ConversationReport]:
        convs = [s.report for s in self.states.values()]
        return sorted(convs, key=lambda c: c.turns[0] if c.turns else 0)
