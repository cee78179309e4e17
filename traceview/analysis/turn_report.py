"""The analysed numbers of one turn: exactly the report contract's keys, plus a few extras.

A TurnReport is a view of one row: what analysis adds (expected input, markers, …) is
read from the analysis's columns (turn_columns.py), everything else from the Turn's facts,
through properties. One copy of each number per turn and no object per turn held, which
is what keeps a gigabyte capture's summary small.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any

from traceview.analysis.conversation_report import ConversationReport
from traceview.analysis.cost.attribution import TurnAttribution, attribution
from traceview.analysis.cost.price import price_sides
from traceview.analysis.explain import explain, explain_and_findings, findings
from traceview.analysis.hosted.carry import EMPTY_CARRY, TurnCarry
from traceview.analysis.lineage import lineage_dict
from traceview.analysis.pricing import Cost
from traceview.analysis.rules.account import report_lines
from traceview.analysis.rules.deposit import model_passes
from traceview.analysis.timing import response_limits, timing_of
from traceview.analysis.turn_columns import Attribution, TurnColumns, turn_view
from traceview.capture.facts import USER_TEXT_MAX
from traceview.capture.model import HostedCall, RecordRef, Turn

__all__ = ["Attribution", "ConversationReport", "TurnColumns", "TurnReport", "explain_row",
           "row_dicts"]

# Keys of a turn in traceview.report/1, in contract order.
CONTRACT_KEYS = (
    "index", "line", "conversation", "api", "status", "user_text", "request_bytes",
    "owned_state_bytes", "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens",
    "elapsed_ms", "expected_input", "unexplained_tokens", "tools_offered", "hosted_calls",
    "markers", "cost_usd",
)
EXTRA_KEYS: tuple[str, ...] = (
    "source", "conversation_key", "model", "response_id", "previous_response_id",
    "user_words", "cumulative_input_tokens", "new_input_estimate", "input_account",
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
    # issue #34: time as the caller saw it, the stream as evidence (analysis/timing.py)
    "timing",
    # issue 33: who the turn was for
    "attributed_to",
    "lineage",  # issue #35: citations, retrieval, choices and settings (analysis/lineage.py)
)
ROW_KEYS = (*CONTRACT_KEYS, *EXTRA_KEYS)


def _reader(skip: set[str]) -> tuple[tuple[str, ...], attrgetter[Any]]:
    """The row's keys but `skip`, and one getter of those properties, in order."""
    keys = tuple(k for k in ROW_KEYS if k not in skip)
    return keys, attrgetter(*keys)


# What a row reads: every property but the prose (made apart), or for a table
# (`whole=False`) not the accounts no cell reads either.
_WHOLE = _reader({"explanation", "findings"})
_TABLE = _reader({"explanation", "findings", "cost", "carried_context", "ts", "timing",
                  "attributed_to"})
# The seconds datetime can name: 0001-01-01T00:00:00Z up to the end of 9999-12-31.
_FIRST_SECOND, _PAST_LAST_SECOND = -62_135_596_800, 253_402_300_800


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


_UNREAD = object()  # a side not read yet (None is a side the turn lacks)


def _of_request(name: str, default: Any = None, convert: Any = None) -> property:
    """A request fact as the report gives it (`default` when the turn has no request)."""
    def get(self: TurnReport) -> Any:
        req = self._req
        if req is _UNREAD:
            req = self.req
        v = getattr(req, name) if req is not None else default
        return convert(v) if convert is not None else v

    return property(get)


def _of_response(name: str, default: Any = None, convert: Any = None) -> property:
    """A response fact as the report gives it (`default` when the turn has no response)."""
    def get(self: TurnReport) -> Any:
        res = self._res
        if res is _UNREAD:
            res = self.res
        v = getattr(res, name) if res is not None else default
        return convert(v) if convert is not None else v

    return property(get)


def _request_extra(key: str, convert: Any) -> property:
    """A rarely set request fact (kept in the row's `extra`), converted for the report."""
    def get(self: TurnReport) -> Any:
        x = self.req.extra if self.req is not None else None
        return convert(x.get(key, ()) if x else ())

    return property(get)


