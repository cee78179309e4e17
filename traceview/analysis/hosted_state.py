"""The post-pass that follows hosted state over a whole capture: the carried-context
ledger and the provider objects inventory.

Both need the finished conversations (a source is billed on turns that arrive after it),
so they run once, after the one-pass analyzer, and attach their results to the turn and
conversation reports every output path already reads.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import compress, repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from traceview.analysis.by_index import finder
from traceview.analysis.columns import Columns
from traceview.analysis.fidelity import assess
from traceview.analysis.ledger import ToolConfig, build_ledger
from traceview.analysis.ledger import tool_name as _tool_name
from traceview.analysis.object_columns import (
    column,
    has_missing,
    identity,
    is_row,
    pairs,
    through,
)
from traceview.analysis.objects import inventory
from traceview.capture.model import Problem

if TYPE_CHECKING:
    from traceview.analysis.session import Analysis


def attach(analysis: Analysis) -> None:
    """Compute the ledger, the objects inventory and replay fidelity, and attach them.

    These passes read bodies again; a shape nothing anticipated must not take the rest
    of the report down with it, so a failure is reported as a problem (and the three
    stay unset) instead of raised.
    """
    try:
        _attach(analysis)
    except Exception as exc:  # noqa: BLE001 - a safety net; the message names the cause
        source = analysis.capture.sources[0] if analysis.capture.sources else "?"
        analysis.problems.append(Problem(
            source, 0, "hosted_state_error",
            f"the carried-context / objects / fidelity passes stopped: "
            f"{type(exc).__name__}: {exc}; every other number is unaffected"))


def _attach(analysis: Analysis) -> None:
    cap = analysis.capture
    pricing = getattr(analysis, "pricing_table", None)
    store_price = pricing.storage.get("vector_store") if pricing is not None else None
    storage = store_price if isinstance(store_price, dict) else None
    # The inventory reads every turn's scanned ids once (a column at a time for the usual
    # capture); the ledger's tool configurations are taken from the same as they pass.
    configs = _Configs()
    objects = inventory(analysis.turns, cap.exchanges, cap.read_raw, storage,
                        on_request=configs.see, on_row=configs.see_row,
                        on_rows=configs.see_rows)
    bills = {c.key: c.cost_usd for c in analysis.conversations}
    # The ledger built while the capture loaded, finished when it provably is this one
    # (analysis/ahead.py); else the whole pass.
    ahead = getattr(analysis, "ahead", None)
    if ahead is not None:
        analysis.ahead = None
    ledger = ahead.finish(analysis.turns, pricing, configs, bills) \
        if ahead is not None else None
    if ledger is None:
        ledger = build_ledger(analysis.turns, pricing, configs.get, bills)
    configs.clear()
    # Replay fidelity from the capture alone (hosted turns stay unverified until a provider
    # copy is given: `traceview fidelity --live / --items`).
    fidelity = assess(analysis, objects=objects, label="capture only", ahead=ahead)

    # Each turn's carried context is looked up in the ledger when read (TurnReport.carried):
    # no account held per turn.
    for columns in _all_columns(analysis.turns):
        columns.ledger = ledger
    turn = finder(analysis.turns)
    for conv in analysis.conversations:
        conv.carried = ledger.conversations.get(conv.key)
    for index, note in objects.turn_notes.items():
        t = turn(index)
        if t is not None:
            t.provider_copy = note
    analysis.ledger = ledger
    analysis.objects = objects
    analysis.fidelity = fidelity


_columns = attrgetter("columns")


def _all_columns(turns: Any) -> list[Any]:
    """The analysis's columns the turns are rows of: the parts of the analysis's turns
    (analysis/reports.py), no view made; else each turn's, once."""
    parts = getattr(turns, "_parts", None)
    if type(parts) is list:
        return list({id(c): c for c in parts}.values())
    return list({id(c): c for c in map(_columns, turns)}.values())


