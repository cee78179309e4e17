"""What one capture line says, without pairing state: pure, so it runs in worker
processes (capture/parallel.py) as well as here.

A line reduces to a tuple: ("req", skip, link, method, path, query, api, no_api, facts,
body_ok, origin, obj) | ("res", link, api, events, facts, origin, absurd, obj) |
("problem", kind, message) | ("other", obj) | None (blank). `obj` is the parsed record
when `keep` (the follow mode's one process), else None: a worker sends no bodies back,
and the few records that need theirs are re-read. A worker sends `facts` as a row number
of its chunk's columns instead (`as_rows`).
"""

from __future__ import annotations

from typing import Any

import orjson

from traceview.capture.bounded import MAX_DEPTH, TooDeep, may_be_deep, too_deep
from traceview.capture.endpoints import (
    api_from_body,
    api_from_response,
    split_endpoint,
    turn_api,
)
from traceview.capture.facts import request_facts
from traceview.capture.foreign import foreign_message, foreign_traffic
from traceview.capture.response_facts import response_facts
from traceview.capture.scan import HEAD_BYTES, NO_STORE, STORE_TRUE, created_in, ids_in, store_in
from traceview.capture.stream_facts import StreamReading
from traceview.capture.table import Facts

_COUNT_LIMIT = 1 << 40  # counts at or past this (or negative) cannot be real


def _absurd(value: Any) -> bool:
    """A number no count can be: negative, astronomically large, or fractional (orjson
    reads an integer past 64 bits as a float)."""
    if type(value) is int:
        return not 0 <= value < _COUNT_LIMIT
    return type(value) is float and not (value.is_integer() and 0 <= value < _COUNT_LIMIT)


# (the part, the whole it is part of, what cannot be known then) under both APIs' names.
_CACHED = "the turn's cost is unknown"
_REASONING = "the next turn's expected input is unknown"
_PARTS = (("input_tokens_details", "cached_tokens", "input_tokens", _CACHED),
          ("output_tokens_details", "reasoning_tokens", "output_tokens", _REASONING),
          ("prompt_tokens_details", "cached_tokens", "prompt_tokens", _CACHED),
          ("completion_tokens_details", "reasoning_tokens", "completion_tokens", _REASONING))
NO_COUNT = "not a possible token count; shown as unknown"


def _absurd_counts(body: Any) -> tuple[tuple[str, Any, str], ...]:
    """Usage token counts no provider sends, with their keys (`input_tokens_details.
    cached_tokens` for a nested one) and what follows: negative or beyond any real count,
    or of another type (a string, a boolean), read back as unknown; a part larger than its
    whole (cached beyond input, reasoning beyond output) is shown as the capture says, and
    what it would decide is unknown (the cost, the next turn's expected input). Only token
    counts are judged (`*_tokens`, and `*_tokens` in `*_tokens_details`): a provider's own
    fields (`cost`, `queue_time`) may hold anything. A tuple, the empty one shared: a line's
    answer is kept until its chunk is paired, and an empty list a line was one more object
    for the collector to visit."""
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return ()
    found: list[tuple[str, Any, str]] = []
    for key, value in usage.items():
        if type(value) is int and 0 <= value < _COUNT_LIMIT:
            continue  # the usual value: a count in range, judged without a call
        if type(value) is dict and str(key).endswith("_tokens_details"):
            for k, v in value.items():
                if not (type(v) is int and 0 <= v < _COUNT_LIMIT) \
                        and (why := _not_a_count(k, v)):
                    found.append((f"{key}.{k}", v, why))
        elif why := _not_a_count(key, value):
            found.append((str(key), value, why))
    for details, part, whole, unknown in _PARTS:
        d, n = usage.get(details), usage.get(whole)
        p = d.get(part) if type(d) is dict else None
        if type(p) is int and type(n) is int and 0 <= n < p < _COUNT_LIMIT:
            found.append((f"{details}.{part}", p, f"more than {whole} ({n}); {unknown}"))
    return tuple(found)


def _not_a_count(key: Any, value: Any) -> str | None:
    """Why `value` under `key`, a token count's field, cannot be one (None: it may be, or
    the field is not a token count)."""
    if value is None or not str(key).endswith("_tokens"):
        return None
    if _absurd(value):
        return NO_COUNT
    if type(value) is not int and type(value) is not float:
        return f"a {_kind(value)}, not a token count; shown as unknown"
    return None


