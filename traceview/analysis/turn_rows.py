"""Turns' rows (traceview.report/1's `turns`), made a batch of turns at a time.

A row read through a TurnReport's properties (turn_report.py) took ~60 property calls a
turn, each finding the turn's request and response again. Here each key of the row is one
pass over a batch of turns: the turn table's and the analysis's columns are read at the
batch's rows, and what several keys are made from (the sides' `extra`, the hosted calls,
the price) is read once per batch (`Batch`, turn_batch.py). Every value that is computed
is computed by the function a TurnReport's property calls (turn_values.py, turn_sides.py,
pricing, timing, lineage, attribution): this module reads their inputs, it decides
nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from traceview.analysis.cost.attribution import attribution
from traceview.analysis.hosted.carry import EMPTY_CARRY
from traceview.analysis.lineage import lineage_of
from traceview.analysis.timing import timing_dict
from traceview.analysis.turn_batch import Batch
from traceview.analysis.turn_columns import TurnColumns
from traceview.analysis.turn_sides import (
    FROM_REQUEST,
    FROM_RESPONSE,
    REQUEST_EXTRA,
    RESPONSE_EXTRA,
    attempts_of,
    caller_elapsed,
    extra_value,
    shown_user_text,
    store_of,
    ts_of,
)
from traceview.analysis.turn_values import (
    attribution_dict,
    carry_of,
    context_value,
    cost_usd,
    input_account,
    owner_dict,
    passes,
    unexplained,
)
from traceview.safety.redact import keys_apart

# ---- the keys: how each is read for a batch ---------------------------------------------------

Reader = Callable[[Batch], list[Any]]
READ: dict[str, Reader] = {}


# A value several rows of a batch give alike (a converted pooled tuple, what an unset fact
# reads as) is made once for the batch and shared by those rows: no reader of a row changes
# its values, and orjson writes a shared value's bytes as it writes a copy's.


def _from_side(which: str, name: str, missing: Any, convert: Any) -> Reader:
    def read(b: Batch) -> list[Any]:
        values = b.request(name, missing) if which == "request" else b.response(name, missing)
        if convert is None:
            return values
        made = {v: convert(v) for v in set(values)}  # pooled values: a few a batch
        return list(map(made.__getitem__, values))
    return read


def _from_extra(which: str, name: str, convert: Any) -> Reader:
    def read(b: Batch) -> list[Any]:
        extras = b.request("extra") if which == "request" else b.response("extra")
        unset = extra_value(None, name, convert)
        return [extra_value(x, name, convert) if x else unset for x in extras]
    return read


def _from_context(key: str) -> Reader:
    def read(b: Batch) -> list[Any]:
        unset = context_value(None, key)
        return [context_value(c, key) if c else unset
                for c in map(b.cols.context.get, b.rows)]
    return read


def _count(name: str) -> Reader:
    def read(b: Batch) -> list[Any]:
        return b.count(name)
    return read


READ.update({key: _from_side("request", *spec) for key, spec in FROM_REQUEST.items()})
READ.update({key: _from_side("response", *spec) for key, spec in FROM_RESPONSE.items()})
READ.update({key: _from_extra("request", *spec) for key, spec in REQUEST_EXTRA.items()})
READ.update({key: _from_extra("response", *spec) for key, spec in RESPONSE_EXTRA.items()})
READ.update({key: _from_context(key) for key in (
    "expected_input_unknown", "provider_counters", "analysis_context")})
READ.update({key: _count(key) for key in (
    "owned_state_bytes", "expected_input", "cumulative_input_tokens")})


def _pooled(values: Sequence[Any] | Mapping[int, Any], index: Sequence[int],
            rows: Sequence[int]) -> list[Any]:
    """A column kept as an index into shared values (models, sources, keys, marker lists)."""
    return [values[index[r]] for r in rows]


def reads(key: str) -> Callable[[Reader], Reader]:
    """The reader of row key `key`."""
    def register(read: Reader) -> Reader:
        READ[key] = read
        return read
    return register


@reads("index")
def _index(b: Batch) -> list[Any]:
    return b.index


@reads("line")
def _line(b: Batch) -> list[Any]:
    return [b.table.line[r] for r in b.rows]


@reads("api")
def _api(b: Batch) -> list[Any]:
    return _pooled(b.table.pool.values, b.table.api, b.rows)


@reads("source")
def _source(b: Batch) -> list[Any]:
    return _pooled(b.cols.sources, b.table.source, b.rows)


@reads("conversation_key")
def _conversation_key(b: Batch) -> list[Any]:
    return _pooled(b.cols.keys, b.cols.conv, b.rows)


@reads("conversation")
def _conversation(b: Batch) -> list[Any]:
    return b.conversation


@reads("model")
def _model(b: Batch) -> list[Any]:
    return b.model


@reads("user_text")
def _user_text(b: Batch) -> list[Any]:
    return list(map(shown_user_text, b.request("user_text")))


@reads("unexplained_tokens")
def _unexplained(b: Batch) -> list[Any]:
    return list(map(unexplained, b.response("input_tokens"), b.count("expected_input")))


@reads("hosted_calls")
def _hosted_calls(b: Batch) -> list[Any]:
    none: list[Any] = []
    return [[c.to_dict() for c in calls] if calls else none for calls in b.calls]


@reads("markers")
def _markers(b: Batch) -> list[Any]:
    return _pooled(b.cols.marker_lists, b.cols.marker_ids, b.rows)


@reads("cost_usd")
def _cost_usd(b: Batch) -> list[Any]:
    return list(map(cost_usd, b.costs))


@reads("cost")
def _cost(b: Batch) -> list[Any]:
    return [c.to_dict() for c in b.costs]


@reads("input_account")
def _input_account(b: Batch) -> list[Any]:
    handles = map(_handle, b.request("previous_response_id"), b.request("conversation_id"))
    made: dict[Any, dict[str, Any]] = {}  # the batch's line dicts: most lines repeat
    return list(map(input_account, [b.cols] * b.n, b.rows, handles, b.count("expected_input"),
                    b.index, [made] * b.n))


def _handle(previous: str | None, conversation: str | None) -> str | None:
    """What a turn's carried line is named by: its request's handle."""
    return previous or conversation


@reads("attribution")
def _attribution(b: Batch) -> list[Any]:
    return [attribution_dict(b.cols.attribution_of(r)) for r in b.rows]


@reads("notes")
def _notes(b: Batch) -> list[Any]:
    notes = b.table.notes
    none: list[str] = []
    return [list(n) if (n := notes.get(r)) else none for r in b.rows]


def _attempts(b: Batch) -> list[tuple[Any, ...]]:
    tried = b.table.attempts
    return [tried.get(r, ()) for r in b.rows]


@reads("attempts")
def _attempt_dicts(b: Batch) -> list[Any]:
    none: list[Any] = []
    return [attempts_of(tried, partial(_final_attempt, b, k)) if tried else none
            for k, tried in enumerate(_attempts(b))]


def _final_attempt(b: Batch, k: int) -> dict[str, Any]:
    """The final try of the batch's `k`-th turn, as its `attempts` lists it last."""
    res = b.response
    return {"line": _line(b)[k], "status": res("status", "unknown")[k],
            "http_status": res("http_status")[k], "error": res("error")[k],
            "error_code": res("error_code")[k], "elapsed_ms": res("elapsed_ms")[k],
            "limits": _limits(b)[k]}


