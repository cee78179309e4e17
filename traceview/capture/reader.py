"""Pair records into turns and exchanges, one line at a time.

The builder is fed lines in file order and never looks back at a body: each record is
parsed once, reduced to facts, and dropped. Pairing uses the recorder's explicit link
(`id`) when records carry one, else file order (a request waits for the next response).
Finished turns are queued so a caller can show them while the rest is still read.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from traceview.capture.attempts import attempt_of, lazy_input, retries
from traceview.capture.background import polled_response
from traceview.capture.endpoints import api_from_response, ids_in_path
from traceview.capture.line_stream import LineStream
from traceview.capture.lines import Line, Pre, internal_error, line_facts, response_pre
from traceview.capture.model import (
    Exchange,
    Problem,
    RecordRef,
    ResponseFacts,
    Turn,
    Turns,
    new_turn,
)
from traceview.capture.origin import imported
from traceview.capture.response_facts import response_facts
from traceview.capture.side_columns import ResponseSide, flag_bit
from traceview.capture.table import Facts, TurnTable
from traceview.wire import NON_TERMINAL

_STREAM_CUT = flag_bit(ResponseSide, "stream_cut")
# Parses the record at (offset, length) of the line's source again.
Reread = Callable[[int, int], dict[str, Any]]
# Where a line's record is: (source, offset, length, line), a RecordRef's fields. A plain
# tuple on the way through the pairing (two a turn); a RecordRef is made where one is kept
# (an exchange's records, a stream's lines).
Where = tuple[int, int, int, int]


class CaptureBuilder:
    """Incremental pairing state for one capture (any number of sources)."""

    def __init__(self, source_names: list[str]) -> None:
        self.source_names = source_names
        self.table = TurnTable()  # every turn's facts, in columns (capture/table.py)
        # Where the rows of the chunk being fed start in the table's sides: a worker's lines
        # name their facts by row in the chunk's own columns (see `take`).
        self._req_base = self._res_base = 0
        self.turns = Turns(self.table)  # views made when read (capture/model.py)
        self.exchanges: list[Exchange] = []
        self.problems: list[Problem] = []
        self.finished: deque[Turn] = deque()
        self.new_problems: deque[Problem] = deque()
        self._said: set[tuple[int, str]] = set()  # problems said once per file
        self._pending: Turn | Exchange | None = None
        # Link id -> requests waiting for their response, oldest first: a reused id (two
        # recorders with counters) pairs in file order and is a problem, never a lost turn.
        self._linked: dict[str, deque[Turn | Exchange]] = {}
        self._polling: dict[str, Turn] = {}
        self._stream: LineStream | None = None  # events written one per line
        self._ended: LineStream | None = None  # the last closed (LineStream.repeats)
        # Retries: the input of the latest request (a reference to its parsed body, one at a
        # time), and a failed turn held back until the next request shows whether it is a
        # retry of it (then an attempt of that turn) or not (then a turn of its own).
        # (turn, api, pre, reread, where)
        self._last_input: tuple[Any, ...] | None = None
        self._failed: tuple[Turn, Any] | None = None

    # ---- problems -------------------------------------------------------------------
    def problem(self, source: int, line: int, kind: str, message: str) -> None:
        if kind == "foreign_traffic":  # one problem per file and provider, at its first line
            if (source, message) in self._said:
                return
            self._said.add((source, message))
        p = Problem(self.source_names[source], line, kind, message)
        self.problems.append(p)
        self.new_problems.append(p)

    # ---- one line ---------------------------------------------------------------------
    def take(self, facts: Facts) -> None:
        """Append a worker's chunk of facts (capture/parallel.py) to the table, before its
        lines are fed: their facts are row numbers in that chunk."""
        self._req_base = self.table.requests.extend(facts.requests)
        self._res_base = self.table.responses.extend(facts.responses)

    def feed(self, source: int, line: int, offset: int, raw: bytes, ended: bool) -> None:
        self.feed_pre(source, line, offset, len(raw) - 1 if ended else len(raw),
                      line_facts(raw, ended, keep=True))

    def feed_pre(self, source: int, line: int, offset: int, n: int, pre: Pre,
                 reread: Reread | None = None) -> None:
        """Pair one line from what `line_facts` made of it (here or in a worker process).

        `reread(offset, n)` parses the line again from the file, for the few records whose
        body the pairing needs after all (exchanges, retries, stream events): a worker does
        not send bodies back, and no closure is made per line for the few. In one process
        the parsed record rides in `pre` instead."""
        if pre is None:
            return
        kind = pre[0]
        if kind == "problem":
            self.problem(source, line, pre[1], pre[2])
            return
        where = (source, offset, n, line)
        try:
            # The record itself is read (`_obj`) only by the few paths that need it.
            if kind == "req":
                if self._stream is not None:
                    self._close_stream()
                self._ended = None
                self._request(pre, where, reread)
            elif kind == "res":
                if self._stream is not None:
                    self._close_stream()
                self._ended = None
                self._response(pre, where, reread)
            else:  # "other": stream events, bare response bodies, unknown records
                obj = pre[1] if pre[1] is not None else reread(offset, n) if reread else {}
                self._other(obj, RecordRef(*where))
        except (TypeError, ValueError, AttributeError, KeyError, IndexError,
                RecursionError) as exc:
            # A shape nothing anticipated: a problem on its line, never a traceback. The
            # structure fuzz (tests/hostile) asserts this never happens for known shapes.
            self.problem(source, line, "internal_error", internal_error(exc))

    def _other(self, obj: dict[str, Any], ref: RecordRef) -> None:
        if isinstance(obj.get("type"), str) and "sequence_number" in obj:
            self._stream_event(obj, ref)
        elif api_from_response(obj) is not None:
            # A bare response body per line (a log of resp.model_dump()).
            self._close_stream()
            self._response(response_pre({"dir": "res", "body": obj}, True), ref, None)
        else:
            keys = ", ".join(list(obj)[:5]) or "none"
            self.problem(ref.source, ref.line, "unknown_record",
                         f"not a capture record (keys: {keys}); expected "
                         '{"dir": "req"|"res", "body": {...}}; kept, not shown as a turn')

    # ---- requests ---------------------------------------------------------------------
    def _request(self, pre: Line, where: Where, reread: Reread | None) -> None:
        if pre[1]:
            return  # the request was never recorded; its response will stand alone
        source, _, _, line = where
        link, api, no_api = pre[2], pre[6], pre[7]
        if no_api:
            self.problem(source, line, "unknown_record",
                         "request record without an endpoint whose body is not a "
                         "Responses or Chat Completions request; kept as an exchange")
        if link is None and self._pending is not None:
            self._finish_unanswered(self._pending)
            self._pending = None
        if api is not None:
            turns = self.turns
            retry_of = None if self._failed is None else \
                self._retry_of(api, _obj(pre, reread, where), source)
            index = retry_of.index if retry_of is not None else (
                turns.n if turns.rows is None else len(turns.rows)) + 1  # len(turns) + 1
            turn = self._new_turn(index, api, where, pre)
            if pre[9]:  # the body is a JSON object
                if pre[10] is not None:  # an importer's origin
                    imported(turn, pre[10])
                self._last_input = (turn, api, pre, reread, where)
            else:
                self.problem(source, line, "unknown_record",
                             "request body is not a JSON object; its numbers are unknown")
                self._last_input = None
            if retry_of is not None:
                turn.attempts = (*retry_of.attempts, attempt_of(retry_of))
                turns[-1] = turn
            else:
                turns.append(turn)
            rec: Turn | Exchange = turn
        else:
            method, path, query = pre[3:6]
            conv, rid = ids_in_path(path)
            rec = Exchange(len(self.exchanges) + 1, source, line, method, path, query,
                           request=RecordRef(*where), conversation_id=conv, response_id=rid)
            self.exchanges.append(rec)
        if link is not None:  # held only until the response arrives, not per turn
            waiting = self._linked.setdefault(link, deque())
            if waiting:
                self.problem(source, line, "duplicate_link",
                             f"link id {link!r} is already used by an unanswered request "
                             f"(line {waiting[-1].line}); responses are paired in file order")
            waiting.append(rec)
        else:
            self._pending = rec

    def _new_turn(self, index: int, api: str, where: Where, pre: tuple[Any, ...]) -> Turn:
        """A turn of the request at `where` as a new table row, its request facts stored (a
        record, or a worker's row)."""
        req_row = -1
        if pre[9]:  # the body is a JSON object
            facts = pre[8]
            if type(facts) is int:
                req_row = facts + self._req_base
            elif facts is not None:
                req_row = self.table.requests.add(facts)
        r = self.table.append_turn(index, where[0], where[3], api, where, req_row)
        return Turn(self.table, r)

    def _retry_of(self, api: str, record: dict[str, Any], source: int) -> Turn | None:
        """The held failed turn this request retries (same API, same chain handles, its
        input the failed input possibly extended), else None; a held turn that is not
        retried is released as a turn of its own."""
        held, self._failed = self._failed, None
        if held is None:
            return None
        failed, old_input = held
        body = record.get("body")
        if (isinstance(body, dict) and failed.api == api
                and failed.source == source and self.turns and self.turns[-1] == failed
                and retries(failed, old_input, api, body)):
            return failed
        self.finished.append(failed)
        return None

    def _finish_unanswered(self, rec: Turn | Exchange) -> None:
        if isinstance(rec, Turn):
            self.finished.append(rec)

    # ---- responses --------------------------------------------------------------------
    def _response(self, pre: Line, where: Where, reread: Reread | None) -> None:
        link = pre[1]
        rec: Turn | Exchange | None = None
        if link is not None:
            waiting = self._linked.get(link)
            if waiting:  # a reused id: the oldest request waiting
                rec = waiting.popleft()
                if not waiting:
                    del self._linked[link]
        elif self._pending is not None:
            rec, self._pending = self._pending, None
        if rec is None:
            rec = self._orphan(pre, where)
            if rec is None:
                return
        if isinstance(rec, Turn):
            facts = pre[4]
            if facts is None:
                facts = response_facts(_obj(pre, reread, where))
            elif type(facts) is int:  # a row of a worker's chunk
                facts += self._res_base
            self._answer_turn(rec, facts, where, pre[5], pre[6])
        else:
            self._answer_exchange(rec, _obj(pre, reread, where), RecordRef(*where))

    def _orphan(self, pre: Line, where: Where) -> Turn | Exchange | None:
        _, _, api, events, _, _, _, _ = pre
        if api is None and events:
            api = "responses"
        source, _, _, line = where
        if api is not None:
            turn = new_turn(len(self.turns) + 1, source, line, api, table=self.table)
            self.turns.append(turn)
            return turn
        self.problem(source, line, "unknown_record",
                     "response record with no request before it, and not a model response; "
                     "kept as an exchange")
        ex = Exchange(len(self.exchanges) + 1, source, line, "?",
                      "(request not recorded)", "")
        self.exchanges.append(ex)
        return ex

    def _answer_turn(self, turn: Turn, facts: ResponseFacts | int, where: Where,
                     origin: Any = None, absurd: Sequence[tuple[str, Any, str]] = ()) -> None:
        row = facts if type(facts) is int else self.table.responses.add(facts)
        source, _, _, line = where
        self.table.set_response(turn._r, where)
        self.table.res_row[turn._r] = row
        if absurd:
            for name, value, why in absurd:
                shown = value if type(value) in (int, float) else repr(value)
                self.problem(source, line, "absurd_number", f"usage.{name} is {shown}: {why}")
        if origin is not None:
            imported(turn, origin)
        self._settle(turn, row, source, line)

    def _settle(self, turn: Turn, row: int, source: int, line: int) -> None:
        """What an answered turn becomes once its response's row is in: finished, polled
        (background mode), or held (failed: the next request may retry it); its unknown
        output items are problems on the response's line first."""
        side = self.table.responses
        # The row's columns read here, not through a view: one turn's answer reads three.
        extra = side.dicts["extra"].get(row)
        if extra:
            for i, t in extra.get("unknown_items") or ():
                self.problem(source, line, "unknown_item",
                             f"output item {i} has type {t!r}, which this version of "
                             "traceview does not know: shown as an unknown item, not counted "
                             "as a hosted call")
            stream = extra.get("stream")
            # Each fault on its event's own line when the events had lines of their own.
            at = stream.get("fault_lines") if stream else None
            for n, (i, kind, seq, top) in enumerate(stream["sequence"] if stream else ()):
                self.problem(source, at[n] if at else line, "stream_sequence",
                             _sequence_message(i, kind, seq, top))
        status = side.pool.values[side.cols["status"][row]]
        if status in NON_TERMINAL and not side.flags[row] & _STREAM_CUT:
            rid = side.cols["response_id"].get(row)
            if rid:
                # Background mode: a later GET /v1/responses/{id} will carry the outcome.
                self._polling[rid] = turn
                return
        last = self._last_input
        if status == "failed" and last is not None and last[0] is turn:
            if self._failed is not None:
                self.finished.append(self._failed[0])
            # Held: the next request may retry it.
            self._failed = (turn, lazy_input(last[1], partial(_obj, last[2], last[3], last[4])))
            return
        self.finished.append(turn)

    def _answer_exchange(self, ex: Exchange, obj: dict[str, Any], ref: RecordRef) -> None:
        ex.response = ref
        status = obj.get("status_code", obj.get("status"))
        is_int = isinstance(status, int) and not isinstance(status, bool)
        ex.status_code = status if is_int else None
        body = obj.get("body")
        if not isinstance(body, dict):
            if isinstance(obj.get("error"), dict):
                ex.error = str(obj["error"].get("message") or obj["error"].get("type"))
            return
        ex.object = body.get("object") if isinstance(body.get("object"), str) else None
        if isinstance(body.get("error"), dict):
            err = body["error"]
            ex.error = str(err.get("message") or err.get("code") or "error")
        if isinstance(body.get("data"), list):
            ex.item_count = len(body["data"])
            ex.has_more = body.get("has_more") if isinstance(body.get("has_more"), bool) else None
        if ex.object == "conversation" and isinstance(body.get("id"), str):
            ex.conversation_id = ex.conversation_id or body["id"]
        if ex.object == "response" and ex.method == "GET":
            self._resolve_poll(body, obj, ref)

    def _resolve_poll(self, body: dict[str, Any], obj: dict[str, Any], ref: RecordRef) -> None:
        rid = body.get("id")
        if not isinstance(rid, str) or rid not in self._polling:
            return
        turn = self._polling[rid]
        facts = polled_response(turn, body, obj.get("ts"))
        turn.res = facts
        turn.response = ref
        turn.notes = (*turn.notes,
                      f"outcome read from a later retrieve (line {ref.line}): {facts.status}")
        if facts.status not in NON_TERMINAL:
            del self._polling[rid]
            self.finished.append(turn)

    # ---- stream events written one per line -------------------------------------------------
    def _stream_event(self, ev: dict[str, Any], ref: RecordRef) -> None:
        s = self._stream
        if s is not None and s.starts_another(ev, ref):
            self._close_stream()  # the open one was cut off: a turn of its own
            s = None
        if s is None:
            done = self._ended
            if done is not None and done.repeats(ev, ref):
                self.problem(ref.source, ref.line, "stream_sequence", done.repeated(ev))
                return
            s = self._stream = LineStream(ref)
        if s.add(ev, ref):
            self._close_stream()

    def _close_stream(self) -> None:
        s, self._stream = self._stream, None
        self._ended = s
        if s is not None:  # a response record at the stream's last line, read as evidence
            self._response(response_pre(s.record(), True, stream=s.reading), s.ref, None)

    # ---- end of input -----------------------------------------------------------------
    def close(self) -> None:
        """Flush what is still open: unanswered requests, cut streams, unfinished polls."""
        self._close_stream()
        if self._failed is not None:
            self.finished.append(self._failed[0])
            self._failed = None
        if self._pending is not None:
            self._finish_unanswered(self._pending)
            self._pending = None
        for waiting in self._linked.values():
            for rec in waiting:
                self._finish_unanswered(rec)
        self._linked.clear()
        for turn in self._polling.values():
            turn.notes = (*turn.notes, "still queued/in progress at the end of the capture")
            self.finished.append(turn)
        self._polling.clear()


def _sequence_message(i: int, kind: str, seq: int, top: int) -> str:
    what = {"duplicate": f"repeats sequence_number {seq}",
            "out_of_order": f"has sequence_number {seq} after {top}: out of order",
            "missing": f"has sequence_number {seq} after {top}: {seq - top - 1} missing"}
    return f"stream event {i} {what[kind]}; the stream is not the provider's sequence"


def _obj(pre: Line, reread: Reread | None, where: Where) -> dict[str, Any]:
    """The parsed record of a "req"/"res" line at `where`: the one `pre` carries (one
    process), else read again from the file (`reread`; a worker sends no bodies), else
    nothing."""
    obj: dict[str, Any] | None = pre[-1]
    if obj is not None:
        return obj
    return reread(where[1], where[2]) if reread is not None else {}
