"""The analysed numbers of one turn: exactly the report contract's keys, plus a few extras.

A TurnReport holds only what analysis adds (expected input, markers, cost, …) and reads
everything else from the Turn's facts through properties: one copy of each number per
turn, which is what keeps a gigabyte capture's summary small.
"""

from __future__ import annotations

from array import array
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any, NamedTuple

from traceview.analysis.explain import explain, findings, findings_of
from traceview.analysis.ledger import EMPTY_CARRY, ConversationLedger, Ledger, TurnCarry
from traceview.analysis.markers import NO_MARKERS
from traceview.analysis.pricing import COUNTERS, Cost, Pricing, counters_for
from traceview.capture.facts import USER_TEXT_MAX
from traceview.capture.model import RecordRef, Turn
from traceview.capture.table import UNKNOWN
from traceview.capture.table import count as stored

# Keys of a turn in traceview.report/1, in contract order.
CONTRACT_KEYS = (
    "index", "line", "conversation", "api", "status", "user_text", "request_bytes",
    "owned_state_bytes", "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens",
    "elapsed_ms", "expected_input", "unexplained_tokens", "tools_offered", "hosted_calls",
    "markers", "cost_usd",
)
EXTRA_KEYS = (
    "source", "conversation_key", "model", "response_id", "previous_response_id",
    "user_words", "cumulative_input_tokens", "new_input_estimate",
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
)
_NONE: tuple = ()
_LAST_COST: tuple[object, Cost] = (None, Cost(None, None, 0.0, None))


class TurnColumns:
    """The analysis's own per-turn counts, one array per count indexed by the turn table's
    row (UNKNOWN: None), like the facts' columns (capture/table.py), and what only some
    turns have, in dicts by row. One per Analyzer: two analyses of one capture (other
    options) keep their own numbers. Rows are one table's: a turn of another table (one
    built alone) gets columns of its own."""

    __slots__ = ("owned_state_bytes", "expected_input", "cumulative_input_tokens", "table",
                 "pricing", "attribution", "context", "provider_copy", "carried", "ledger")

    def __init__(self, pricing: Pricing | None = None) -> None:
        self.table: object | None = None  # rows are this table's (set by the first turn)
        self.owned_state_bytes = array("q")
        self.expected_input = array("q")
        self.cumulative_input_tokens = array("q")
        # Cost is priced again when read (a dict lookup and three products) rather than
        # held: two floats and a reason per turn are 5 % of a large capture's summary.
        self.pricing = pricing
        # By row, where set (TurnReport's properties of the same names).
        self.attribution: dict[int, Any] = {}  # Attribution (or a dict given as one)
        self.context: dict[int, dict[str, Any]] = {}
        self.provider_copy: dict[int, dict[str, Any]] = {}
        self.carried: dict[int, TurnCarry] = {}
        # Set by the hosted-state pass: a turn's carried context is looked up in it when
        # read (analysis/ledger.py Ledger.carry), not held per turn.
        self.ledger: Ledger | None = None

    def holds(self, turn: Turn) -> bool:
        """Whether `turn`'s row is a row of these columns (claiming its table if unset)."""
        if self.table is None:
            self.table = turn.table
        return self.table is turn.table

    def put(self, row: int, owned: int | None, expected: int | None,
            cumulative: int | None) -> None:
        owned_col = self.owned_state_bytes
        if len(owned_col) <= row:  # grown to the table's rows at once, not row by row
            rows = max(row + 1, len(getattr(self.table, "index", ())))
            more = array("q", [UNKNOWN]) * (rows - len(owned_col))
            for col in (owned_col, self.expected_input, self.cumulative_input_tokens):
                col.extend(more)
        owned_col[row] = stored(owned)
        self.expected_input[row] = stored(expected)
        self.cumulative_input_tokens[row] = stored(cumulative)


def _column(name: str) -> property:
    """A TurnReport count read from its TurnColumns at the turn's row (None: unknown)."""
    get_col = attrgetter(name)

    def get(self: TurnReport) -> int | None:
        v = get_col(self._cols)[self.turn.row]
        return None if v < 0 else v

    return property(get)