def _streamed_usage(events: Any) -> Any:
    """The object that holds a streamed response's usage: the final response an event
    carries (Responses API), else the chunk with usage (Chat Completions); None."""
    for event in reversed(events) if type(events) is list else ():
        if type(event) is dict:
            response = event.get("response")
            if type(response) is dict and "usage" in response:
                return response
            if "usage" in event:
                return event
    return None


def _kind(value: Any) -> str:
    return {bool: "boolean", str: "string", list: "list", dict: "object"}.get(
        type(value), type(value).__name__)


Line = tuple[Any, ...]  # what one line says (see above)
Pre = Line | None


class Records:
    """The facts records of a chunk's lines, in line order: stored as the rows of one Facts
    at the chunk's end, column by column (`Side.add_all`)."""

    def __init__(self) -> None:
        self.requests: list[Any] = []
        self.responses: list[Any] = []

    def facts(self) -> Facts:
        facts = Facts()
        facts.requests.add_all(_shared_extras(self.requests))
        facts.responses.add_all(_shared_extras(self.responses))
        return facts


def _shared_extras(records: list[Any]) -> list[Any]:
    """`records` with equal `extra` facts made one object: the responses of a capture
    repeat theirs (the same vector stores and retrieval lineage on every turn), which a
    chunk then sends once and the table holds once a chunk, not once a row. Equal by
    their repr: the same plain values of the same types. The facts are never changed
    once stored. An extra that holds the very objects an earlier one held (a response's
    stores and retrieval are kept once: capture/lineage.py) is that one's without a repr
    (the records keep every object alive meanwhile, so no id is reused)."""
    seen: dict[str, Any] = {}
    same: dict[tuple[Any, ...], Any] = {}
    for f in records:
        extra = f.extra
        if extra:
            held = _held(extra)
            kept = same.get(held)
            if kept is None:
                kept = same[held] = seen.setdefault(repr(extra), extra)
            f.extra = kept
    return records


def _held(extra: dict[str, Any]) -> tuple[Any, ...]:
    """The keys of `extra` and the objects they hold, a dict's own keys and objects in
    its place: two extras with the same are equal."""
    return tuple((k, tuple((kk, id(vv)) for kk, vv in v.items()) if type(v) is dict
                  else id(v)) for k, v in extra.items())


def as_rows(pre: Pre, records: Records) -> Pre:
    """`pre` as a worker sends it: its facts record kept in `records` and replaced by its
    row number there (columns, not one pickled object per line), and without the parsed
    record `keep` left in it (a worker sends no bodies)."""
    if pre is None:
        return None
    kind = pre[0]
    if kind == "req":
        return (*pre[:8], _row(records.requests, pre[8]), pre[9], pre[10], None, *pre[12:])
    if kind == "res":
        return (*pre[:4], _row(records.responses, pre[4]), pre[5], pre[6], None, *pre[8:])
    if kind == "other" and pre[1] is not None:
        return ("other", None)
    return pre


def _row(kept: list[Any], facts: Any) -> int | None:
    """`facts` appended to `kept`, as its row number there (None stays None)."""
    if facts is None:
        return None
    kept.append(facts)
    return len(kept) - 1


def line_facts(raw: bytes, ended: bool, keep: bool = False) -> Pre:
    n = len(raw) - 1 if ended else len(raw)  # the record without its newline
    if n < 3 and not raw.strip():
        return None
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "recursion" not in str(exc).lower():
            return _bad_line(raw, ended, exc)
        obj = TooDeep("nested deeper than the parser allows")
    if type(obj) is TooDeep or (may_be_deep(raw) and too_deep(obj)):
        return ("problem", "too_deep", f"record nested deeper than {MAX_DEPTH} levels; "
                "line skipped")
    if type(obj) is not dict:
        return ("problem", "unknown_record",
                f"a JSON {type(obj).__name__} where a record object was expected")
    d = obj.get("dir")
    try:
        if d == "req":
            return request_pre(obj, keep, raw)
        if d == "res":
            return response_pre(obj, keep, raw)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError,
            RecursionError) as exc:
        return ("problem", "internal_error", internal_error(exc))
    return ("other", obj if keep else None)


def internal_error(exc: Exception) -> str:
    return (f"record could not be read ({type(exc).__name__}: {exc}); "
            "line skipped — please report this capture line")