class _Configs:
    """Each request's tool configuration, one shared `ToolConfig` per distinct one (a
    capture repeats a handful of configurations on every turn), by turn index: its number
    in the list of distinct ones, 2 bytes a turn (a pointer a turn was 8; made again when
    asked, it cost the ledger a third more time: it asks on nearly every turn of a hosted
    capture)."""

    def __init__(self) -> None:
        # By turn index: an array while indices run 1..n, else a map. 0: none.
        self._ids = array("H")
        self._map: dict[int, int] = {}
        self._made: list[ToolConfig | None] = [None]  # by number
        self._number: dict[tuple[frozenset[str], tuple[bytes, ...]], int] = {}
        self._tools: dict[tuple[str, ...], frozenset[str]] = {}
        self._cols: Columns | None = None

    def see(self, t: Any, raw: bytes | None, ids: list[bytes]) -> None:
        """`see_row` of the turn's table row."""
        turn = t.turn
        self.see_row(turn.table, turn.row, raw, ids)

    def see_row(self, table: Any, row: int, raw: bytes | None, ids: list[bytes]) -> None:
        """Tools from the turn's facts (read from its table's columns: this runs on every
        turn); vector store ids from its request bytes (only when it offers file_search,
        and never parsed)."""
        c = self._cols
        if c is None or c.table is not table or c.version != table.version:
            c = self._cols = Columns(table)
        qi = c.req_row[row]
        if qi < 0:
            return
        self._put(c.index[row], self._number_of(c.values[c.q_tools[qi]], ids))

    def _number_of(self, offered: tuple[Any, ...], ids: Sequence[bytes]) -> int:
        """The number of the configuration offering `offered` with these quoted ids."""
        tools = self._tools.get(offered)
        if tools is None:
            tools = self._tools[offered] = frozenset(_tool_name(x) for x in offered)
        stores: tuple[bytes, ...] = ()
        if "file_search" in tools and ids:
            stores = tuple(m for m in ids if m[:3] == b"vs_")
        key = (tools, stores)
        number = self._number.get(key)
        if number is None:
            number = self._number[key] = len(self._made)
            self._made.append(ToolConfig(tools, frozenset(m.decode() for m in stores)))
            if number > 0xFFFF and self._ids.typecode == "H":
                self._ids = array("I", self._ids)
        return number

    def see_rows(self, table: Any, rows: Sequence[int], same: bool | None = None) -> None:
        """`see_row` of each of `rows` (in order) with its request's ids from the table's
        `quoted_ids` column, a column at a time: each distinct (tools offered, ids) pair
        of pool numbers is made a configuration once (a hosted capture has a handful),
        and the turns' numbers are one array when their indices run 1..n, or extend it
        when they run on from the last one held (the ledger built ahead sees a slice at a
        time). `same`: the turns' request rows are that side's rows 0 … n-1 (found here
        when not given)."""
        q = table.requests
        asked = column(table.req_row, rows)
        same = identity(asked) if same is None else same
        keys, of = pairs(through(q.cols["tools_offered"], asked, 0, same),
                         through(q.cols["quoted_ids"], asked, 0, same))
        missing = has_missing(asked)  # turns without a request have none
        values = table.pool.values
        number = {k: self._number_of(values[of[k][0]] or (), values[of[k][1]] or ())
                  for k in (set(compress(keys, map(is_row, asked))) if missing else of)}
        index = column(table.index, rows)
        n = len(index)
        if not len(self._ids) and not self._map and n and index[0] == 1 and \
                index[-1] == n and \
                index.tobytes() == array(index.typecode, range(1, n + 1)).tobytes():
            numbers = array(self._ids.typecode, [0])  # turn 0: none
            if len(number) == 1 and not missing:
                numbers.extend(array(numbers.typecode, number.values()) * n)
            else:
                numbers.extend(map(number.get, keys, repeat(0, n)))
                for p in compress(range(n), map((0).__gt__, asked)) \
                        if missing else ():
                    numbers[p + 1] = 0
            self._ids = numbers
            return
        held = self._ids
        at = len(held)
        if not missing and not self._map and n and index[0] == at and \
                index[-1] == at + n - 1 and \
                index.tobytes() == array(index.typecode, range(at, at + n)).tobytes():
            # `_put` of each would append, in order.
            if len(number) == 1:
                held.extend(array(held.typecode, number.values()) * n)
            else:
                held.extend(array(held.typecode, map(number.__getitem__, keys)))
            return
        for i, k, qi in zip(index, keys, asked, strict=True):
            if qi >= 0:
                self._put(i, number[k])

    def _put(self, index: int, number: int) -> None:
        held = self._ids
        if index == len(held):
            held.append(number)
        elif 0 <= index < len(held):
            held[index] = number
        elif len(held) < index <= len(held) + 1024:
            held.extend(array(held.typecode, bytes(held.itemsize * (index - len(held)))))
            held.append(number)
        else:
            self._map[index] = number

    def get(self, index: int) -> ToolConfig | None:
        """The configuration of turn `index` (None: no request, or not seen)."""
        number = self._map.get(index) if self._map else None
        if number is None:
            held = self._ids
            number = held[index] if 0 <= index < len(held) else 0
        return self._made[number]

    def clear(self) -> None:
        self._ids = array("H")
        self._map.clear()