_limits = _from_extra("response", "limits", None)  # the final attempt's Retry-After, …


@reads("caller_elapsed_ms")
def _caller_elapsed(b: Batch) -> list[Any]:
    return list(map(caller_elapsed, b.response("elapsed_ms"), _attempts(b)))


@reads("store")
def _store(b: Batch) -> list[Any]:
    return list(map(store_of, b.store("request"), b.store("response")))


@reads("model_passes")
def _passes(b: Batch) -> list[Any]:
    return list(map(passes, b.response("output_types"), b.calls))


@reads("carried_context")
def _carried(b: Batch) -> list[Any]:
    carries = map(carry_of, [b.cols] * b.n, b.rows, READ["conversation_key"](b), b.index)
    return [EMPTY_CARRY if c is None else c.to_dict() for c in carries]


@reads("provider_copy")
def _provider_copy(b: Batch) -> list[Any]:
    copies = b.cols.provider_copy
    return [copies.get(r) for r in b.rows]


@reads("ts")
def _ts(b: Batch) -> list[Any]:
    return list(map(ts_of, b.response("started_at")))


@reads("timing")
def _timing(b: Batch) -> list[Any]:
    answered = [s >= 0 for s in b._at["response"]]
    return list(map(timing_dict, answered, _attempts(b), b.response("elapsed_ms"),
                    b.response("output_tokens"), b.request("background", False),
                    b.request("extra"), b.response("extra")))