def request_pre(obj: dict[str, Any], keep: bool, raw: bytes | None = None) -> Line:
    """The request side. With the line's bytes (`raw`), its facts also carry what the
    objects inventory reads in them (capture/scan.py)."""
    g = obj.get
    body = g("body")
    endpoint = g("endpoint")
    link = g("id")
    if not isinstance(link, str):
        link = None
    keep_obj = obj if keep else None
    if body is None and g("recorded") is False:
        return ("req", True, link, None, None, None, None, False, None, False, None, keep_obj)
    if isinstance(endpoint, str) and endpoint.strip():
        method, path, query = split_endpoint(endpoint)
        api = turn_api(method, path)
        no_api = False
    else:
        method, path, query = "POST", "/v1/responses", ""
        api = api_from_body(body)
        no_api = api is None
    if api is None or api == "chat" or g("headers") is not None:
        foreign = foreign_traffic(path if endpoint else None, g("headers"), body, "req")
        if foreign is not None:
            return ("problem", "foreign_traffic", foreign_message(foreign))
    body_ok = isinstance(body, dict)
    facts = request_facts(api, body, obj.get("bytes")) \
        if api is not None and isinstance(body, dict) else None
    if facts is not None and raw is not None:
        # The whole record; its newline changes no match (see scan.py).
        facts.scanned = True
        n = len(raw)
        facts.quoted_ids = ids_in(raw, n)
        # The flag in the bytes counts only when no side's facts hold one (see scan.py).
        store = store_in(raw, n) if not facts.store_set else NO_STORE
        if store:
            facts.raw_store_set = True
            facts.raw_store_value = store == STORE_TRUE
    ts = g("ts")
    if facts is not None and (type(ts) is int or type(ts) is float) and ts > 0:
        # When the request was sent (the recorder's clock): where caller latency starts.
        if facts.extra is None:
            facts.extra = {}
        facts.extra["ts"] = ts
    headers = g("headers")
    if facts is not None and type(headers) is dict:
        # The organization and project the client asked to be billed to (issue 33); few
        # requests carry headers, so the reader is imported where it is needed.
        from traceview.capture.billing_headers import billed_to

        billed = billed_to({str(k).lower(): v for k, v in headers.items()})
        if billed:
            facts.extra = {**(facts.extra or {}), **billed}
    origin = obj.get("origin")  # a record an importer wrote (capture/formats)
    if facts is not None and type(origin) is dict and origin.get("format") == "batch":
        facts.extra = {**(facts.extra or {}), "mode": "batch"}  # priced at the Batch rate
    return ("req", False, link, method, path, query, api, no_api, facts, body_ok, origin,
            keep_obj)


def response_pre(obj: dict[str, Any], keep: bool, raw: bytes | None = None,
                 stream: StreamReading | None = None) -> Line:
    """The response side: its facts when it reads as a model response (or a stream), else
    None (an exchange's answer: the pairing reads its body when it needs it). With the
    line's bytes, as request_pre; with `stream`, the evidence of a stream written one
    event per line (`obj` then holds only the events kept for rebuilding)."""
    g = obj.get
    link = g("id")
    if not isinstance(link, str):
        link = None
    body = g("body")
    api = api_from_response(body)
    events = isinstance(g("events"), list)
    if api is None:
        foreign = foreign_traffic(None, g("headers"), body, "res", g("events"))
        if foreign is not None:
            return ("problem", "foreign_traffic", foreign_message(foreign))
    facts = response_facts(obj, stream) if api is not None or events else None
    if facts is not None and raw is not None:
        # The inventory reads a response's first HEAD_BYTES, all of it with hosted calls;
        # a line no longer than that is read whole (its newline changes no match).
        n = len(raw) if facts.hosted_calls else min(len(raw), HEAD_BYTES)
        facts.scanned = True
        facts.quoted_ids = ids_in(raw, n)
        facts.raw_created_at = created_in(raw, n)
    counted = body if type(body) is dict else _streamed_usage(g("events")) if events else None
    return ("res", link, api, events, facts, g("origin"),
            _absurd_counts(counted) if counted is not None else (), obj if keep else None)


def _bad_line(raw: bytes, ended: bool, exc: Exception) -> Pre:
    if not raw.strip():
        return None
    raw = raw.rstrip(b"\r\n")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as ue:
        return ("problem", "invalid_utf8",
                f"byte 0x{raw[ue.start]:02x} at column {ue.start + 1} is not UTF-8; "
                "line skipped")
    nul = raw.find(b"\x00")
    if nul >= 0:  # binary data in one line: this line's problem, the rest is read
        return ("problem", "binary_data",
                f"a NUL byte (binary data) at column {nul + 1}; line skipped")
    if not ended:
        return ("problem", "truncated_line",
                f"last line ends mid-record ({len(raw):,} bytes, no newline): "
                "the writer probably stopped while writing it; line skipped")
    return ("problem", "malformed_json", f"not valid JSON ({exc}); line skipped")