class Attribution(NamedTuple):
    """The hosted calls a deposit is attributed to, as held (a tuple: one per deposit); read
    as the report's dict (`TurnReport.attribution`)."""

    turns: tuple[int, ...]
    hosted_calls: tuple[str | None, ...]
    types: tuple[str, ...]
    evidence_missing: bool
    include: tuple[str, ...]
    include_sent: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turns[-1], "turns": list(self.turns),
                "hosted_calls": list(self.hosted_calls), "types": list(self.types),
                "evidence_missing": self.evidence_missing, "include": list(self.include),
                "include_sent": list(self.include_sent)}


def _sparse(name: str, doc: str) -> property:
    """A value only some turns have, kept in its TurnColumns' dict by the turn's row
    (None: not set). A slot on every turn costs 8 bytes; most turns would hold None."""
    get_dict = attrgetter(name)

    def get(self: TurnReport) -> Any:
        return get_dict(self._cols).get(self.turn.row)

    def put(self: TurnReport, value: Any) -> None:
        d = get_dict(self._cols)
        if value is None:
            d.pop(self.turn.row, None)
        else:
            d[self.turn.row] = value

    return property(get, put, doc=doc)


# The last carry read (report, ledger, carry): a report's row reads it two or three times.
_LAST_CARRY: tuple[object, object, TurnCarry | None] = (None, None, None)


