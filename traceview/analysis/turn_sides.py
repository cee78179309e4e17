"""A turn's two sides as the report gives them: the facts of the turn, its request and its
response, each read from the turn table's row when asked ("unknown", None or empty when
the turn lacks that side).

Apart from TurnReport (turn_report.py), which adds what the analysis found of the turn:
these properties read the capture alone, those read the analysis's columns.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from traceview.analysis.timing import response_limits
from traceview.analysis.turn_columns import TurnColumns, turn_view
from traceview.capture.facts import USER_TEXT_MAX
from traceview.capture.model import HostedCall, RecordRef, Turn

UNREAD = object()  # a side not read yet (None is a side the turn lacks)

# The seconds datetime can name: 0001-01-01T00:00:00Z up to the end of 9999-12-31.
FIRST_SECOND, PAST_LAST_SECOND = -62_135_596_800, 253_402_300_800


def of_request(name: str, default: Any = None, convert: Any = None) -> property:
    """A request fact as the report gives it (`default` when the turn has no request)."""
    def get(self: TurnSides) -> Any:
        req = self._req
        if req is UNREAD:
            req = self.req
        v = getattr(req, name) if req is not None else default
        return convert(v) if convert is not None else v

    return property(get)


def of_response(name: str, default: Any = None, convert: Any = None) -> property:
    """A response fact as the report gives it (`default` when the turn has no response)."""
    def get(self: TurnSides) -> Any:
        res = self._res
        if res is UNREAD:
            res = self.res
        v = getattr(res, name) if res is not None else default
        return convert(v) if convert is not None else v

    return property(get)


def request_extra(key: str, convert: Any) -> property:
    """A rarely set request fact (kept in the row's `extra`), converted for the report."""
    def get(self: TurnSides) -> Any:
        x = self.req.extra if self.req is not None else None
        return convert(x.get(key, ()) if x else ())

    return property(get)


def response_extra(key: str, convert: Any = None) -> property:
    """A rarely set response fact (kept in the row's `extra`); None, or `convert` of an
    empty tuple, when unset."""
    def get(self: TurnSides) -> Any:
        x = self.res.extra if self.res is not None else None
        if convert is None:
            return x.get(key) if x else None
        return convert(x.get(key, ()) if x else ())

    return property(get)


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
        if self._req is UNREAD:
            self._req = self.turn.req
        return self._req

    @property
    def user_text(self) -> str | None:
        req = self.req
        text = req.user_text if req is not None else None
        if text is not None and len(text) >= USER_TEXT_MAX:
            return f"{text}…"  # cut at read time; the full text is in the request body
        return text

    previous_response_id = of_request("previous_response_id")
    user_words = of_request("user_words")
    request_bytes = of_request("request_bytes")
    new_input_estimate = of_request("new_input_tokens")
    include_sent = of_request("include", ())
    tools_offered = of_request("tools_offered", (), list)
    media_input = request_extra("media", list)  # non-text input, estimated tokens (null: unknown)

    # ---- from the response ("unknown", None or empty when the turn has no response) -------
    @property
    def res(self) -> Any:
        """The response's facts (a view of its row; kept while this report lives)."""
        if self._res is UNREAD:
            self._res = self.turn.res
        return self._res

    response_id = of_response("response_id")
    status = of_response("status", "unknown")
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
    system_fingerprint = of_response("fingerprint")

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
    finish_reasons = response_extra("finish_reasons", list)
    unknown_items = response_extra(
        "unknown_items", lambda items: [{"index": i, "type": t} for i, t in items])
    # Output items that hand the next step to the application.
    action_items = response_extra(
        "actions", lambda items: [{"type": t, "call_id": c, "name": n, "id": i}
                                  for t, c, n, i in items])

    @property
    def started_ms(self) -> int | None:
        """The start in ms since the epoch; None when unknown, or when no calendar holds it
        (a damaged capture's year 11476: `ts` is null then, and so is every export's)."""
        s = self.res.started_at if self.res is not None else None
        if s is None or not FIRST_SECOND <= s < PAST_LAST_SECOND:  # NaN too
            return None
        return s * 1000  # type: ignore[no-any-return]

    @property
    def ts(self) -> str | None:
        """When the turn started, ISO 8601 UTC (the response's `created_at`, else the
        recorder's `ts` less the elapsed time); null when the capture does not say."""
        s = self.res.started_at if self.res is not None else None
        if s is None or not FIRST_SECOND <= s < PAST_LAST_SECOND:  # NaN too
            return None
        return iso_utc(s)

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

    @property
    def store(self) -> bool | None:
        """The request's `store`, else the response's echo of it; None when neither says."""
        req, res = self.req, self.res
        s = req.store if req is not None else None
        if s is None and res is not None:
            s = res.store
        return s


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
            return f"{date}{sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}Z"
        stamp = datetime.fromtimestamp(seconds * 1000 / 1000, tz=UTC)
    except (OverflowError, ValueError, OSError):  # past year 9999: no calendar time
        return None
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