@reads("attributed_to")
def _attributed_to(b: Batch) -> list[Any]:
    metadata = b.cols.conversation_metadata
    owners = map(attribution, b.request("extra"),
                 [metadata.get(c or "") for c in b.conversation], b.response("extra"))
    return list(map(owner_dict, owners))


@reads("lineage")
def _lineage(b: Batch) -> list[Any]:
    found = b.cols.lineage
    got = map(lineage_of, b.request("extra"), b.response("extra"), b.calls,
              [found.get(r) for r in b.rows])
    return [None if x is None else x.to_dict() for x in got]


def rows(cols: TurnColumns, at: Sequence[int], keys: Sequence[str],
         unread: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """The rows of the turns at table rows `at` of `cols`: dicts of `keys` in order, each
    read a column at a time; the keys in `unread` are None (made by the caller, or not
    wanted)."""
    return batch_rows(Batch(cols, at), keys, unread)


def batch_rows(b: Batch, keys: Sequence[str],
               unread: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """`rows` of batch `b`'s turns: the caller keeps the batch to read what its rows were
    made from (the prose reads each turn's price: `Batch.costs`, not priced again)."""
    return rows_of(keys, batch_columns(b, keys, unread))


def batch_columns(b: Batch, keys: Sequence[str],
                  unread: frozenset[str] = frozenset()) -> list[list[Any]]:
    """Each of `keys` read for batch `b`'s turns: a list of the turns' values per key."""
    nothing = [None] * b.n
    return [nothing if key in unread else READ[key](b) for key in keys]


def rows_of(keys: Sequence[str], columns: list[list[Any]]) -> list[dict[str, Any]]:
    """The rows whose values for `keys` are `columns` (`batch_columns`)."""
    return [dict(zip(keys, values, strict=True)) for values in zip(*columns, strict=True)]


# The keys whose rows share most of their values (a pooled value, a dict made once a
# batch: `_pooled`, `owner_dict`, the conversation's key), those whose rows' lists share
# their items (`input_account`'s line dicts, made once a batch), and those whose values
# are dicts of the same few keys.
SHARED = frozenset({"api", "status", "source", "conversation_key", "conversation", "model",
                    "markers", "tools_offered", "attributed_to"})
SHARED_ITEMS = frozenset({"input_account"})
DICTS = frozenset({"timing", "cost", "carried_context"})


def judged(keys: Sequence[str], columns: list[list[Any]]) -> list[list[Any]]:
    """What the output boundary judges of `columns` (safety/redact.py `dumped_apart`): each
    column, but for the keys whose rows share values each distinct value once (by
    identity: every string of the column is in one of them), not the column's copies of
    them, and for columns of dicts their keys once and each one's values (`_fields`):
    half a hosted batch's bytes."""
    return [_distinct(c) if key in SHARED else _fields(_items(c)) if key in SHARED_ITEMS
            else _fields(c) if key in DICTS else c
            for key, c in zip(keys, columns, strict=True)]


def _distinct(column: list[Any]) -> list[Any]:
    return list({id(v): v for v in column}.values())


def _items(column: list[Any]) -> list[Any]:
    """Each distinct item of the column's lists (and each value that is not a list)."""
    out: dict[int, Any] = {}
    for value in column:
        if type(value) is list:
            out.update(zip(map(id, value), value, strict=True))
        else:
            out[id(value)] = value
    return list(out.values())


def _fields(column: list[Any]) -> list[Any]:
    """A column of dicts as their keys, once, and each one's values (`keys_apart`); the
    column as it is when a value is not a dict."""
    apart = keys_apart(column)
    return column if apart is None else [apart[0], *apart[1]]
