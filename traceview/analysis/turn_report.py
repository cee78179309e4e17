"""The analysed numbers of one turn: exactly the report contract's keys, plus a few extras.

A TurnReport is a view of one row: what analysis adds (expected input, markers, …) is
read from the analysis's columns (turn_columns.py), everything else from the Turn's facts,
through properties. One copy of each number per turn and no object per turn held, which
is what keeps a gigabyte capture's summary small.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from itertools import chain
from operator import attrgetter
from typing import Any

from traceview.analysis.explain import explain, explain_and_findings, findings
from traceview.analysis.ledger import EMPTY_CARRY, TurnCarry
from traceview.analysis.pricing import COUNTERS, Cost, counters_for
from traceview.analysis.rules.deposit import model_passes
from traceview.analysis.turn_columns import Attribution, TurnColumns
from traceview.capture.facts import USER_TEXT_MAX
from traceview.capture.model import RecordRef, Turn

__all__ = ["Attribution", "ConversationReport", "TurnColumns", "TurnReport"]

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


# The last carry read (report, ledger, carry): a report's row reads it two or three times.
_LAST_CARRY: tuple[object, object, TurnCarry | None] = (None, None, None)
_new_turn = Turn.__new__


def _count(name: str) -> property:
    """A TurnReport count read from its TurnColumns at the turn's row (None: unknown)."""
    get_col = attrgetter(name)

    def get(self: TurnReport) -> int | None:
        v = get_col(self._cols)[self._r]
        return None if v < 0 else v

    return property(get)


def _sparse(name: str, doc: str) -> property:
    """A value only some turns have, kept in its TurnColumns' dict by the turn's row
    (None: not set). A slot on every turn costs 8 bytes; most turns would hold None."""
    get_dict = attrgetter(name)

    def get(self: TurnReport) -> Any:
        return get_dict(self._cols).get(self._r)

    def put(self: TurnReport, value: Any) -> None:
        d = get_dict(self._cols)
        if value is None:
            d.pop(self._r, None)
        else:
            d[self._r] = value

    return property(get, put, doc=doc)


