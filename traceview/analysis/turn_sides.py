"""A turn's two sides as the report gives them: the facts of the turn, its request and its
response, each read from the turn table's row when asked ("unknown", None or empty when
the turn lacks that side).

Apart from TurnReport (turn_report.py), which adds what the analysis found of the turn:
these properties read the capture alone, those read the analysis's columns. What a side's
row key reads (FROM_REQUEST, …) and how a value is made of it (`shown_user_text`, …) are
declared here once, for these properties and for the batch row builder (turn_rows.py).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from traceview.analysis.hosted.retention import TWO_DIGITS
from traceview.analysis.timing import response_limits
from traceview.analysis.turn_columns import TurnColumns, turn_view
from traceview.capture.model import Attempt, HostedCall, RecordRef, Turn
from traceview.capture.user_side import USER_TEXT_MAX

UNREAD = object()  # a side not read yet (None is a side the turn lacks)

# The seconds datetime can name: 0001-01-01T00:00:00Z up to the end of 9999-12-31.
FIRST_SECOND, PAST_LAST_SECOND = -62_135_596_800, 253_402_300_800


# The row keys read straight from one side's facts: key -> (the fact, the value when the
# turn lacks that side, a conversion or None). Declared once for both ways a row is read:
# a TurnSides property (one turn) and turn_rows.py (a batch of turns, a column at a time).
FROM_REQUEST: dict[str, tuple[str, Any, Any]] = {
    "previous_response_id": ("previous_response_id", None, None),
    "user_words": ("user_words", None, None),
    "request_bytes": ("request_bytes", None, None),
    "new_input_estimate": ("new_input_tokens", None, None),
    "include_sent": ("include", (), None),
    "tools_offered": ("tools_offered", (), list),
}
FROM_RESPONSE: dict[str, tuple[str, Any, Any]] = {
    "response_id": ("response_id", None, None),
    "status": ("status", "unknown", None),
    **{name: (name, None, None) for name in (
        "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens", "elapsed_ms",
        "incomplete_reason", "error", "error_code", "http_status", "stream_events",
        "service_tier")},
    "system_fingerprint": ("fingerprint", None, None),
}


def unknown_items(items: Any) -> list[dict[str, Any]]:
    return [{"index": i, "type": t} for i, t in items]


def action_items(items: Any) -> list[dict[str, Any]]:
    """Output items that hand the next step to the application."""
    return [{"type": t, "call_id": c, "name": n, "id": i} for t, c, n, i in items]


# The row keys read from a side's rarely set facts (its row's `extra`): key -> (the extra
# key, a conversion of its value, () when unset; None: the value itself, None when unset).
REQUEST_EXTRA: dict[str, tuple[str, Any]] = {
    "media_input": ("media", list),  # non-text input, estimated tokens (null: unknown)
}
RESPONSE_EXTRA: dict[str, tuple[str, Any]] = {
    "request_id": ("request_id", None),
    "processing_ms": ("processing_ms", None),
    "finish_reasons": ("finish_reasons", list),
    "unknown_items": ("unknown_items", unknown_items),
    "action_items": ("actions", action_items),
}


def extra_value(extra: dict[str, Any] | None, key: str, convert: Any) -> Any:
    """A rarely set fact as the report gives it (see REQUEST_EXTRA)."""
    if convert is None:
        return extra.get(key) if extra else None
    return convert(extra.get(key, ()) if extra else ())


def of_request(key: str) -> property:
    """Row key `key` of FROM_REQUEST, read from the turn's request."""
    name, default, convert = FROM_REQUEST[key]

    def get(self: TurnSides) -> Any:
        req = self._req
        if req is UNREAD:
            req = self.req
        v = getattr(req, name) if req is not None else default
        return convert(v) if convert is not None else v

    return property(get)


def of_response(key: str) -> property:
    """Row key `key` of FROM_RESPONSE, read from the turn's response."""
    name, default, convert = FROM_RESPONSE[key]

    def get(self: TurnSides) -> Any:
        res = self._res
        if res is UNREAD:
            res = self.res
        v = getattr(res, name) if res is not None else default
        return convert(v) if convert is not None else v

    return property(get)


