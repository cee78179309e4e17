"""A batch of turns, as the row builder (turn_rows.py) reads it: each column a row key
reads is read once for the batch's turns (at their table rows) and shared by every key
that reads it; so are the values several keys are made from (the model, the hosted calls,
the price).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any

from traceview.analysis.cost.price import price
from traceview.analysis.pricing import Cost, counters_of
from traceview.analysis.turn_columns import TurnColumns
from traceview.analysis.turn_sides import conversation_of, model_of
from traceview.analysis.turn_values import NOT_PRICED
from traceview.capture.side_columns import UNKNOWN, Col, RequestSide, ResponseSide, Side

_SCHEMAS = {side: {c.name: c for c in side.SCHEMA} for side in (RequestSide, ResponseSide)}


def _gather(at: list[int]) -> Callable[[Any], list[Any]] | None:
    """The items at rows `at` of a column, gathered in one C call (None: a turn lacks the
    side, its row -1: each item is then read alone)."""
    if not at or min(at) < 0:
        return None
    if len(at) == 1:
        row = at[0]
        return lambda col: [col[row]]
    get = itemgetter(*at)
    return lambda col: list(get(col))


def _column(side: Side, c: Col, at: list[int], missing: Any,
            gather: Callable[[Any], list[Any]] | None) -> list[Any]:
    """Column `c` of `side` at its rows `at`, as a row view reads it (capture/sides.py);
    `missing` where a row is -1 (the turn lacks that side). `gather`: `_gather(at)`."""
    col: Any = side.cols.get(c.name)
    if gather is not None and c.kind in ("count", "pooled", "flag"):
        if c.kind == "flag":
            mask = 1 << side.FLAGS.index(c.name)
            return [bool(f & mask) for f in gather(side.flags)]
        got = gather(col)
        if c.kind == "pooled":
            return list(map(side.pool.values.__getitem__, got))
        return [None if v < 0 else v for v in got] if c.null == UNKNOWN else got
    if c.kind == "count" and c.null == UNKNOWN:
        return [missing if r < 0 else None if col[r] < 0 else col[r] for r in at]
    if c.kind == "count":
        return [missing if r < 0 else col[r] for r in at]
    if c.kind == "pooled":
        values = side.pool.values
        return [missing if r < 0 else values[col[r]] for r in at]
    if c.kind == "text":
        return [missing if r < 0 else col.get(r) for r in at]
    if c.kind == "flag":
        flags, mask = side.flags, 1 << side.FLAGS.index(c.name)
        return [missing if r < 0 else bool(flags[r] & mask) for r in at]
    d, null = side.dicts[c.name], c.null  # sparse
    if not d:
        return [missing if r < 0 else null for r in at]
    if gather is not None:
        return list(map(d.get, at, repeat(null)))
    return [missing if r < 0 else d.get(r, null) for r in at]


class Batch:
    """Turns of one TurnColumns, by table row: each column a key reads, read once for the
    batch (made when first asked for) and shared by every key that reads it."""

    def __init__(self, cols: TurnColumns, rows: Sequence[int]) -> None:
        table = cols.table
        self.cols, self.table, self.rows = cols, table, rows
        self.n = len(rows)
        self._at = {"request": [table.req_row[r] for r in rows],
                    "response": [table.res_row[r] for r in rows]}
        self._gather = {which: _gather(at) for which, at in self._at.items()}
        self._read: dict[tuple[str, str, Any], list[Any]] = {}

    def request(self, name: str, missing: Any = None) -> list[Any]:
        """Fact `name` of each turn's request (`missing` where a turn has none)."""
        return self._side("request", name, missing)

    def response(self, name: str, missing: Any = None) -> list[Any]:
        """Fact `name` of each turn's response (`missing` where a turn has none)."""
        return self._side("response", name, missing)

    def _side(self, which: str, name: str, missing: Any) -> list[Any]:
        key = (which, name, missing)
        got = self._read.get(key)
        if got is None:
            side = self.table.requests if which == "request" else self.table.responses
            column = _column(side, _SCHEMAS[type(side)][name], self._at[which], missing,
                             self._gather[which])
            got = self._read[key] = column
        return got

    def store(self, which: str) -> list[bool | None]:
        """A side's `store` flag, None where it did not say (or the turn lacks the side)."""
        said, value = self._side(which, "store_set", False), self._side(which, "store_value", None)
        return [v if s else None for s, v in zip(said, value, strict=True)]

    def count(self, name: str) -> list[int | None]:
        """One of the analysis's counts (TurnColumns), None where unknown."""
        def read(b: Batch) -> list[int | None]:
            col = getattr(b.cols, name)
            return [None if (v := col[r]) < 0 else v for r in b.rows]
        return self.once(name, read)

    def once(self, name: str, make: Callable[[Batch], list[Any]]) -> list[Any]:
        """A column several keys read (`make` of the batch), made once."""
        key = ("batch", name, None)
        got = self._read.get(key)
        if got is None:
            got = self._read[key] = make(self)
        return got

    @property
    def index(self) -> list[int]:
        return self.once("index", lambda b: [b.table.index[r] for r in b.rows])

    @property
    def calls(self) -> list[tuple[Any, ...]]:
        return self.response("hosted_calls", ())

    @property
    def conversation(self) -> list[str | None]:
        return self.once("conversation", lambda b: list(map(
            conversation_of, b.request("conversation_id"), b.response("conversation_id"))))

    @property
    def model(self) -> list[str | None]:
        return self.once("model", lambda b: list(map(
            model_of, b.response("model"), b.request("model"))))

    @property
    def costs(self) -> list[Cost]:
        return self.once("costs", _costs)


def _costs(b: Batch) -> list[Cost]:
    """Each turn's price (cost/price.py `price`, as TurnReport prices it)."""
    pricing = b.cols.pricing
    if pricing is None:
        return [NOT_PRICED] * b.n
    counters = map(counters_of, zip(b.response("web_search_requests"),
                                    b.response("file_search_requests"), strict=True))
    return [price(pricing, *facts) for facts in zip(
        b.model, b.response("input_tokens"), b.response("cached_tokens"),
        b.response("output_tokens"), b.calls, counters, b.response("service_tier"),
        b.request("extra"), b.request("tools_offered", ()), strict=True)]