class TurnReport:
    """One analysed turn: a view of a row of the analysis's columns (TurnColumns), made
    when read. Two references, no per-turn object held: every value is read from the
    turn's facts or from the analysis's columns at the turn's row, and what is set on a
    report (markers, context, the provider copy) is written there. Two views of one row
    are equal (and hash alike)."""

    # `_turn`: the Turn view, made on first read and kept while this view lives (a pass
    # that holds the views reads each turn's facts several times).
    __slots__ = ("_cols", "_r", "_turn")

    def __init__(self, columns: TurnColumns, row: int) -> None:
        self._cols = columns
        self._r = row
        self._turn: Turn | None = None

    def __eq__(self, other: object) -> bool:
        return (type(other) is TurnReport and other._cols is self._cols
                and other._r == self._r)

    def __hash__(self) -> int:
        return hash((id(self._cols), self._r))

    @property
    def turn(self) -> Turn:
        """The turn's facts: a view of its row of the capture's turn table."""
        t = self._turn
        if t is None:
            t = self._turn = _new_turn(Turn)
            t._t = self._cols.table
            t._r = self._r
        return t

    @property
    def source(self) -> str:
        """The name of the file the turn was read from, as the analysis was given it."""
        c = self._cols
        return c.sources[c.table.source[self._r]]

    @property
    def conversation_key(self) -> str:
        c = self._cols
        return c.keys[c.conv[self._r]]

    @property
    def markers(self) -> list[str]:
        """The turn's markers, in display order (a shared list: never mutate it)."""
        c = self._cols
        return c.marker_lists[c.marker_ids[self._r]]

    @markers.setter
    def markers(self, value: list[str]) -> None:
        self._cols.set_markers(self._r, value)

    # What the analyzer found that only some turns have: passes of a hosted loop, a
    # resent compaction, calls left unanswered, changed fingerprints…; the provider copy
    # the capture deleted (the objects pass: {"object", "kind", "state", "line", "note"}).
    context = _sparse("context", "rare analysis findings behind markers and the account")
    provider_copy = _sparse("provider_copy", "set when the capture deleted its provider copy")

    # The analysis's own counts, in columns at the turn's table row (TurnColumns): no int
    # objects per turn.
    owned_state_bytes = _count("owned_state_bytes")
    expected_input = _count("expected_input")
    cumulative_input_tokens = _count("cumulative_input_tokens")

    @property
    def attribution(self) -> dict[str, Any] | None:
        """The hosted calls a deposit is attributed to: {"turn", "turns", "hosted_calls",
        "types", "evidence_missing", "include", "include_sent"} (made when read)."""
        a = self._cols.attribution_of(self._r)
        return a.to_dict() if type(a) is Attribution else a

    @attribution.setter
    def attribution(self, value: Attribution | dict[str, Any] | None) -> None:
        c = self._cols
        if value is None:
            c.attribution.pop(self._r, None)
            if self._r < len(c.attributed):
                c.attributed[self._r] = -1
        else:
            c.attribution[self._r] = value

    @property
    def carried(self) -> TurnCarry | None:
        """What this turn pays for context carried from earlier turns (the ledger's pass,
        analysis/ledger.py): looked up in the ledger when read; None when it carries none."""
        global _LAST_CARRY
        last, cols = _LAST_CARRY, self._cols
        if last[1] is cols.ledger and (last[0] is self or last[0] == self):
            return last[2]
        carry = cols.carried.get(self._r) if cols.carried else None
        if carry is None and cols.ledger is not None:
            carry = cols.ledger.carry(self.conversation_key, self.index)
        _LAST_CARRY = (self, cols.ledger, carry)
        return carry

    @carried.setter
    def carried(self, carry: TurnCarry | None) -> None:
        global _LAST_CARRY
        _LAST_CARRY = (None, None, None)
        if carry is None:
            self._cols.carried.pop(self._r, None)
        else:
            self._cols.carried[self._r] = carry

    @property
    def columns(self) -> TurnColumns:
        """The analysis's columns this turn's own numbers are kept in."""
        return self._cols

    def __repr__(self) -> str:
        return f"TurnReport(index={self.index}, markers={self.markers})"

    @property
    def index(self) -> int:
        return self._cols.table.index[self._r]

    # ---- from the turn itself --------------------------------------------------------------
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
        if last[0] == self:
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
        return next(_columns(self._cols.table).rows(iter((self,)), explained,
                                                    whole or explained))


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
        self.source = t.source  # the row's source number (TurnReport.source)
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
        # What a run of rows reads, in the order `rows` unpacks it: one tuple unpacked a run
        # (a single TurnReport.row is a run of one), not fifty attribute reads.
        self.bound = (self.pool, self.index, self.line, self.api, self.source,
            self.req_row, self.res_row, self.notes, self.attempts, self.q_bytes,
            self.q_words, self.q_new, self.q_tools, self.q_conv, self.q_model,
            self.q_include, self.q_extra, self.q_flags, self.q_store_set,
            self.q_store_value, self.q_text.buf, self.q_text.starts, self.q_text.lens,
            self.q_prev.buf, self.q_prev.starts, self.q_prev.lens, self.s_rid.buf,
            self.s_rid.starts, self.s_rid.lens, self.s_inp, self.s_cached, self.s_out,
            self.s_reason, self.s_elapsed, self.s_start, self.s_status, self.s_model,
            self.s_conv, self.s_types, self.s_tier, self.s_fp, self.s_flags,
            self.s_store_set, self.s_store_value, self.s_extra, self.s_hosted,
            self.s_http, self.s_events, self.s_incomplete, self.s_error,
            self.s_error_code, self.table, self.version)

    def rows(self, reports: Iterator[TurnReport], explained: bool,
             whole: bool) -> Iterator[dict[str, Any]]:
        """Each report's row (TurnReport.row), read from the columns bound to locals once
        for the run, not once a row (a report writes a hundred thousand). A report of
        another table, or of this one after a column widened, continues in a binding of
        its own; anything else than a TurnReport gives its `to_dict()`."""
        (pool, index, lines, api, source, req_row, res_row, notes, tries_of, q_bytes,
         q_words, q_new, q_tools, q_conv, q_models, q_include, q_extra, q_flags,
         q_store_set, q_store_value, qt_buf, qt_starts, qt_lens, qp_buf, qp_starts,
         qp_lens, sr_buf, sr_starts, sr_lens, s_inp, s_cached, s_out, s_reason,
         s_elapsed, s_start, s_status, s_model, s_conv, s_types, s_tier, s_fp, s_flags,
         s_store_set, s_store_value, s_extra, s_hosted, s_http, s_events, s_incomplete,
         s_error, s_error_code, table, version) = self.bound
        for rep in reports:
            if type(rep) is not TurnReport:
                yield rep.to_dict()
                continue
            rcols = rep._cols
            if rcols.table is not table or table.version != version:
                yield from _columns(rcols.table).rows(chain((rep,), reports), explained, whole)
                return
            r = rep._r
            rcols = rep._cols
            ctx = rcols.context.get(r) if rcols.context else None  # TurnReport.context
            q, s = req_row[r], res_row[r]
            own = rcols.owned_state_bytes[r]
            exp = rcols.expected_input[r]
            cum = rcols.cumulative_input_tokens[r]
            own = None if own < 0 else own
            exp = None if exp < 0 else exp
            cum = None if cum < 0 else cum
            if q >= 0:
                text = _text(qt_buf, qt_starts, qt_lens, q)
                if text is not None and len(text) >= USER_TEXT_MAX:
                    text += "…"
                rx = q_extra.get(q)
                request_bytes = q_bytes[q]
                if request_bytes < 0:
                    request_bytes = None
                user_words = q_words[q]
                if user_words < 0:
                    user_words = None
                tools, new_input = list(pool[q_tools[q]]), q_new[q]
                flags = q_flags[q]
                store = bool(flags & q_store_value) if flags & q_store_set else None
                prev_id = _text(qp_buf, qp_starts, qp_lens, q)
                conv = pool[q_conv[q]] or (pool[s_conv[s]] if s >= 0 else None)
                q_model = pool[q_models[q]]
                include = pool[q_include[q]]
            else:
                text = rx = request_bytes = user_words = new_input = store = prev_id = None
                q_model = None
                tools = []
                include = ()
                conv = pool[s_conv[s]] if s >= 0 else None
            if s >= 0:
                x = s_extra.get(s)
                status = pool[s_status[s]]
                inp, cached, out, reasoning, elapsed = (
                    s_inp[s], s_cached[s], s_out[s], s_reason[s],
                    s_elapsed[s])
                inp = None if inp < 0 else inp
                cached = None if cached < 0 else cached
                out = None if out < 0 else out
                reasoning = None if reasoning < 0 else reasoning
                elapsed = None if elapsed < 0 else elapsed
                http_status = s_http.get(s)
                error = s_error.get(s)
                error_code = s_error_code.get(s)
                if store is None:
                    flags = s_flags[s]
                    store = bool(flags & s_store_value) if flags & s_store_set else None
                model = pool[s_model[s]] or q_model
                calls = s_hosted.get(s, ())
                hosted = [h.to_dict() for h in calls]
                rid = _text(sr_buf, sr_starts, sr_lens, s)
                incomplete = s_incomplete.get(s)
                events = s_events.get(s)
                tier, fingerprint = pool[s_tier[s]], pool[s_fp[s]]
                started = s_start[s]
                started = None if started < 0 else started
                passes = model_passes(pool[s_types[s]]) if calls else 1
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
            tries = tries_of.get(r) if tries_of else None
            line = lines[r]
            if tries:
                attempts = [*(a.to_dict() for a in tries),
                            {"line": line, "status": status, "http_status": http_status,
                             "error": error, "error_code": error_code, "elapsed_ms": elapsed}]
                if elapsed is not None:
                    caller = elapsed + sum(a.elapsed_ms or 0 for a in tries)
            # TurnReport.carried, without its one-entry cache (the row reads it once).
            carried = rcols.carried.get(r) if rcols.carried else None
            key = rcols.keys[rcols.conv[r]]  # TurnReport.conversation_key
            if carried is None and rcols.ledger is not None:
                carried = rcols.ledger.carry(key, index[r])
            # A copy of the template (every key, in order, None) with each value set: a dict
            # display of 55 keys is built in chunks and resized as it grows, ~3× the time.
            d = _ROW_TEMPLATE.copy()
            d["index"] = index[r]
            d["line"] = line
            d["conversation"] = conv
            d["api"] = pool[api[r]]
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
            d["markers"] = rcols.marker_lists[rcols.marker_ids[r]]  # TurnReport.markers
            if tokens_usd is not None:
                d["cost_usd"] = round(tokens_usd + hosted_usd, 6)
            d["source"] = rcols.sources[source[r]]  # TurnReport.source
            d["conversation_key"] = key
            d["model"] = model
            d["response_id"] = rid
            d["previous_response_id"] = prev_id
            d["user_words"] = user_words
            d["cumulative_input_tokens"] = cum
            d["new_input_estimate"] = new_input
            # TurnReport.attribution (a deposit's is read from its rows)
            a = rcols.attribution_of(r) if rcols.attributed[r] >= 0 or rcols.attribution else None
            d["attribution"] = a.to_dict() if type(a) is Attribution else a
            if whole:
                d["cost"] = {"tokens_usd": None if tokens_usd is None else round(tokens_usd, 6),
                             "hosted_usd": None if hosted_usd is None else round(hosted_usd, 6),
                             "reason": c.reason}  # Cost.to_dict, without a call and a lambda
            d["incomplete_reason"] = incomplete
            d["error"] = error
            d["stream_events"] = events
            d["notes"] = list(notes.get(r, ())) if notes else []
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
                yield d
                continue
            # The explanation reads the row's own values as attributes (the row is the view's
            # __dict__) plus the few inputs that are not in it, in the view's slots (the row's
            # keys stay as they are: "explanation" and "findings" are set in place).
            view = _RowView()
            view.__dict__ = d
            view.context, view.include_sent, view.cost_hosted_usd, view.cost_reason, \
                view.carried = ctx, include, hosted_usd, c.reason, carried
            d["explanation"], d["findings"] = explain_and_findings(view)  # type: ignore[arg-type]
            yield d

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
            counters = None  # {item: count} of the counters that hold the row, in order
            for d, item in self.s_counters:
                if d and s in d:
                    if counters is None:
                        counters = {}
                    counters[item] = d[s]
            cost = pricing.cost(model, inp, cached, out, calls, counters)
        _LAST_COST = (rep, cost)
        return cost