def _response_extra(key: str, convert: Any = None) -> property:
    """A rarely set response fact (kept in the row's `extra`); None, or `convert` of an
    empty tuple, when unset."""
    def get(self: TurnReport) -> Any:
        x = self.res.extra if self.res is not None else None
        if convert is None:
            return x.get(key) if x else None
        return convert(x.get(key, ()) if x else ())

    return property(get)


class TurnReport:
    """One analysed turn: a view of a row of the analysis's columns (TurnColumns), made
    when read. Two references, no per-turn object held: every value is read from the
    turn's facts or from the analysis's columns at the turn's row, and what is set on a
    report (markers, context, the provider copy) is written there. Two views of one row
    are equal (and hash alike)."""

    # `_turn`, `_req`, `_res`, `_calls`, `_price`: the Turn view, its sides' views, the
    # hosted calls and the price, made on first read and kept while this view lives (a
    # row reads each many times).
    __slots__ = ("_cols", "_r", "_turn", "_req", "_res", "_calls", "_price")

    def __init__(self, columns: TurnColumns, row: int) -> None:
        self._cols = columns
        self._r = row
        self._turn: Turn | None = None
        self._req: Any = _UNREAD
        self._res: Any = _UNREAD
        self._calls: tuple[HostedCall, ...] | None = None
        self._price: Cost | None = None

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
            t = self._turn = turn_view(self._cols.table, self._r)
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
        cols = self._cols
        carry = cols.carried.get(self._r) if cols.carried else None
        if carry is None and cols.ledger is not None:
            carry = cols.ledger.carry(self.conversation_key, self.index)
        return carry

    @carried.setter
    def carried(self, carry: TurnCarry | None) -> None:
        if carry is None:
            self._cols.carried.pop(self._r, None)
        else:
            self._cols.carried[self._r] = carry

    lineage = property(lambda self: lineage_dict(self.req, self.res,
                                                 self._cols.lineage.get(self._r)),
                       doc="The turn's evidence lineage (analysis/lineage.py); None: none.")

    @property
    def columns(self) -> TurnColumns:
        """The analysis's columns this turn's own numbers are kept in."""
        return self._cols

    def __repr__(self) -> str:
        return f"TurnReport(index={self.index}, markers={self.markers})"

    @property
    def index(self) -> int:
        return int(self._cols.table.index[self._r])

    # ---- from the turn itself --------------------------------------------------------------
    @property
    def line(self) -> int:
        return self.turn.line

    @property
    def api(self) -> str:
        return self.turn.api

    @property
    def conversation(self) -> str | None:
        """The request's conversation id, else the response's."""
        req, res = self.req, self.res
        cid = req.conversation_id if req is not None else None
        return cid or (res.conversation_id if res is not None else None)

    @property
    def model(self) -> str | None:
        """The response's model, else the request's."""
        req, res = self.req, self.res
        model = res.model if res is not None else None
        return model or (req.model if req is not None else None)

    @property
    def request_ref(self) -> RecordRef | None:
        return self.turn.request

    @property
    def response_ref(self) -> RecordRef | None:
        return self.turn.response

    @property
    def notes(self) -> list[str]:
        return list(self.turn.notes)

    # ---- from the request (None, or empty, when the turn has no request) ----------------
    @property
    def req(self) -> Any:
        """The request's facts (a view of its row; kept while this report lives)."""
        if self._req is _UNREAD:
            self._req = self.turn.req
        return self._req

    @property
    def user_text(self) -> str | None:
        req = self.req
        text = req.user_text if req is not None else None
        if text is not None and len(text) >= USER_TEXT_MAX:
            return f"{text}…"  # cut at read time; the full text is in the request body
        return text

    previous_response_id = _of_request("previous_response_id")
    user_words = _of_request("user_words")
    request_bytes = _of_request("request_bytes")
    new_input_estimate = _of_request("new_input_tokens")
    include_sent = _of_request("include", ())
    tools_offered = _of_request("tools_offered", (), list)
    media_input = _request_extra("media", list)  # non-text input, estimated tokens (null: unknown)

    # ---- from the response ("unknown", None or empty when the turn has no response) -------
    @property
    def res(self) -> Any:
        """The response's facts (a view of its row; kept while this report lives)."""
        if self._res is _UNREAD:
            self._res = self.turn.res
        return self._res

    response_id = _of_response("response_id")
    status = _of_response("status", "unknown")
    input_tokens = _of_response("input_tokens")
    cached_tokens = _of_response("cached_tokens")
    output_tokens = _of_response("output_tokens")
    reasoning_tokens = _of_response("reasoning_tokens")
    elapsed_ms = _of_response("elapsed_ms")
    incomplete_reason = _of_response("incomplete_reason")
    error = _of_response("error")
    error_code = _of_response("error_code")
    http_status = _of_response("http_status")
    stream_events = _of_response("stream_events")
    service_tier = _of_response("service_tier")
    system_fingerprint = _of_response("fingerprint")

    @property
    def calls(self) -> tuple[HostedCall, ...]:
        """The response's hosted calls (made once while this report lives)."""
        if self._calls is None:
            self._calls = self.res.hosted_calls if self.res is not None else ()
        return self._calls

    @property
    def hosted_calls(self) -> list[dict[str, Any]]:
        return [c.to_dict() for c in self.calls]

    request_id = _response_extra("request_id")
    processing_ms = _response_extra("processing_ms")
    finish_reasons = _response_extra("finish_reasons", list)
    unknown_items = _response_extra(
        "unknown_items", lambda items: [{"index": i, "type": t} for i, t in items])
    # Output items that hand the next step to the application.
    action_items = _response_extra(
        "actions", lambda items: [{"type": t, "call_id": c, "name": n, "id": i}
                                  for t, c, n, i in items])

    @property
    def started_ms(self) -> int | None:
        """The start in ms since the epoch; None when unknown, or when no calendar holds it
        (a damaged capture's year 11476: `ts` is null then, and so is every export's)."""
        s = self.res.started_at if self.res is not None else None
        if s is None or not _FIRST_SECOND <= s < _PAST_LAST_SECOND:  # NaN too
            return None
        return s * 1000  # type: ignore[no-any-return]

    @property
    def ts(self) -> str | None:
        """When the turn started, ISO 8601 UTC (the response's `created_at`, else the
        recorder's `ts` less the elapsed time); null when the capture does not say."""
        s = self.res.started_at if self.res is not None else None
        if s is None or not _FIRST_SECOND <= s < _PAST_LAST_SECOND:  # NaN too
            return None
        return _iso_utc(s)

    @property
    def attempts(self) -> list[dict[str, Any]]:
        """Every try of this turn in order: the failed ones retried, then the final one."""
        if not self.turn.attempts:
            return []
        final = {"line": self.line, "status": self.status, "http_status": self.http_status,
                 "error": self.error, "error_code": self.error_code,
                 "elapsed_ms": self.elapsed_ms, "limits": response_limits(self.res)}
        return [*(a.to_dict() for a in self.turn.attempts), final]

    @property
    def caller_elapsed_ms(self) -> int | None:
        """What the caller waited: the final attempt plus every failed attempt before it
        (those with a recorded elapsed time)."""
        own: int | None = self.elapsed_ms
        if own is None or not self.turn.attempts:
            return own
        return own + sum(a.elapsed_ms or 0 for a in self.turn.attempts)

    # Time to first token, caller latency with backoff, stream evidence… (analysis/timing.py)
    timing = property(timing_of)

    @property
    def store(self) -> bool | None:
        """The request's `store`, else the response's echo of it; None when neither says."""
        req, res = self.req, self.res
        s = req.store if req is not None else None
        if s is None and res is not None:
            s = res.store
        return s

    @property
    def input_account(self) -> list[dict[str, Any]] | None:
        """The turn's billed input itemised (rules/account.py): [{component, name, tokens,
        basis, source_turn, reason}, …]; None when the request could not be read."""
        found = self._cols.account(self._r)
        if found is None:
            return None
        lines, source = found
        req = self.req
        handle = (req.previous_response_id or req.conversation_id) if req is not None else None
        return report_lines(lines, handle, self.expected_input, source)

    @property
    def expected_input_unknown(self) -> str | None:
        """Why expected_input is null although the previous turn's usage is known."""
        return self.context.get("expected_unknown") if self.context else None

    @property
    def model_passes(self) -> int:
        """Model passes the output shows (1 + hosted calls the model continued after)."""
        return model_passes(self.res.output_types) if self.calls else 1

    @property
    def provider_counters(self) -> list[dict[str, Any]]:
        return list(self.context.get("counters", ())) if self.context else []

    @property
    def analysis_context(self) -> dict[str, Any]:
        """Rare analysis findings behind the markers and the account (see README)."""
        return dict(self.context) if self.context else {}

    # ---- derived (not stored: a gigabyte capture holds a hundred thousand of these) ----
    @property
    def unexplained_tokens(self) -> int | None:
        """Billed input minus expected input: positive is a deposit, negative compaction."""
        inp = self.input_tokens
        return None if inp is None or self.expected_input is None else inp - self.expected_input

    def _cost(self) -> Cost:
        if self._price is not None:
            return self._price
        res = self.res
        pricing = self._cols.pricing
        if pricing is None:
            cost = Cost(None, None, 0.0, "not priced")
        else:
            cost = price_sides(pricing, self.model, self.req, res, self.calls)
        self._price = cost
        return cost

    @property
    def cost_hosted_usd(self) -> float:
        return self._cost().hosted_usd

    @property
    def priced(self) -> Cost:
        """The whole price: its lines (`parts`) and the tier they were priced at."""
        return self._cost()

    @property
    def turn_attribution(self) -> TurnAttribution:
        """Who the turn was for (analysis/cost/attribution.py)."""
        req = self.req
        return attribution(req.extra if req is not None else None,
                           self._cols.conversation_metadata.get(self.conversation or ""))

    @property
    def cost_reason(self) -> str | None:
        return self._cost().reason

    @property
    def cost_usd(self) -> float | None:
        c = self._cost()
        return None if c.tokens_usd is None else round(c.tokens_usd + c.hosted_usd, 6)

    @property
    def attributed_to(self) -> dict[str, Any]:
        """The report's form of `turn_attribution`."""
        return self.turn_attribution.to_dict()

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
        """The turn's row: every key of CONTRACT_KEYS then EXTRA_KEYS, each the property of
        that name. `explained=False`: the explanation and findings left None, the view kept
        under "_view" for `explain_row`; `whole=False` as well: the accounts no table cell
        reads ("cost", "carried_context", "ts", "timing") left None, for the text report."""
        keys, read = _WHOLE if whole or explained else _TABLE
        d = dict.fromkeys(ROW_KEYS)  # every key, in order; then the values read
        d.update(zip(keys, read(self), strict=True))
        if explained:
            d["explanation"], d["findings"] = explain_and_findings(_RowRead(d, self))
        else:
            d["_view"] = self
        return d



