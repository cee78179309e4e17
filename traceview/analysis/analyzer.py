"""Numbers and markers for each turn, computed as turns arrive, in one pass.

Each conversation keeps only what the next turn needs: the last turn with usage, the
bytes an owned transcript would have resent so far, and the hosted calls not yet
matched to a deposit. That keeps memory flat however long the capture is. The
conversations' and the capture's totals are summed in the same pass.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from traceview.analysis.columns import (
    Q_COMPACTION_INPUT,
    Q_COMPACTION_TRIGGER,
    Q_INSTRUCTIONS,
    Q_STORE_SET,
    Q_STORE_VALUE,
    S_COMPACTION_OUTPUT,
    S_REFUSAL,
    S_STORE_SET,
    S_STORE_VALUE,
    S_STREAM_CUT,
    Columns,
)
from traceview.analysis.conversation_columns import ConversationColumns, Conversations
from traceview.analysis.conversations import ConversationGrouper
from traceview.analysis.options import Options
from traceview.analysis.pricing import COUNTERS as _COUNTERS
from traceview.analysis.pricing import Pricing, counters_for
from traceview.analysis.reports import Reports
from traceview.analysis.stats import Totals
from traceview.analysis.turn_columns import TurnColumns, widened
from traceview.analysis.turn_report import ConversationReport, TurnReport
from traceview.capture.calls import Calls
from traceview.capture.model import HostedCall, Turn
from traceview.capture.table import LIMIT, UNKNOWN
from traceview.capture.table import count as stored
from traceview.wire import HOSTED_CALL_TYPES as HOSTED_TYPES
from traceview.wire import HOSTED_TOOL_CALLS

TERMINAL_FAIL = {"failed": "failed", "incomplete": "incomplete", "cancelled": "cancelled"}
# Hosted items after which the model samples again inside the same response (a pass).
_PASS_TYPES = HOSTED_TYPES - {"mcp_list_tools"}

_new_report = TurnReport.__new__

EXPECTED_UNKNOWN_MEDIA = ("expected input unknown: the request carries a file/image whose "
                          "tokens cannot be estimated")


class _CallsSeen:
    """What the analyzer reads of a response's hosted calls: how many, their types, whether
    any lacks its evidence, and their fees (no provider counters). Made once per distinct
    list of call shapes (a capture has a few dozen), not per turn."""

    __slots__ = ("n", "types", "missing", "hosted_usd")

    def __init__(self, n: int, types: frozenset[str], missing: bool, hosted_usd: float) -> None:
        self.n = n
        self.types = types
        self.missing = missing
        self.hosted_usd = hosted_usd


_NO_CALLS = _CallsSeen(0, frozenset(), False, 0.0)


def _offered_unused(tools_offered: tuple[str, ...], used: frozenset[str]) -> bool:
    """Whether a hosted tool among `tools_offered` made none of its calls (`used`: the
    response's hosted call types)."""
    for tool in tools_offered:
        hosted = HOSTED_TOOL_CALLS.get(tool)
        if hosted and not used.intersection(hosted):
            return True
    return False


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
    # The conversation's number in the analyzer's keys (TurnColumns.conv).
    number: int = 0
    # Rows of the turns with hosted calls since the last deposit they were attributed to
    # (None: none yet), and the columns they are rows of.
    pending: array | None = None
    pending_cols: TurnColumns | None = None
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
        # The reports, as rows of the columns below (reports.py): no object per turn.
        self.reports = Reports()
        # The conversations' keys, numbered as they appear (TurnColumns.conv).
        self.keys: list[str] = []
        # The conversations' totals, by the same numbers (conversation_columns.py).
        self.convs = ConversationColumns(self.keys)
        # The reports' own values, by the turns' table rows: one TurnColumns per table.
        self.columns = TurnColumns(self.pricing, None, self.keys)
        self._by_table: dict[int, TurnColumns] = {}
        self.totals = Totals()
        self._compactions: dict[str, int] = {}  # compaction item key -> turn first seen
        self._cols: Columns | None = None  # the columns of the last turn's table
        # Memos by the last table's pool numbers (emptied when the table changes): call
        # summaries by the calls' shapes, model passes by output types, and whether a
        # hosted tool went unused by (tools offered, call types).
        self._summaries: dict[tuple[int, ...], _CallsSeen] = {}
        self._passes: dict[int, int] = {}
        self._unused: dict[tuple[int, frozenset[str]], bool] = {}
        # A priced model's (input, cached input, output) USD per 1M tokens, as Pricing.cost
        # reads them: its token cost computed here without the call.
        self._rates: dict[str, tuple[float, float, float]] = {}

    def add(self, turn: Turn, source_name: str) -> TurnReport:
        """Numbers, markers, cost and conversation totals of one turn (`add_all` of one)."""
        out: list[TurnReport] = []
        self.add_all((turn,), None, out.append, source_name)
        return out[0]

    def add_all(self, turns: Iterable[Turn], names: Sequence[str] | None,
                keep: Callable[[TurnReport], Any], source_name: str = "") -> None:
        """Each turn's numbers, markers, cost and conversation totals, in one pass, in
        order; `keep(report)` for each. A turn's source is named `names[turn.source]`
        (`source_name` when `names` is None).

        Written as one flat loop on purpose: it runs once per turn of captures with a
        hundred thousand turns, and each helper call costs as much as the rule it holds.
        Facts are read from the turn table's columns at the turn's rows (analysis/columns.py),
        bound to locals once per run of turns (again when the table or its layout changes),
        not through the row views; the capture's totals are summed in locals and stored
        when the run ends. The rare paths (compaction keys, counters) use the views.
        tests/core/test_analyzer_runs.py compares a run with the turns added one by one.
        """
        o = self.options
        deposit_min, deposit_ratio = o.deposit_min_tokens, o.deposit_ratio
        compaction_drop = o.compaction_min_drop
        grouper = self.grouper
        kinds = grouper.kinds
        states = self.states
        cc = self.convs
        cc_kinds, cc_ids, cc_indices = cc.kinds, cc.ids, cc.turn_indices
        cc_usage, cc_in, cc_cached, cc_out = (cc.usage_turns, cc.input_tokens,
                                              cc.cached_tokens, cc.output_tokens)
        cc_hosted, cc_unknown, cc_cost, cc_markers = (cc.hosted_calls, cc.cost_unknown_turns,
                                                      cc.cost_usd, cc.markers)
        summaries, rates_of = self._summaries, self._rates
        tot = self.totals
        tm = tot.markers
        # The capture's sums, in locals while the run lasts (stored in `finally`).
        n_turns, owned_sum, fees_sum = tot.turns, tot.owned_state_bytes, tot.hosted_fees_usd
        in_sum, cached_sum, out_sum = tot.input_tokens, tot.cached_tokens, tot.output_tokens
        reasoning_sum, usage_n = tot.reasoning_tokens, tot.usage_turns
        request_sum, unknown_n, cost_n = tot.request_bytes, tot.cost_unknown_turns, \
            tot.cost_turns
        cost_sum, attempts_n, calls_n = tot.cost_usd, tot.attempts, tot.hosted_calls
        priced = tot.priced
        reports = self.reports
        table: Any = None
        ver = -1
        try:
            for turn in turns:
                t = turn._t
                if t is not table or t.layout.version != ver:
                    c = self._cols
                    if c is None or c.table is not t or c.version != t.layout.version:
                        c = self._bind(t)
                        summaries = self._summaries
                    table, ver = t, c.version
                    values = c.values
                    req_row_col, res_row_col = c.req_row, c.res_row
                    q_extra, s_extra = c.q_extra, c.s_extra
                    q_conv, s_conv = c.q_conv, c.s_conv
                    index_col, attempts_of, api_col = c.index, c.attempts, c.api
                    q_flags, q_bytes, q_prev, q_new, q_tools = (c.q_flags, c.q_bytes, c.q_prev,
                                                                c.q_new, c.q_tools)
                    q_model, q_input_bytes = c.q_model, c.q_input_bytes
                    s_flags, s_in, s_cached, s_out = c.s_flags, c.s_in, c.s_cached, c.s_out
                    s_status, s_types, s_miss = c.s_status, c.s_types, c.s_miss
                    s_web, s_file, s_fp, s_tier = c.s_web, c.s_file, c.s_fp, c.s_tier
                    s_model, s_reasoning = c.s_model, c.s_reasoning
                    s_out_bytes, s_elapsed = c.s_out_bytes, c.s_elapsed
                    source_col = t.source
                r = turn._r
                qi, si = req_row_col[r], res_row_col[r]
                has_req, has_res = qi >= 0, si >= 0
                rx = q_extra.get(qi) if has_req else None
                xr = s_extra.get(si) if has_res else None
                cid = (values[q_conv[qi]] if has_req else None) or (
                    values[s_conv[si]] if has_res else None)
                if cid and not (rx and "compaction_keys" in rx) and not (
                        xr and "compaction_keys" in xr):
                    # The common case: one dict lookup (grouper.handle, inline). A handle's
                    # kind and id never change once the grouper made them.
                    key = cid
                    if key not in kinds:
                        grouper.handle(key)
                    assigned = False
                else:
                    key = grouper.assign(turn)
                    assigned = True  # a chain's kind and id may have changed (ConversationGrouper)
                st = states.get(key)
                src = source_col[r]
                if st is None:
                    n = cc.add(key, None, "stateless",
                               names[src] if names is not None else source_name)
                    report = ConversationReport(cc, n)
                    st = _ConvState(report)
                    st.number = n
                    states[key] = st
                    assigned = True
                cn = st.number
                if assigned:
                    cc_kinds[cn] = kinds[key]
                    cc_ids[cn] = grouper.ids[key]
                prev = st.last_input
                index = index_col[r]
                attempts = attempts_of.get(r) if attempts_of else None

                # ---- the numbers ----
                owned = expected = cumulative = req_bytes = None
                ctx: dict[str, Any] = {}
                if has_req:
                    qflags = q_flags[qi]
                    req_bytes = q_bytes[qi]
                    if req_bytes < 0:
                        req_bytes = None
                    else:
                        chained = q_conv[qi] != 0 or q_prev[qi] >= 0  # either one not None
                        owned = req_bytes + (st.history_bytes if chained else 0)
                    media = rx.get("media") if rx else None
                    if prev is not None and media and any(m["tokens"] is None for m in media):
                        ctx["expected_unknown"] = EXPECTED_UNKNOWN_MEDIA
                    elif prev is not None:
                        expected = prev + st.last_visible + q_new[qi]
                    tools_offered = values[q_tools[qi]]
                else:
                    qflags = 0
                    tools_offered = ()
                if has_res:
                    sflags = s_flags[si]
                    inp, cached, out = s_in[si], s_cached[si], s_out[si]
                    inp = None if inp < 0 else inp
                    cached = None if cached < 0 else cached
                    out = None if out < 0 else out
                    status = values[s_status[si]]
                    # The row's hosted calls as what the rules read of them (count, types,
                    # missing evidence, fee), one summary per distinct list of call shapes:
                    # no HostedCall is made (calls.Calls.get makes them anew on each read).
                    hs = c.s_hosted
                    if type(hs) is Calls and not hs.changed:
                        rows = hs.rows
                        k = bisect_left(rows, si)
                        if k < len(rows) and rows[k] == si:
                            ends = hs.ends
                            shapes = tuple(hs.shape[ends[k - 1] if k else 0:ends[k]])
                            calls = summaries.get(shapes)
                            if calls is None:
                                calls = self._summary_of(shapes)
                        else:
                            calls = _NO_CALLS
                    else:
                        calls = self._summary(hs.get(si, ()))
                else:
                    sflags = 0
                    inp, status, calls, cached, out = None, "unknown", _NO_CALLS, None, None
                n_calls = calls.n
                if inp is not None:
                    cumulative = st.cumulative + inp
                elif st.cumulative:
                    cumulative = st.cumulative
                tc = self.columns
                if tc.table is not t:
                    tc = self._columns_of(t)
                # The row's values appended when it is past the columns' rows (turns finish
                # in row order, nearly always: then it is the next one), else set;
                # TurnColumns.store widens a column a value overflowed.
                n = len(tc.conv)
                if n <= r:
                    if n < r:
                        tc.fill(r)  # rows not analysed (yet): their columns' defaults
                    try:
                        tc.owned_state_bytes.append(owned if owned is not None
                                                    and 0 <= owned < LIMIT else UNKNOWN)
                        tc.expected_input.append(expected if expected is not None
                                                 and 0 <= expected < LIMIT else UNKNOWN)
                        tc.cumulative_input_tokens.append(cumulative if cumulative is not None
                                                          and 0 <= cumulative < LIMIT
                                                          else UNKNOWN)
                        tc.marker_ids.append(0)
                        tc.attributed.append(-1)
                        tc.conv.append(st.number)  # last: its length is the rows complete
                    except OverflowError:
                        tc.store(r, owned, expected, cumulative, st.number)
                else:
                    try:
                        tc.owned_state_bytes[r] = stored(owned)
                        tc.expected_input[r] = stored(expected)
                        tc.cumulative_input_tokens[r] = stored(cumulative)
                        tc.conv[r] = st.number
                    except OverflowError:
                        tc.store(r, owned, expected, cumulative, st.number)
                if src not in tc.sources:
                    tc.sources[src] = names[src] if names is not None else source_name
                # A hosted loop bills the context once per model pass (TurnReport.model_passes).
                if n_calls:
                    types = s_types[si]
                    passes = self._passes.get(types)
                    if passes is None:
                        passes = self._passes[types] = model_passes(values[types])
                else:
                    passes = 1

                # ---- the markers, in display order (markers.MARKERS), each rule stated once ----
                m: list[str] = []
                if (inp is not None and expected is not None
                        and inp - expected * passes >= max(deposit_min,
                                                           deposit_ratio * expected)):
                    m.append("deposit")
                    self._attribute(st, tc, r)
                # Compaction counts where it happened: a request that only resends a
                # compaction item seen earlier in the capture is not a new compaction.
                resent = self._resent_compaction(index, rx, xr) if rx or xr else None
                if resent is not None:
                    ctx["compaction_resent"] = resent
                explicit = values[api_col[r]] == "compact" or bool(
                    (has_res and (sflags & S_COMPACTION_OUTPUT
                                  or (not st.last_compacted
                                      and s_miss.get(si) == "context_compacted")))
                    or (has_req and (qflags & Q_COMPACTION_TRIGGER
                                     or (qflags & Q_COMPACTION_INPUT and resent is None))))
                if explicit:
                    m.append("compaction")
                elif (not st.last_compacted and prev is not None and inp is not None
                        and inp < prev - compaction_drop):
                    if st.last_passes > 1:
                        ctx["after_passes"] = {"turn": st.last_index, "passes": st.last_passes}
                    elif resent is None:
                        m.append("compaction_likely")
                if calls.missing:
                    m.append("evidence_missing")
                if status in TERMINAL_FAIL:
                    m.append(TERMINAL_FAIL[status])
                if not has_res:
                    m.append("request_only")
                elif sflags & S_STREAM_CUT:
                    m.append("stream_cut")
                if not has_req:
                    m.append("response_only")
                elif (has_res and status == "completed" and tools_offered
                      and not (xr and "unknown_items" in xr)):
                    unused_key = (q_tools[qi], calls.types)
                    unused = self._unused.get(unused_key)
                    if unused is None:
                        unused = self._unused[unused_key] = _offered_unused(tools_offered,
                                                                            calls.types)
                    if unused:
                        m.append("tool_offered_unused")
                if attempts:
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
                    if offered is not None or (has_req and not tools_offered):
                        fnames = set(offered or ())
                        stray = sorted({a[2] for a in actions if a[0] == "function_call"
                                        and a[2] is not None and a[2] not in fnames})
                        if stray:
                            m.append("unoffered_function")
                            ctx["unoffered"] = stray
                if sflags & S_REFUSAL:
                    m.append("refusal")
                counters = (self._counters(turn.res, c.s_hosted.get(si, ())) if has_res and (
                    si in s_web or si in s_file) else None)
                if counters:
                    ctx["counters"] = counters
                    if any(x["provider"] != x["items"] for x in counters):
                        m.append("counter_mismatch")
                # `store`: the request's, else the response's echo of it (None when neither
                # says).
                if qflags & Q_STORE_SET:
                    store = bool(qflags & Q_STORE_VALUE)
                elif sflags & S_STORE_SET:
                    store = bool(sflags & S_STORE_VALUE)
                else:
                    store = None
                if store is False and has_req and (q_prev[qi] > 0 or values[q_conv[qi]]):
                    m.append("unstored_chain")
                if has_res:
                    fp, tier = values[s_fp[si]], values[s_tier[si]]
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
                if has_req:
                    instructions = bool(qflags & Q_INSTRUCTIONS)
                    if st.first_instructions is None:
                        st.first_instructions = instructions
                    elif st.first_instructions and q_prev[qi] > 0 and not instructions:
                        m.append("instructions_dropped")
                if m:  # the combination's number (TurnColumns.set_markers, its usual case)
                    no = tc._marker_numbers.get(tuple(m))
                    if no is None or no > 255:
                        tc.set_markers(r, m)
                    else:
                        tc.marker_ids[r] = no
                if st.open_actions:
                    self._answer_actions(st, rx)
                if ctx:
                    tc.context[r] = ctx

                # ---- the cost ----
                model = (values[s_model[si]] if has_res else None) or (
                    values[q_model[qi]] if has_req else None)
                if counters:
                    cost = self.pricing.cost(model, inp, cached, out, c.s_hosted.get(si, ()),
                                             counters_for(turn.res))
                    tokens_usd, hosted_usd = cost.tokens_usd, cost.hosted_usd
                else:  # the calls' fees are the summary's (the same sum, made once)
                    hosted_usd = calls.hosted_usd
                    rates = rates_of.get(model) if inp is not None and out is not None \
                        else None
                    if rates is not None:
                        # Pricing.cost's arithmetic, inline, with the model's rates it uses.
                        cached_n = cached or 0
                        fresh = inp - cached_n
                        if fresh < 0:
                            fresh = 0
                        tokens_usd = (fresh * rates[0] + cached_n * rates[1]
                                      + out * rates[2]) / 1_000_000
                    else:
                        tokens_usd = self.pricing.cost(model, inp, cached, out, ()).tokens_usd
                        if tokens_usd is not None and model:
                            self._remember_rates(model)

                # ---- carry state to the next turn, and into the totals ----
                n_turns += 1
                owned_sum += owned or 0
                fees_sum += hosted_usd
                try:
                    cc_indices[cn].append(index)
                except OverflowError:
                    cc_indices[cn] = widened(cc_indices[cn], index)
                    cc_indices[cn].append(index)
                if has_res:
                    reasoning = s_reasoning[si]
                    reasoning = None if reasoning < 0 else reasoning
                    if inp is not None:
                        # Sums over the turns whose usage is known; None while no turn's is.
                        cc_usage[cn] += 1
                        v = cc_in[cn]
                        cc_in[cn] = (v if v > 0 else 0) + inp
                        v = cc_cached[cn]
                        cc_cached[cn] = (v if v > 0 else 0) + (cached or 0)
                        v = cc_out[cn]
                        cc_out[cn] = (v if v > 0 else 0) + (out or 0)
                        st.cumulative += inp
                        in_sum += inp
                        usage_n += 1
                        if out is not None:
                            st.last_input = inp
                            st.last_visible = out - (reasoning or 0)
                            st.last_compacted = explicit
                            st.last_passes = passes
                            st.last_index = index
                    cached_sum += cached or 0
                    out_sum += out or 0
                    reasoning_sum += reasoning or 0
                    st.history_bytes += s_out_bytes[si]
                    elapsed = s_elapsed[si]
                    elapsed = None if elapsed < 0 else elapsed
                    if attempts and elapsed is not None:  # the caller waited for every attempt
                        elapsed += sum(a.elapsed_ms or 0 for a in attempts)
                    if elapsed is not None:
                        try:
                            (tot.latency_hosted if n_calls else tot.latency_plain).append(
                                elapsed)
                        except OverflowError:  # past 2**31 ms: the array widened
                            tot.add_latency(elapsed, bool(n_calls))
                    if n_calls:
                        cc_hosted[cn] += n_calls
                        calls_n += n_calls
                        if st.pending is None or st.pending_cols is not tc:
                            if st.pending:  # rows of another table's turns: attributed as is
                                self._attribute(st, st.pending_cols, -1)
                            st.pending, st.pending_cols = array("i"), tc
                        st.pending.append(r)
                if has_req:
                    st.history_bytes += q_input_bytes[qi]
                    if req_bytes is not None:
                        request_sum += req_bytes
                if tokens_usd is None:
                    cc_unknown[cn] += 1
                    unknown_n += 1
                else:
                    v = cc_cost[cn]
                    cc_cost[cn] = (v if v == v else 0.0) + tokens_usd + hosted_usd  # NaN: None
                    priced = True
                    cost_n += 1
                    cost_sum += tokens_usd + hosted_usd
                if attempts:
                    attempts_n += len(attempts)
                if m:
                    cm = cc_markers[cn]
                    if cm is None:
                        cm = cc_markers[cn] = {}
                    for mk in m:
                        cm[mk] = cm.get(mk, 0) + 1  # type: ignore[union-attr]
                        tm[mk] = tm.get(mk, 0) + 1
                rep = _new_report(TurnReport)  # TurnReport(tc, r) without a Python __init__
                rep._cols = tc
                rep._r = r
                rep._turn = None
                st.open_actions = actions
                st.last_report = rep
                rows_, parts = reports._rows, reports._parts
                if (type(rows_) is range and r == rows_.stop and rows_.start == 0 and parts
                        and parts[-1] is tc):
                    reports._rows = range(r + 1)  # Reports.append's usual case, inline
                else:
                    reports.append(tc, r)
                keep(rep)
        finally:
            tot.turns, tot.owned_state_bytes, tot.hosted_fees_usd = n_turns, owned_sum, fees_sum
            tot.input_tokens, tot.cached_tokens, tot.output_tokens = in_sum, cached_sum, out_sum
            tot.reasoning_tokens, tot.usage_turns = reasoning_sum, usage_n
            tot.request_bytes, tot.cost_unknown_turns, tot.cost_turns = request_sum, unknown_n, \
                cost_n
            tot.cost_usd, tot.attempts, tot.hosted_calls = cost_sum, attempts_n, calls_n
            tot.priced = priced

    def _bind(self, table: Any) -> Columns:
        """Bind `table`'s columns (again after one widened); a new table's pool numbers
        mean other things: the memos keyed by them are emptied."""
        c = self._cols
        if c is None or c.table is not table:
            self._summaries, self._passes, self._unused = {}, {}, {}
        c = self._cols = Columns(table)
        return c

    def _remember_rates(self, model: str) -> None:
        """Keep `model`'s rates when they are plain numbers (else Pricing.cost, which
        says why a turn is not priced, is asked each time)."""
        prices = self.pricing.model_prices(model)
        try:
            rates = (prices["input"], prices.get("cached_input", prices["input"]),
                     prices["output"])
        except (KeyError, TypeError, AttributeError):
            return
        if all(type(x) in (int, float) for x in rates) and len(self._rates) < 1024:
            self._rates[model] = rates

    def _summary_of(self, shapes: tuple[int, ...]) -> _CallsSeen:
        """The summary of calls of these shapes (pool numbers: Calls.SHAPE's fields)."""
        values = self._cols.values  # type: ignore[union-attr]
        calls = tuple(HostedCall(kind, None, status, evidence, include, (), detail)
                      for kind, status, evidence, include, detail in
                      (values[n] for n in shapes))
        seen = self._summaries[shapes] = self._summary(calls)
        return seen

    def _summary(self, calls: Any) -> _CallsSeen:
        """The summary of these HostedCalls (`_CallsSeen`)."""
        if not calls:
            return _NO_CALLS
        return _CallsSeen(len(calls), frozenset(h.type for h in calls),
                          any(h.evidence == "missing" for h in calls),
                          self.pricing.cost(None, None, None, None, calls).hosted_usd)

    def release(self) -> None:
        """Drop what only the next turn needs (each conversation's running state, the
        grouper's maps): called once no turn will be added (a capture read to its end,
        not followed). The reports, conversations and totals stay."""
        self.states = {}
        self.grouper = ConversationGrouper()
        self._compactions = {}
        self.convs.compact()

    def _columns_of(self, table: Any) -> TurnColumns:
        """The columns of `table`'s rows (made on its first turn)."""
        tc = self.columns
        if tc.table is None:
            tc.table = table
        else:
            self._by_table[id(tc.table)] = tc
            tc = self._by_table.get(id(table))
            if tc is None:
                tc = TurnColumns(self.pricing, table, self.keys)
        self.columns = tc
        return tc

    def _resent_compaction(self, index: int, rx: dict[str, Any] | None,
                           xr: dict[str, Any] | None) -> int | None:
        """The turn that first produced or sent the compaction item this request carries,
        when it was seen before in the capture (a resend, not a new compaction)."""
        seen = self._compactions
        keys = rx.get("compaction_keys", ()) if rx else ()
        found = next((seen[k] for k in keys if k in seen), None)
        out = xr.get("compaction_keys", ()) if xr else ()
        for k in (*keys, *out):
            seen.setdefault(k, index)
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
        self.convs.count_marker(st.number, "unanswered_call")
        d = self.totals.markers
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

    @staticmethod
    def _attribute(st: _ConvState, tc: TurnColumns, row: int) -> None:
        """Attribute the deposit at `row` to the hosted turns since the last one (kept as
        their rows, read into an Attribution when a report reads it)."""
        rows, st.pending = st.pending, None
        if not rows:
            return
        if st.pending_cols is tc:
            tc.attribute(row, rows)
        elif row >= 0:  # the hosted turns are another table's rows: read them now
            tc.attribution[row] = st.pending_cols._attribution(rows)

    def conversations(self) -> Conversations:
        """Every conversation so far, in the order of its first turn."""
        ti = self.convs.indices
        order = sorted(range(len(self.convs)), key=lambda n: ti(n)[0] if len(ti(n)) else 0)
        return Conversations(self.convs, array("i", order))