class TurnReport:
    """One analysed turn: five references (the turn, its source and conversation, the
    analysis's columns, the markers); every other value is read from the turn's facts or
    from the analysis's columns at the turn's row."""

    __slots__ = ("turn", "source", "conversation_key", "_cols", "markers")

    # What the analyzer found that only some turns have: the hosted calls a deposit is
    # attributed to; passes of a hosted loop, a resent compaction, calls left unanswered,
    # changed fingerprints…; the provider copy the capture deleted (the objects pass:
    # {"object", "kind", "state", "line", "note"}).
    _attribution = _sparse("attribution", "the hosted calls a deposit is attributed to")
    context = _sparse("context", "rare analysis findings behind markers and the account")
    provider_copy = _sparse("provider_copy", "set when the capture deleted its provider copy")

    # The analysis's own counts, in columns at the turn's table row (TurnColumns): no int
    # objects per turn.
    owned_state_bytes = _column("owned_state_bytes")
    expected_input = _column("expected_input")
    cumulative_input_tokens = _column("cumulative_input_tokens")

    def __init__(self, turn: Turn, source: str, conversation_key: str,
                 owned_state_bytes: int | None = None, expected_input: int | None = None,
                 cumulative_input_tokens: int | None = None,
                 pricing: Pricing | None = None, columns: TurnColumns | None = None) -> None:
        self.turn = turn
        self.source = source
        self.conversation_key = conversation_key
        if columns is None or not columns.holds(turn) or columns.pricing is not pricing:
            columns = TurnColumns(pricing)
            columns.holds(turn)
        self._cols = columns
        columns.put(turn.row, owned_state_bytes, expected_input, cumulative_input_tokens)
        self.markers: list[str] = NO_MARKERS

    @property
    def attribution(self) -> dict[str, Any] | None:
        """The hosted calls a deposit is attributed to: {"turn", "turns", "hosted_calls",
        "types", "evidence_missing", "include", "include_sent"} (made when read)."""
        a = self._attribution
        return a.to_dict() if type(a) is Attribution else a

    @attribution.setter
    def attribution(self, value: Attribution | dict[str, Any] | None) -> None:
        self._attribution = value

    @property
    def carried(self) -> TurnCarry | None:
        """What this turn pays for context carried from earlier turns (the ledger's pass,
        analysis/ledger.py): looked up in the ledger when read; None when it carries none."""
        global _LAST_CARRY
        last, cols = _LAST_CARRY, self._cols
        if last[0] is self and last[1] is cols.ledger:
            return last[2]
        carry = cols.carried.get(self.turn.row) if cols.carried else None
        if carry is None and cols.ledger is not None:
            carry = cols.ledger.carry(self.conversation_key, self.index)
        _LAST_CARRY = (self, cols.ledger, carry)
        return carry

    @carried.setter
    def carried(self, carry: TurnCarry | None) -> None:
        global _LAST_CARRY
        _LAST_CARRY = (None, None, None)
        if carry is None:
            self._cols.carried.pop(self.turn.row, None)
        else:
            self._cols.carried[self.turn.row] = carry

    @property
    def columns(self) -> TurnColumns:
        """The analysis's columns this turn's own numbers are kept in."""
        return self._cols

    def __repr__(self) -> str:
        return f"TurnReport(index={self.index}, markers={self.markers})"

    # ---- from the turn itself --------------------------------------------------------------
    @property
    def index(self) -> int:
        t = self.turn
        return t._t.index[t._r]  # Turn.index without its property: read on every lookup

    @property
    def line(self) -> int:
        return self.turn.line

    @property
    def api(self) -> str:
        return self.turn.api

    @property
    def conversation(self) -> str | None:
        return self.turn.conversation_id

    @property
    def model(self) -> str | None:
        return self.turn.model

    @property
    def response_id(self) -> str | None:
        return self.turn.response_id

    @property
    def previous_response_id(self) -> str | None:
        return self.turn.previous_response_id

    @property
    def request_ref(self) -> RecordRef | None:
        return self.turn.request

    @property
    def response_ref(self) -> RecordRef | None:
        return self.turn.response

    @property
    def notes(self) -> list[str]:
        return list(self.turn.notes)

    # ---- from the request --------------------------------------------------------------
    @property
    def user_text(self) -> str | None:
        text = self.turn.req.user_text if self.turn.req else None
        if text is not None and len(text) >= USER_TEXT_MAX:
            return text + "…"  # cut at read time; the full text is in the request body
        return text

    @property
    def user_words(self) -> int | None:
        return self.turn.req.user_words if self.turn.req else None

    @property
    def request_bytes(self) -> int | None:
        return self.turn.req.request_bytes if self.turn.req else None

    @property
    def tools_offered(self) -> list[str]:
        return list(self.turn.req.tools_offered) if self.turn.req else []

    @property
    def new_input_estimate(self) -> int | None:
        return self.turn.req.new_input_tokens if self.turn.req else None

    # ---- from the response ------------------------------------------------------------
    @property
    def status(self) -> str:
        return self.turn.res.status if self.turn.res else "unknown"

    @property
    def input_tokens(self) -> int | None:
        return self.turn.res.input_tokens if self.turn.res else None

    @property
    def cached_tokens(self) -> int | None:
        return self.turn.res.cached_tokens if self.turn.res else None

    @property
    def output_tokens(self) -> int | None:
        return self.turn.res.output_tokens if self.turn.res else None

    @property
    def reasoning_tokens(self) -> int | None:
        return self.turn.res.reasoning_tokens if self.turn.res else None

    @property
    def elapsed_ms(self) -> int | None:
        return self.turn.res.elapsed_ms if self.turn.res else None

    @property
    def started_ms(self) -> int | None:
        """The start in ms since the epoch; None when unknown, or when no calendar holds it
        (a damaged capture's year 11476: `ts` is null then, and so is every export's)."""
        s = self.turn.res.started_at if self.turn.res else None
        if s is None or not _FIRST_SECOND <= s < _PAST_LAST_SECOND:  # NaN too
            return None
        return s * 1000

    @property
    def ts(self) -> str | None:
        """When the turn started, ISO 8601 UTC (the response's `created_at`, else the
        recorder's `ts` less the elapsed time); null when the capture does not say."""
        ms = self.started_ms
        if ms is None:
            return None
        try:
            stamp = datetime.fromtimestamp(ms / 1000, tz=UTC)
        except (OverflowError, ValueError, OSError):  # past year 9999: no calendar time
            return None
        return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")

    @property
    def hosted_calls(self) -> list[dict[str, Any]]:
        return [c.to_dict() for c in self.turn.res.hosted_calls] if self.turn.res else []

    @property
    def incomplete_reason(self) -> str | None:
        return self.turn.res.incomplete_reason if self.turn.res else None

    @property
    def error(self) -> str | None:
        return self.turn.res.error if self.turn.res else None

    @property
    def stream_events(self) -> int | None:
        return self.turn.res.stream_events if self.turn.res else None

    @property
    def attempts(self) -> list[dict[str, Any]]:
        """Every try of this turn in order: the failed ones retried, then the final one."""
        if not self.turn.attempts:
            return []
        final = {"line": self.line, "status": self.status, "http_status": self.http_status,
                 "error": self.error, "error_code": self.error_code,
                 "elapsed_ms": self.elapsed_ms}
        return [*(a.to_dict() for a in self.turn.attempts), final]

    @property
    def caller_elapsed_ms(self) -> int | None:
        """What the caller waited: the final attempt plus every failed attempt before it
        (those with a recorded elapsed time)."""
        own = self.elapsed_ms
        if own is None or not self.turn.attempts:
            return own
        return own + sum(a.elapsed_ms or 0 for a in self.turn.attempts)

    @property
    def http_status(self) -> int | None:
        return self.turn.res.http_status if self.turn.res else None

    @property
    def error_code(self) -> str | None:
        return self.turn.res.error_code if self.turn.res else None

    def _res_extra(self, key: str, default: Any = None) -> Any:
        x = self.turn.res.extra if self.turn.res else None
        return x.get(key, default) if x else default

    def _req_extra(self, key: str, default: Any = None) -> Any:
        x = self.turn.req.extra if self.turn.req else None
        return x.get(key, default) if x else default

    @property
    def request_id(self) -> str | None:
        return self._res_extra("request_id")

    @property
    def processing_ms(self) -> int | None:
        return self._res_extra("processing_ms")

    @property
    def store(self) -> bool | None:
        """The request's `store`, else the response's echo of it; None when neither says."""
        s = self.turn.req.store if self.turn.req else None
        if s is None and self.turn.res is not None:
            s = self.turn.res.store
        return s

    @property
    def service_tier(self) -> str | None:
        return self.turn.res.service_tier if self.turn.res else None

    @property
    def system_fingerprint(self) -> str | None:
        return self.turn.res.fingerprint if self.turn.res else None

    @property
    def media_input(self) -> list[dict[str, Any]]:
        """Non-text parts of the new input, with their estimated tokens (null: unknown)."""
        return list(self._req_extra("media", ()))

    @property
    def expected_input_unknown(self) -> str | None:
        """Why expected_input is null although the previous turn's usage is known."""
        return self.context.get("expected_unknown") if self.context else None

    @property
    def model_passes(self) -> int:
        """Model passes the output shows (1 + hosted calls the model continued after)."""
        from traceview.analysis.analyzer import model_passes

        res = self.turn.res
        return model_passes(res.output_types) if res is not None and res.hosted_calls else 1

    @property
    def finish_reasons(self) -> list[str]:
        return list(self._res_extra("finish_reasons", ()))

    @property
    def unknown_items(self) -> list[dict[str, Any]]:
        return [{"index": i, "type": t} for i, t in self._res_extra("unknown_items", ())]

    @property
    def action_items(self) -> list[dict[str, Any]]:
        """Output items that hand the next step to the application."""
        return [{"type": t, "call_id": c, "name": n, "id": i}
                for t, c, n, i in self._res_extra("actions", ())]

    @property
    def provider_counters(self) -> list[dict[str, Any]]:
        return list(self.context.get("counters", ())) if self.context else []

    @property
    def analysis_context(self) -> dict[str, Any]:
        """Rare analysis findings behind the markers and the account (see README)."""
        return dict(self.context) if self.context else {}

    @property
    def include_sent(self) -> tuple[str, ...]:
        return self.turn.req.include if self.turn.req else ()

    # ---- derived (not stored: a gigabyte capture holds a hundred thousand of these) ----
    @property
    def unexplained_tokens(self) -> int | None:
        """Billed input minus expected input: positive is a deposit, negative compaction."""
        inp = self.input_tokens
        return None if inp is None or self.expected_input is None else inp - self.expected_input

    def _cost(self) -> Cost:
        # A report reads the cost four ways per turn (cost_usd, cost, and the explanation's
        # two): the last turn priced is remembered, one (report, cost) pair for the process.
        global _LAST_COST
        last = _LAST_COST
        if last[0] is self:
            return last[1]
        res = self.turn.res
        pricing = self._cols.pricing
        if pricing is None:
            cost = Cost(None, None, 0.0, "not priced")
        elif res is None:
            cost = pricing.cost(self.model, None, None, None, ())
        else:
            cost = pricing.cost(self.model, res.input_tokens, res.cached_tokens,
                                      res.output_tokens, res.hosted_calls, counters_for(res))
        _LAST_COST = (self, cost)
        return cost

    @property
    def cost_tokens_usd(self) -> float | None:
        return self._cost().tokens_usd

    @property
    def cost_hosted_usd(self) -> float:
        return self._cost().hosted_usd

    @property
    def cost_reason(self) -> str | None:
        return self._cost().reason

    @property
    def cost_usd(self) -> float | None:
        c = self._cost()
        return None if c.tokens_usd is None else round(c.tokens_usd + c.hosted_usd, 6)

    # ---- composed on demand ----------------------------------------------------------
    @property
    def cost(self) -> dict[str, Any]:
        """Where the cost came from: tokens, hosted tool fees, or why it is unknown."""
        return self._cost().to_dict()

    @property
    def carried_context(self) -> dict[str, Any]:
        """Context from earlier turns this turn is billed for again (the ledger's share)."""
        return self.carried.to_dict() if self.carried is not None else EMPTY_CARRY

    @property
    def explanation(self) -> list[str]:
        """Plain-language sentences, composed on demand (cheap, and not held for every turn)."""
        return explain(self)

    @property
    def findings(self) -> list[str]:
        """The explanation's sentences that report a finding, to lead with on screen."""
        return findings(self)

    def to_dict(self) -> dict[str, Any]:
        return self.row()

    def row(self, explained: bool = True, *, whole: bool = True) -> dict[str, Any]:
        """The turn's row, every key of CONTRACT_KEYS then EXTRA_KEYS, with the values the
        properties above give (`explained=False`: the explanation left None, and the row
        carries what `explain_row` needs under "_view"; `whole=False` as well: the
        accounts no table cell or explanation reads — "cost", "carried_context", "ts" —
        left None, for the text report). Read straight from the turn table's columns
        (`_Columns`), not through ~60 property reads of the turn's views: a report writes
        a hundred thousand of these."""
        t = self.turn
        cols = _columns(t._t)
        return cols.row(self, t._r, explained, whole or explained)