_DAYS: dict[int, str] = {}  # "YYYY-MM-DDT" by day since the epoch (a capture spans a few)


def _iso_utc(seconds: float) -> str | None:
    """ISO 8601 UTC of a start in seconds since the epoch; None past what a calendar
    holds. Whole seconds (what captures hold) are written from their day's date, made
    once per day, and the time of day."""
    try:
        if type(seconds) is int:
            day, sec = divmod(seconds, 86400)
            date = _DAYS.get(day)
            if date is None:
                date = datetime.fromtimestamp(day * 86400, tz=UTC).strftime("%Y-%m-%dT")
                if len(_DAYS) < 4096:
                    _DAYS[day] = date
            return f"{date}{sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}Z"
        stamp = datetime.fromtimestamp(seconds * 1000 / 1000, tz=UTC)
    except (OverflowError, ValueError, OSError):  # past year 9999: no calendar time
        return None
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")

def row_dicts(reports: Iterable[TurnReport], explained: bool = True,
              whole: bool = True) -> Iterator[dict[str, Any]]:
    """`report.row(explained, whole=whole)` of each report, in order (anything else than
    a TurnReport gives its `to_dict()`)."""
    for rep in reports:
        yield rep.row(explained, whole=whole) if type(rep) is TurnReport else rep.to_dict()


def explain_row(d: dict[str, Any]) -> list[str]:
    """The explanation of a row made with `row(explained=False)`."""
    return explain(_RowRead(d, d["_view"]))


class _RowRead:
    """A turn's row read as attributes, for `explain` (which reads a TurnReport alike):
    the row's values are its __dict__ (read, not copied), anything else the report's,
    read once (the carried context is looked up in the ledger)."""

    __slots__ = ("__dict__", "_report", "_more")

    def __init__(self, row: dict[str, Any], report: TurnReport) -> None:
        self.__dict__ = row
        self._report = report
        self._more: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        more = self._more
        if name not in more:
            more[name] = getattr(self._report, name)
        return more[name]