def request_extra(key: str) -> property:
    """Row key `key` of REQUEST_EXTRA, read from the request's `extra`."""
    name, convert = REQUEST_EXTRA[key]

    def get(self: TurnSides) -> Any:
        return extra_value(self.req.extra if self.req is not None else None, name, convert)

    return property(get)


def response_extra(key: str) -> property:
    """Row key `key` of RESPONSE_EXTRA, read from the response's `extra`."""
    name, convert = RESPONSE_EXTRA[key]

    def get(self: TurnSides) -> Any:
        return extra_value(self.res.extra if self.res is not None else None, name, convert)

    return property(get)


def conversation_of(req_id: str | None, res_id: str | None) -> str | None:
    """A turn's conversation id: its request's, else its response's."""
    return req_id or res_id


def model_of(res_model: str | None, req_model: str | None) -> str | None:
    """A turn's model: its response's, else its request's."""
    return res_model or req_model


def store_of(req_store: bool | None, res_store: bool | None) -> bool | None:
    """The request's `store`, else the response's echo of it; None when neither says."""
    return res_store if req_store is None else req_store


def shown_user_text(text: str | None) -> str | None:
    """The user text as the report gives it: cut at USER_TEXT_MAX, the cut marked "…"
    (the full text is in the request body)."""
    if text is not None and len(text) >= USER_TEXT_MAX:
        return f"{text}…"
    return text


def calendar_seconds(started_at: Any) -> Any:
    """A start in seconds since the epoch, or None when unknown or when no calendar holds
    it (a damaged capture's year 11476: `ts` is null then, and so is every export's)."""
    if started_at is None or not FIRST_SECOND <= started_at < PAST_LAST_SECOND:  # NaN too
        return None
    return started_at


def started_ms_of(started_at: Any) -> int | None:
    """A turn's start in ms since the epoch, or None (see calendar_seconds)."""
    s = calendar_seconds(started_at)
    return None if s is None else s * 1000


def ts_of(started_at: Any) -> str | None:
    """A turn's `ts`: its start as ISO 8601 UTC, or None (see calendar_seconds)."""
    s = calendar_seconds(started_at)
    return None if s is None else iso_utc(s)


def caller_elapsed(own: int | None, attempts: tuple[Attempt, ...]) -> int | None:
    """What the caller waited: the final attempt plus every failed attempt before it
    (those with a recorded elapsed time)."""
    if own is None or not attempts:
        return own
    return own + sum(a.elapsed_ms or 0 for a in attempts)


def attempts_of(attempts: tuple[Attempt, ...], final: Callable[[], dict[str, Any]]
                ) -> list[dict[str, Any]]:
    """Every try of a turn in order: the failed ones retried, then the final one (`final`
    makes its dict: only a turn with attempts needs it)."""
    if not attempts:
        return []
    return [*(a.to_dict() for a in attempts), final()]