_ROW_TEMPLATE: dict[str, Any] = dict.fromkeys((*CONTRACT_KEYS, *EXTRA_KEYS))


class _Columns:
    """One turn table's columns, bound once, and the row a TurnReport reads from them.

    The same values as the TurnReport's properties (tests/core/test_golden_report.py pins
    the bytes): each read here is an array index or a dict lookup by row, where a property
    of a row view (capture/model.py) is a call, two attribute reads and a dict lookup."""

    def __init__(self, t: Any) -> None:
        self.table = t
        self.version = t.version  # a column widened since (capture/table.py): bind again
        rq, rs = t.requests, t.responses
        self.pool = t.pool.values
        self.index, self.line, self.api = t.index, t.line, t.api
        self.req_row, self.res_row = t.req_row, t.res_row
        self.notes, self.attempts = t.notes, t.attempts
        c, d = rq.cols, rq.dicts
        self.q_bytes, self.q_words, self.q_new = (c["request_bytes"], c["user_words"],
                                                  c["new_input_tokens"])
        self.q_tools, self.q_conv, self.q_model, self.q_include = (
            c["tools_offered"], c["conversation_id"], c["model"], c["include"])
        self.q_text, self.q_prev = c["user_text"], c["previous_response_id"]
        self.q_flags, self.q_extra = rq.flags, d["extra"]
        self.q_store_set = 1 << rq.FLAGS.index("store_set")
        self.q_store_value = 1 << rq.FLAGS.index("store_value")
        c, d = rs.cols, rs.dicts
        self.s_inp, self.s_cached, self.s_out, self.s_reason, self.s_elapsed, self.s_start = (
            c["input_tokens"], c["cached_tokens"], c["output_tokens"], c["reasoning_tokens"],
            c["elapsed_ms"], c["started_at"])
        self.s_status, self.s_model, self.s_conv, self.s_types, self.s_tier, self.s_fp = (
            c["status"], c["model"], c["conversation_id"], c["output_types"],
            c["service_tier"], c["fingerprint"])
        self.s_rid = c["response_id"]
        self.s_flags = rs.flags
        self.s_store_set = 1 << rs.FLAGS.index("store_set")
        self.s_store_value = 1 << rs.FLAGS.index("store_value")
        self.s_extra, self.s_hosted, self.s_http, self.s_events = (
            d["extra"], d["hosted_calls"], d["http_status"], d["stream_events"])
        self.s_incomplete, self.s_error, self.s_error_code = (
            d["incomplete_reason"], d["error"], d["error_code"])
        self.s_counters = tuple((d[attr], item) for attr, item in COUNTERS)

    def row(self, rep: TurnReport, r: int, explained: bool, whole: bool) -> dict[str, Any]:
        pool = self.pool
        rcols = rep._cols
        ctx = rcols.context.get(r) if rcols.context else None  # TurnReport.context
        q, s = self.req_row[r], self.res_row[r]
        own = rcols.owned_state_bytes[r]
        exp = rcols.expected_input[r]
        cum = rcols.cumulative_input_tokens[r]
        own = None if own < 0 else own
        exp = None if exp < 0 else exp
        cum = None if cum < 0 else cum
        if q >= 0:
            text = self.q_text.get(q)
            if text is not None and len(text) >= USER_TEXT_MAX:
                text += "…"
            rx = self.q_extra.get(q)
            request_bytes = self.q_bytes[q]
            if request_bytes < 0:
                request_bytes = None
            user_words = self.q_words[q]
            if user_words < 0:
                user_words = None
            tools, new_input = list(pool[self.q_tools[q]]), self.q_new[q]
            flags = self.q_flags[q]
            store = bool(flags & self.q_store_value) if flags & self.q_store_set else None
            prev_id = self.q_prev.get(q)
            conv = pool[self.q_conv[q]] or (pool[self.s_conv[s]] if s >= 0 else None)
            q_model = pool[self.q_model[q]]
            include = pool[self.q_include[q]]
        else:
            text = rx = request_bytes = user_words = new_input = store = prev_id = None
            q_model = None
            tools = []
            include = ()
            conv = pool[self.s_conv[s]] if s >= 0 else None
        if s >= 0:
            x = self.s_extra.get(s)
            status = pool[self.s_status[s]]
            inp, cached, out, reasoning, elapsed = (
                self.s_inp[s], self.s_cached[s], self.s_out[s], self.s_reason[s],
                self.s_elapsed[s])
            inp = None if inp < 0 else inp
            cached = None if cached < 0 else cached
            out = None if out < 0 else out
            reasoning = None if reasoning < 0 else reasoning
            elapsed = None if elapsed < 0 else elapsed
            http_status = self.s_http.get(s)
            error = self.s_error.get(s)
            error_code = self.s_error_code.get(s)
            if store is None:
                flags = self.s_flags[s]
                store = bool(flags & self.s_store_value) if flags & self.s_store_set else None
            model = pool[self.s_model[s]] or q_model
            calls = self.s_hosted.get(s, ())
            hosted = [h.to_dict() for h in calls]
            rid = self.s_rid.get(s)
            incomplete = self.s_incomplete.get(s)
            events = self.s_events.get(s)
            tier, fingerprint = pool[self.s_tier[s]], pool[self.s_fp[s]]
            started = self.s_start[s]
            started = None if started < 0 else started
            passes = _passes(pool[self.s_types[s]]) if calls else 1
        else:
            x = inp = cached = out = reasoning = elapsed = http_status = error = None
            error_code = rid = incomplete = events = tier = fingerprint = started = None
            status, hosted, calls = "unknown", [], ()
            model = q_model
            passes = 1
        c = _LAST_COST[1] if _LAST_COST[0] is rep else self._cost(rep, s, model, inp,
                                                                    cached, out, calls)
        tokens_usd, hosted_usd = c.tokens_usd, c.hosted_usd
        attempts: list[dict[str, Any]] = []
        caller = elapsed
        tries = self.attempts.get(r) if self.attempts else None
        line = self.line[r]
        if tries:
            attempts = [*(a.to_dict() for a in tries),
                        {"line": line, "status": status, "http_status": http_status,
                         "error": error, "error_code": error_code, "elapsed_ms": elapsed}]
            if elapsed is not None:
                caller = elapsed + sum(a.elapsed_ms or 0 for a in tries)
        carried = rep.carried
        # A copy of the template (every key, in order, None) with each value set: a dict
        # display of 55 keys is built in chunks and resized as it grows, ~3× the time.
        d = _ROW_TEMPLATE.copy()
        d["index"] = self.index[r]
        d["line"] = line
        d["conversation"] = conv
        d["api"] = pool[self.api[r]]
        d["status"] = status
        d["user_text"] = text
        d["request_bytes"] = request_bytes
        d["owned_state_bytes"] = own
        d["input_tokens"] = inp
        d["cached_tokens"] = cached
        d["output_tokens"] = out
        d["reasoning_tokens"] = reasoning
        d["elapsed_ms"] = elapsed
        d["expected_input"] = exp
        if inp is not None and exp is not None:
            d["unexplained_tokens"] = inp - exp
        d["tools_offered"] = tools
        d["hosted_calls"] = hosted
        d["markers"] = rep.markers
        if tokens_usd is not None:
            d["cost_usd"] = round(tokens_usd + hosted_usd, 6)
        d["source"] = rep.source
        d["conversation_key"] = rep.conversation_key
        d["model"] = model
        d["response_id"] = rid
        d["previous_response_id"] = prev_id
        d["user_words"] = user_words
        d["cumulative_input_tokens"] = cum
        d["new_input_estimate"] = new_input
        a = rcols.attribution.get(r) if rcols.attribution else None  # TurnReport.attribution
        d["attribution"] = a.to_dict() if type(a) is Attribution else a
        if whole:
            d["cost"] = {"tokens_usd": None if tokens_usd is None else round(tokens_usd, 6),
                         "hosted_usd": None if hosted_usd is None else round(hosted_usd, 6),
                         "reason": c.reason}  # Cost.to_dict, without a call and a lambda
        d["incomplete_reason"] = incomplete
        d["error"] = error
        d["stream_events"] = events
        d["notes"] = list(self.notes.get(r, ())) if self.notes else []
        d["attempts"] = attempts
        d["caller_elapsed_ms"] = caller
        d["http_status"] = http_status
        d["error_code"] = error_code
        d["store"] = store
        d["service_tier"] = tier
        d["system_fingerprint"] = fingerprint
        d["media_input"] = list(rx.get("media", ())) if rx else []
        d["model_passes"] = passes
        if x:
            d["request_id"] = x.get("request_id")
            d["processing_ms"] = x.get("processing_ms")
            d["finish_reasons"] = list(x.get("finish_reasons", ()))
            d["unknown_items"] = [{"index": i, "type": ty}
                                  for i, ty in x.get("unknown_items", ())]
            d["action_items"] = [{"type": ty, "call_id": ci, "name": nm, "id": i}
                                 for ty, ci, nm, i in x.get("actions", ())]
        else:
            d["finish_reasons"] = []
            d["unknown_items"] = []
            d["action_items"] = []
        if ctx:
            d["expected_input_unknown"] = ctx.get("expected_unknown")
            d["provider_counters"] = list(ctx.get("counters", ()))
            d["analysis_context"] = dict(ctx)
        else:
            d["provider_counters"] = []
            d["analysis_context"] = {}
        d["provider_copy"] = rcols.provider_copy.get(r) if rcols.provider_copy else None
        if whole:
            d["carried_context"] = carried.to_dict() if carried is not None else EMPTY_CARRY
            d["ts"] = _ts(started)
        if not explained:  # the text report explains only the turns it marks
            d["_view"] = (ctx, include, c, carried)
            return d
        # The explanation reads the row's own values as attributes (the row is the view's
        # __dict__) plus the few inputs that are not in it, added for the while and removed
        # (the row's keys stay in order: "explanation" and "findings" are set in place).
        d["context"], d["include_sent"], d["cost_hosted_usd"], d["cost_reason"], \
            d["carried"] = ctx, include, hosted_usd, c.reason, carried
        view = _RowView()
        view.__dict__ = d
        explanation = explain(view)  # type: ignore[arg-type]
        found = findings_of(view, explanation)  # type: ignore[arg-type]
        del d["context"], d["include_sent"], d["cost_hosted_usd"], d["cost_reason"], \
            d["carried"]
        d["explanation"], d["findings"] = explanation, found
        return d

    def _cost(self, rep: TurnReport, s: int, model: str | None, inp: int | None,
              cached: int | None, out: int | None, calls: Any) -> Cost:
        """TurnReport._cost from the values the row has read already."""
        global _LAST_COST
        pricing = rep._cols.pricing
        if pricing is None:
            cost = Cost(None, None, 0.0, "not priced")
        elif s < 0:
            cost = pricing.cost(model, None, None, None, ())
        else:
            counters = {item: d[s] for d, item in self.s_counters if s in d} or None
            cost = pricing.cost(model, inp, cached, out, calls, counters)
        _LAST_COST = (rep, cost)
        return cost