def row_dicts(reports: Iterable[TurnReport], explained: bool = True,
              whole: bool = True) -> Iterator[dict[str, Any]]:
    """`report.row(explained, whole=whole)` of each report, in order: the rows written
    straight from the columns, bound once for the run (the JSON report's turns, a
    conversation's table in the text report), not a method call and a binding per row."""
    it = iter(reports)
    first = next(it, None)
    if first is None:
        return iter(())
    if type(first) is not TurnReport:
        return (t.to_dict() for t in chain((first,), it))
    return _columns(first._cols.table).rows(chain((first,), it), explained,
                                            whole or explained)


def _text(buf: bytearray, starts: Any, lens: Any, row: int) -> str | None:
    """Texts.get (capture/table.py) from its three columns: the row's UTF-8 (None when
    its length is -1), decoded; a lone surrogate comes back as it was stored."""
    n = lens[row]
    if n < 0:
        return None
    s = starts[row]
    try:
        return buf[s:s + n].decode()
    except UnicodeDecodeError:
        return buf[s:s + n].decode("utf-8", "surrogatepass")


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


class _RowView:
    """A turn's row read as attributes, for `explain` (which reads a TurnReport alike):
    the row is its __dict__, what the explanation reads beyond the row is in its slots
    (a slot is read before the __dict__: the row is neither copied nor changed)."""

    __slots__ = ("context", "include_sent", "cost_hosted_usd", "cost_reason", "carried",
                 "__dict__")