class TurnSides:
    """The properties of a TurnReport that read the turn's facts, its request and its
    response only. `_cols` and `_r` are the turn's row; `_turn`, `_req`, `_res`, `_calls`
    the Turn view, its sides' views and the hosted calls, made on first read and kept
    while the view lives (a row reads each many times). TurnReport sets them all."""

    __slots__ = ("_cols", "_r", "_turn", "_req", "_res", "_calls")
    _cols: TurnColumns
    _r: int
    _turn: Turn | None
    _req: Any
    _res: Any
    _calls: tuple[HostedCall, ...] | None

    @property
    def turn(self) -> Turn:
        """The turn's facts: a view of its row of the capture's turn table."""
        t = self._turn
        if t is None:
            t = self._turn = turn_view(self._cols.table, self._r)
        return t

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
        return conversation_of(req.conversation_id if req is not None else None,
                               res.conversation_id if res is not None else None)

    @property
    def model(self) -> str | None:
        """The response's model, else the request's."""
        req, res = self.req, self.res
        return model_of(res.model if res is not None else None,
                        req.model if req is not None else None)

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
        if self._req is UNREAD:
            self._req = self.turn.req
        return self._req

    @property
    def user_text(self) -> str | None:
        req = self.req
        return shown_user_text(req.user_text if req is not None else None)

    previous_response_id = of_request("previous_response_id")
    user_words = of_request("user_words")
    request_bytes = of_request("request_bytes")
    new_input_estimate = of_request("new_input_estimate")
    include_sent = of_request("include_sent")
    tools_offered = of_request("tools_offered")
    media_input = request_extra("media_input")

    # ---- from the response ("unknown", None or empty when the turn has no response) -------
    @property
    def res(self) -> Any:
        """The response's facts (a view of its row; kept while this report lives)."""
        if self._res is UNREAD:
            self._res = self.turn.res
        return self._res

    response_id = of_response("response_id")
    status = of_response("status")
    input_tokens = of_response("input_tokens")
    cached_tokens = of_response("cached_tokens")
    output_tokens = of_response("output_tokens")
    reasoning_tokens = of_response("reasoning_tokens")
    elapsed_ms = of_response("elapsed_ms")
    incomplete_reason = of_response("incomplete_reason")
    error = of_response("error")
    error_code = of_response("error_code")
    http_status = of_response("http_status")
    stream_events = of_response("stream_events")
    service_tier = of_response("service_tier")
    system_fingerprint = of_response("system_fingerprint")

    @property
    def calls(self) -> tuple[HostedCall, ...]:
        """The response's hosted calls (made once while this report lives)."""
        if self._calls is None:
            self._calls = self.res.hosted_calls if self.res is not None else ()
        return self._calls

    @property
    def hosted_calls(self) -> list[dict[str, Any]]:
        return [c.to_dict() for c in self.calls]

    request_id = response_extra("request_id")
    processing_ms = response_extra("processing_ms")
    finish_reasons = response_extra("finish_reasons")
    unknown_items = response_extra("unknown_items")
    action_items = response_extra("action_items")  # they hand the next step to the caller

    @property
    def started_ms(self) -> int | None:
        """The start in ms since the epoch; None when unknown, or when no calendar holds it
        (a damaged capture's year 11476: `ts` is null then, and so is every export's)."""
        return started_ms_of(self.res.started_at if self.res is not None else None)

    @property
    def ts(self) -> str | None:
        """When the turn started, ISO 8601 UTC (the response's `created_at`, else the
        recorder's `ts` less the elapsed time); null when the capture does not say."""
        return ts_of(self.res.started_at if self.res is not None else None)

    @property
    def attempts(self) -> list[dict[str, Any]]:
        """Every try of this turn in order: the failed ones retried, then the final one."""
        return attempts_of(self.turn.attempts, lambda: {
            "line": self.line, "status": self.status, "http_status": self.http_status,
            "error": self.error, "error_code": self.error_code, "elapsed_ms": self.elapsed_ms,
            "limits": response_limits(self.res)})

    @property
    def caller_elapsed_ms(self) -> int | None:
        """What the caller waited: the final attempt plus every failed attempt before it
        (those with a recorded elapsed time)."""
        return caller_elapsed(self.elapsed_ms, self.turn.attempts)

    @property
    def store(self) -> bool | None:
        """The request's `store`, else the response's echo of it; None when neither says."""
        req, res = self.req, self.res
        return store_of(req.store if req is not None else None,
                        res.store if res is not None else None)


_DAYS: dict[int, str] = {}  # "YYYY-MM-DDT" by day since the epoch (a capture spans a few)


def iso_utc(seconds: float) -> str | None:
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
            two = TWO_DIGITS
            return f"{date}{two[sec // 3600]}:{two[sec // 60 % 60]}:{two[sec % 60]}Z"
        stamp = datetime.fromtimestamp(seconds * 1000 / 1000, tz=UTC)
    except (OverflowError, ValueError, OSError):  # past year 9999: no calendar time
        return None
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
