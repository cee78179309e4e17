"""Numbers and markers for each turn, computed as turns arrive, in one plain pass.

For each turn: read its facts once (rules/facts.py), find its conversation, compute its
numbers and run the rules (analysis/rules/), price it (Pricing.cost), then carry what
the next turn of the conversation needs and add the turn to the conversation's and the
capture's totals. Each conversation keeps only what its next turn needs
(rules/state.py), so memory stays flat however long the capture is.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from traceview.analysis.account.tokens import forget_received
from traceview.analysis.columns import Columns
from traceview.analysis.conversation_columns import ConversationColumns, Conversations
from traceview.analysis.conversations import ConversationGrouper
from traceview.analysis.cost.lines import CaptureBill
from traceview.analysis.options import Options
from traceview.analysis.pricing import Cost, Pricing
from traceview.analysis.reports import Reports
from traceview.analysis.rules import ConversationState, TurnFacts, model_passes, turn_markers
from traceview.analysis.rules.account import Accounts, TurnAccount
from traceview.analysis.rules.actions import unanswered
from traceview.analysis.rules.compaction import CompactionItems
from traceview.analysis.rules.cost import cost as turn_cost
from traceview.analysis.rules.lineage import LineageRule
from traceview.analysis.rules.numbers import cumulative_input, expected_input, owned_state_bytes
from traceview.analysis.stats import Totals
from traceview.analysis.timing import BASIS_NO_TS, caller_latency
from traceview.analysis.turn_columns import TurnColumns
from traceview.analysis.turn_report import TurnReport
from traceview.capture.model import Exchange, RecordRef, Turn
from traceview.capture.table import TurnTable

# Reads one record again by its byte range (Capture.read).
Reader = Callable[[RecordRef | None], dict[str, Any] | None]
# Tells a problem: (source number, line, kind, message).
ProblemNote = Callable[[int, int, str, str], None]


class Analyzer:
    """Analyses turns one after another; holds the reports, conversations and totals."""

    def __init__(self, options: Options | None = None, pricing: Pricing | None = None,
                 read: Reader | None = None, exchanges: Sequence[Exchange] | None = None,
                 problem: ProblemNote | None = None) -> None:
        self.options = options or Options()
        # Where a turn the analysis trips on is told (source, line, kind, message).
        self.problem = problem
        # Each turn's input account, from its request body read again (None: no reader, as
        # for turns built alone, whose expected input is then unknown).
        self.accounts = Accounts(read) if read is not None else None
        # The capture's other calls (as they are read): a conversation created empty
        # there starts its first turn with nothing carried.
        self.exchanges = exchanges
        self._exchanges_seen = 0
        self._created_empty: set[str] = set()
        self.pricing = pricing or Pricing.load(self.options.pricing_path)
        self.grouper = ConversationGrouper()
        self.states: dict[str, ConversationState] = {}
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
        self.compactions = CompactionItems()
        # the cost section's lines and attribution (issue 33)
        self.bill = CaptureBill(self.options.projects)
        self.lineage = LineageRule()
        # The table of the last turn, its columns' binding and its TurnColumns (_switch).
        self.table: TurnTable | None = None
        self.bound: Columns = None  # type: ignore[assignment]  # set by _switch

    def add(self, turn: Turn, source_name: str) -> TurnReport:
        """Numbers, markers, cost and conversation totals of one turn."""
        return TurnReport(self.columns, self._add(turn, None, source_name))

    def add_all(self, turns: Iterable[Turn], names: Sequence[str] | None,
                keep: Callable[[TurnReport], Any] | None, source_name: str = "") -> None:
        """Each turn analysed in order, `keep(report)` for each (None: no report made a
        turn; they are read from `reports` once in). A turn's source is named
        `names[turn.source]` (`source_name` when `names` is None)."""
        add = self._add
        for turn in turns:
            row = add(turn, names, source_name)
            if keep is not None:
                keep(TurnReport(self.columns, row))

    def _add(self, turn: Turn, names: Sequence[str] | None, source_name: str) -> int:
        """One turn (named by `names[its source]`, else `source_name`); its row."""
        table = turn.table
        if table is not self.table:
            self._switch(table)
        f = TurnFacts(turn.row, self.bound)
        if names is not None:
            source_name = names[f.source]
        st = self._state(turn, f, source_name)
        tc = self.columns
        found: dict[str, Any] = {}
        acc = self._account(turn, f)
        if acc is not None and acc.hosted and st.last_input is None \
                and f.req_conversation_id is not None \
                and self._empty_at_start(f.req_conversation_id):
            acc = acc.started_empty()
        expected = expected_input(f, st, acc, found)
        owned = owned_state_bytes(f, st)
        tc.put_row(f.row, owned, expected, cumulative_input(f, st), st.number)
        if acc is not None:
            tc.set_account(f.row, acc.lines, st.last_index if acc.hosted else None)
        tc.sources.setdefault(f.source, source_name)
        passes = model_passes(f.output_types) if f.hosted_calls else 1
        resent = self.compactions.resent(f)
        markers = turn_markers(f, st, expected, passes, resent, self.options, found, acc,
                               self.pricing)
        markers += self.lineage.turn(f, st.number, tc.lineage)
        if "deposit" in markers:
            self._attribute(st, tc, f.row)
        if markers:
            tc.set_markers(f.row, markers)
        if st.open_actions:
            self._answer_actions(st, f)
        if found:
            tc.context[f.row] = found
        cost = turn_cost(self.pricing, f)
        self.bill.add(f.started_at, f.req_extra, cost.parts, f.res_extra, source_name)
        self._count(f, st, markers, cost, owned)
        self._carry(f, st, tc, passes, "compaction" in markers, acc)
        self.reports.append(tc, f.row)
        return f.row

    def _account(self, turn: Turn, f: TurnFacts) -> TurnAccount | None:
        """The turn's input account (None without a reader or a readable request)."""
        if self.accounts is None:
            return None
        billed = f.input_tokens if f.status == "completed" and not f.stream_cut else None
        try:
            return self.accounts.of(turn, f.model, f.output_types, f.reasoning_tokens,
                                    f.started_at, billed)
        except Exception as exc:  # noqa: BLE001 - a shape nothing anticipated: this turn's
            # account is unknown (its expected input null), every other number stands.
            if self.problem is not None:
                ref = turn.request
                self.problem(f.source, ref.line if ref is not None else 0,
                             "input_account_error",
                             f"turn {f.index}: its input account could not be made "
                             f"({type(exc).__name__}: {exc}); its expected input is unknown")
            return None

    def _empty_at_start(self, conversation: str) -> bool:
        """Whether the capture created `conversation` with no items (POST
        /v1/conversations without `items`) before this turn."""
        found, seen = self.exchanges, self._exchanges_seen
        if found is None or self.accounts is None:
            return False
        for ex in found[seen:]:
            if ex.method == "POST" and ex.path.rstrip("/") == "/v1/conversations" \
                    and ex.conversation_id:
                record = self.accounts.read(ex.request)
                body = record.get("body") if isinstance(record, dict) else None
                if isinstance(body, dict) and not body.get("items"):
                    self._created_empty.add(ex.conversation_id)
        self._exchanges_seen = len(found)
        return conversation in self._created_empty

    def _state(self, turn: Turn, f: TurnFacts, source_name: str) -> ConversationState:
        """The running state of the turn's conversation (made on its first turn)."""
        key = self.grouper.assign(turn, f)
        st = self.states.get(key)
        if st is None:
            st = self.states[key] = ConversationState(
                self.convs.add(key, None, "stateless", source_name))
        # A chain's kind and id may change as turns arrive (ConversationGrouper).
        self.convs.kinds[st.number] = self.grouper.kinds[key]
        self.convs.ids[st.number] = self.grouper.ids[key]
        return st

    def _count(self, f: TurnFacts, st: ConversationState, markers: list[str], cost: Cost,
               owned: int | None) -> None:
        """The turn into its conversation's totals and the capture's."""
        elapsed = f.elapsed_ms
        if elapsed is not None and f.attempts:  # the caller waited for every attempt
            elapsed += sum(a.elapsed_ms or 0 for a in f.attempts)
        n_calls = len(f.hosted_calls)
        self.convs.add_turn(st.number, f.index, f.input_tokens, f.cached_tokens,
                            f.output_tokens, n_calls, cost.tokens_usd, cost.hosted_usd,
                            markers)
        self.totals.add_turn(f.has_res, f.input_tokens, f.cached_tokens, f.output_tokens,
                             f.reasoning_tokens, f.request_bytes, owned, n_calls, elapsed,
                             cost.tokens_usd, cost.hosted_usd, len(f.attempts), markers)
        x = f.res_extra
        stream = x.get("stream") if x else None
        # A turn of one attempt and no stream adds nothing to the timing totals: its caller
        # latency is its latency above (TimingTotals keeps the turns where they differ).
        if f.attempts or stream:
            caller, basis, _ = caller_latency(f.attempts, f.elapsed_ms,
                                              f.req_extra.get("ts") if f.req_extra else None)
            self.totals.timing.add(bool(n_calls), caller,
                                   stream["ttft_ms"] if stream else None,
                                   basis == BASIS_NO_TS, elapsed)

    def _carry(self, f: TurnFacts, st: ConversationState, tc: TurnColumns, passes: int,
               compacted: bool, acc: TurnAccount | None) -> None:
        """What the conversation's next turn reads of this one."""
        if f.input_tokens is not None:
            st.cumulative += f.input_tokens
            if f.output_tokens is not None:
                st.last_static = acc.static if acc is not None else None
                st.last_cached_share = (f.cached_tokens / f.input_tokens
                                        if f.cached_tokens is not None and f.input_tokens
                                        else None)
                st.last_input = f.input_tokens
                reasoning = f.reasoning_tokens or 0
                # More reasoning than output cannot be: what it left visible is unknown.
                st.last_visible = (f.output_tokens - reasoning
                                   if reasoning <= f.output_tokens else None)
                st.last_messages = f.output_types.count("message")
                st.last_compacted = compacted
                st.last_passes = passes
                st.last_index = f.index
        st.history_bytes += f.output_bytes + f.input_bytes
        if f.hosted_calls:
            if st.pending is None or st.pending_cols is not tc:
                if st.pending:  # rows of another table's turns: attributed as is
                    self._attribute(st, st.pending_cols, -1)
                st.pending, st.pending_cols = array("q"), tc
            st.pending.append(f.row)
        if f.fingerprint is not None:
            st.fingerprint = f.fingerprint
        if f.service_tier is not None:
            st.service_tier = f.service_tier
        if f.has_req and st.first_instructions is None:
            st.first_instructions = f.instructions
        st.open_actions = f.actions
        # Read only to mark the turn when the next one leaves its calls unanswered: held
        # only while it has calls open, not one report per conversation.
        st.last_report = TurnReport(tc, f.row) if st.open_actions else None

    def _answer_actions(self, st: ConversationState, f: TurnFacts) -> None:
        """Mark the conversation's previous turn when this turn leaves its calls
        unanswered."""
        missing = unanswered(st.open_actions, f)
        if not missing or st.last_report is None:
            return
        prev = st.last_report
        prev.markers = [*prev.markers, "unanswered_call"]
        prev.context = {**(prev.context or {}), "unanswered": missing}
        self.convs.count_marker(st.number, "unanswered_call")
        self.totals.count_marker("unanswered_call")

    @staticmethod
    def _attribute(st: ConversationState, tc: TurnColumns, row: int) -> None:
        """Attribute the deposit at `row` to the hosted turns since the last one (kept as
        their rows, read into an Attribution when a report reads it)."""
        rows, st.pending = st.pending, None
        if not rows:
            return
        if st.pending_cols is tc:
            tc.attribute(row, rows)
        elif row >= 0:  # the hosted turns are another table's rows: read them now
            tc.attribution[row] = st.pending_cols.attribution_from(rows)

    def _switch(self, table: TurnTable) -> None:
        """Turns of `table` from now on: the binding of its columns their facts are read
        through, and the columns of its rows (made on its first turn)."""
        self.table = table
        self.bound = Columns(table)
        tc = self.columns
        if tc.table is table:
            return
        if tc.table is None:
            tc.table = table
            return
        self._by_table[id(tc.table)] = tc
        self.columns = self._by_table.get(id(table)) or TurnColumns(self.pricing, table,
                                                                    self.keys)

    def release(self) -> None:
        """Drop what only the next turn needs (each conversation's running state, the
        grouper's maps): called once no turn will be added (a capture read to its end,
        not followed). The reports, conversations and totals stay."""
        self.states = {}
        self.grouper = ConversationGrouper()
        self.compactions = CompactionItems()
        self.lineage = LineageRule()
        if self.accounts is not None:
            self.accounts = Accounts(self.accounts.read)
        forget_received()
        self.convs.compact()

    def conversations(self) -> Conversations:
        """Every conversation so far, in the order of its first turn."""
        ti = self.convs.indices
        order = sorted(range(len(self.convs)), key=lambda n: ti(n)[0] if len(ti(n)) else 0)
        return Conversations(self.convs, array("q", order))