def explain_row(d: dict[str, Any]) -> list[str]:
    """The explanation of a row made with `row(explained=False)`."""
    ctx, include, c, carried = d["_view"]
    view = _RowView()
    view.__dict__ = d
    view.context, view.include_sent, view.cost_hosted_usd, view.cost_reason, \
        view.carried = ctx, include, c.hosted_usd, c.reason, carried
    return explain(view)  # type: ignore[arg-type]


def _conv_count(name: str) -> property:
    """A conversation's token total from its columns (None while no turn had usage)."""
    def get(self: ConversationReport) -> int | None:
        v = getattr(self._c, name)[self._n]
        return None if v < 0 else v

    def put(self: ConversationReport, value: int | None) -> None:
        getattr(self._c, name)[self._n] = -1 if value is None else value

    return property(get, put)


def _conv_number(name: str) -> property:
    """A conversation's count (0 when none) from its columns."""
    def get(self: ConversationReport) -> int:
        return getattr(self._c, name)[self._n]

    def put(self: ConversationReport, value: int) -> None:
        getattr(self._c, name)[self._n] = value

    return property(get, put)


def _conv_item(name: str) -> property:
    """A conversation's entry in one of its columns' lists."""
    def get(self: ConversationReport) -> Any:
        return getattr(self._c, name)[self._n]

    def put(self: ConversationReport, value: Any) -> None:
        getattr(self._c, name)[self._n] = value

    return property(get, put)