_COLUMNS: list[_Columns] = []  # the last table's bound columns (one table per report)


def _columns(table: Any) -> _Columns:
    cols = _COLUMNS[0] if _COLUMNS else None
    if cols is None or cols.table is not table or cols.version != table.version:
        cols = _Columns(table)
        _COLUMNS[:] = [cols]
    return cols


# The seconds datetime can name: 0001-01-01T00:00:00Z up to the end of 9999-12-31.
_FIRST_SECOND, _PAST_LAST_SECOND = -62_135_596_800, 253_402_300_800
_DAYS: dict[int, str] = {}  # "YYYY-MM-DDT" per day since the epoch, for _ts
# "HH:MM:" per minute of the day and "SSZ" per second of the minute: a time of day is two
# list reads, not three formatted numbers.
_CLOCK = [f"{m // 60:02d}:{m % 60:02d}:" for m in range(1440)]
_SECONDS = [f"{s:02d}Z" for s in range(60)]


def _ts(started_at: Any) -> str | None:
    """TurnReport.ts from the response's start (seconds), the same arithmetic.

    Whole seconds (what captures hold) are written from the day's date, looked up once per
    day, and the time of day: strftime per turn was a twentieth of the writer. A time no
    calendar holds (a damaged capture's year 11476) is unknown: None, not a traceback."""
    if started_at is None:
        return None
    try:
        if type(started_at) is int:
            day, sec = divmod(started_at, 86400)
            date = _DAYS.get(day)
            if date is None:
                date = datetime.fromtimestamp(day * 86400, tz=UTC).strftime("%Y-%m-%dT")
                if len(_DAYS) < 4096:
                    _DAYS[day] = date
            minute, sec = divmod(sec, 60)
            return date + _CLOCK[minute] + _SECONDS[sec]
        ms = started_at * 1000
        return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, ValueError, OSError):  # past year 9999: no calendar time
        return None