class ConversationReport:
    """Per-conversation totals, for the conversations list and the report: a view of one
    conversation's number in the analyzer's ConversationColumns (conversation_columns.py),
    made when read. Two views of one conversation are equal."""

    __slots__ = ("_c", "_n")

    def __init__(self, columns: Any, number: int) -> None:
        self._c = columns
        self._n = number

    def __eq__(self, other: object) -> bool:
        return (type(other) is ConversationReport and other._c is self._c
                and other._n == self._n)

    def __hash__(self) -> int:
        return hash((id(self._c), self._n))

    def __repr__(self) -> str:
        return f"ConversationReport(key={self.key!r}, turns={len(self.turn_indices)})"

    key = _conv_item("keys")
    id = _conv_item("ids")
    kind = _conv_item("kinds")  # conversation | chain | stateless
    source = _conv_item("sources")
    # Turn indices, in order: an array (4 bytes a turn, widened by the analyzer past
    # 2**31), not a list of int objects (40).
    carried = _conv_item("carried")  # the ConversationLedger, set by the ledger's pass
    input_tokens = _conv_count("input_tokens")
    cached_tokens = _conv_count("cached_tokens")
    output_tokens = _conv_count("output_tokens")
    hosted_calls = _conv_number("hosted_calls")
    cost_unknown_turns = _conv_number("cost_unknown_turns")
    usage_turns = _conv_number("usage_turns")

    @property
    def cost_usd(self) -> float | None:
        v = self._c.cost_usd[self._n]
        return None if v != v else v  # NaN: no turn of it was priced

    @cost_usd.setter
    def cost_usd(self, value: float | None) -> None:
        self._c.cost_usd[self._n] = float("nan") if value is None else value

    @property
    def turn_indices(self) -> array:
        return self._c.indices(self._n)

    @property
    def markers(self) -> dict[str, int]:
        """Marker → how many of the conversation's turns carry it (a new dict: counted by
        the analyzer, ConversationColumns.count_marker)."""
        return self._c.marker_counts(self._n)

    @property
    def exchanges(self) -> list[int]:
        """Indices of the exchanges (non-model calls) that name this conversation."""
        return self._c.exchanges.setdefault(self._n, [])

    @property
    def turns(self) -> list[int]:
        """The conversation's turn indices, in order (a new list; the analyzer appends to
        `turn_indices`)."""
        return self.turn_indices.tolist()

    def to_dict(self) -> dict[str, Any]:
        c, n = self._c, self._n
        carried = c.carried[n]
        return {
            "id": c.ids[n], "key": c.keys[n], "kind": c.kinds[n], "source": c.sources[n],
            "turns": c.indices(n).tolist(), "input_tokens": self.input_tokens,
            "cached_tokens": self.cached_tokens, "output_tokens": self.output_tokens,
            "hosted_calls": c.hosted_calls[n],
            "cost_usd": None if (v := c.cost_usd[n]) != v else round(v, 6),
            "cost_unknown_turns": c.cost_unknown_turns[n], "markers": c.marker_counts(n),
            "usage_turns": c.usage_turns[n],
            "exchanges": c.exchanges.get(n) or [],
            "carried_context": carried.to_dict() if carried is not None else None,
        }