def _passes(output_types: Any) -> int:
    """analyzer.model_passes, imported on first use (the analyzer imports this module)."""
    global _passes
    from traceview.analysis.analyzer import model_passes

    _passes = model_passes
    return model_passes(output_types)


class _RowView:
    """A turn's row read as attributes, for `explain` (which reads a TurnReport alike)."""


def explain_row(d: dict[str, Any]) -> list[str]:
    """The explanation of a row made with `row(explained=False)`."""
    ctx, include, c, carried = d["_view"]
    view = _RowView()
    view.__dict__ = {**d, "context": ctx, "include_sent": include,
                     "cost_hosted_usd": c.hosted_usd, "cost_reason": c.reason,
                     "carried": carried}
    return explain(view)  # type: ignore[arg-type]


class ConversationReport:
    """Per-conversation totals, for the conversations list and the report."""

    __slots__ = ("key", "id", "kind", "source", "turn_indices", "input_tokens", "cached_tokens",
                 "output_tokens", "hosted_calls", "cost_usd", "cost_unknown_turns", "markers",
                 "exchanges", "usage_turns", "carried")

    def __init__(self, key: str, id: str | None, kind: str, source: str) -> None:
        self.key = key
        self.id = id
        self.kind = kind  # conversation | chain | stateless
        self.source = source
        # Turn indices, in order: an array (8 bytes a turn), not a list of int objects (40).
        self.turn_indices = array("q")
        self.input_tokens: int | None = None
        self.cached_tokens: int | None = None
        self.output_tokens: int | None = None
        self.hosted_calls = 0
        self.cost_usd: float | None = None
        self.cost_unknown_turns = 0
        self.markers: dict[str, int] = {}
        self.exchanges: list[int] = []
        self.usage_turns = 0
        self.carried: ConversationLedger | None = None  # set by the ledger's pass

    @property
    def turns(self) -> list[int]:
        """The conversation's turn indices, in order (a new list; the analyzer appends to
        `turn_indices`)."""
        return self.turn_indices.tolist()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "key": self.key, "kind": self.kind, "source": self.source,
            "turns": self.turn_indices.tolist(), "input_tokens": self.input_tokens,
            "cached_tokens": self.cached_tokens, "output_tokens": self.output_tokens,
            "hosted_calls": self.hosted_calls,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "cost_unknown_turns": self.cost_unknown_turns, "markers": self.markers,
            "usage_turns": self.usage_turns,
            "exchanges": self.exchanges,
            "carried_context": self.carried.to_dict() if self.carried is not None else None,
        }
