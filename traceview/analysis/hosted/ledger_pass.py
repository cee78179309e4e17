"""The pass that builds the carried-context ledger (analysis/hosted/ledger.py) from the
analysed turns, one conversation at a time.

Within a conversation the turns are walked in index order. A deposit opens a source of
the tokens it left unexplained (attributed to the hosted calls that explain it); a hosted
call whose results were captured, and that no deposit accounts for, opens a source on the
next billed turn that leaves tokens unexplained. Every billed turn after that is charged
for every source still open, priced at the turn's own cached/fresh split, until a
compaction (explicit or likely) ends them all.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from traceview.analysis.columns import Columns
from traceview.analysis.hosted.growth import PROJECT_TURNS, growth_of
from traceview.analysis.hosted.ledger import Ledger
from traceview.analysis.hosted.ledger_store import HOSTED, Meta
from traceview.analysis.hosted.tools import Configs, ToolConfig, outlived
from traceview.analysis.pricing import Pricing
from traceview.analysis.reports import table_rows
from traceview.analysis.turn_columns import Attribution, TurnColumns
from traceview.analysis.turn_report import TurnReport
from traceview.capture.model import Turn as turn_view
from traceview.capture.scan import ids_in
from traceview.wire import CALL_TOOL

ENDS = ("compaction", "compaction_likely")

ReadRaw = Callable[[Any], bytes | None]


def build_ledger(turns: Sequence[TurnReport], pricing: Pricing | None,
                 bills: dict[str, float | None] | None = None,
                 read_raw: ReadRaw | None = None, project: int = PROJECT_TURNS) -> Ledger:
    """The ledger of every conversation in `turns` (any order; grouped by conversation key,
    in the order keys are first seen).

    `bills` maps a conversation key to its cost, for the share of the bill. A request's
    tool configuration is read from the turn table, with the vector stores it quotes as
    found when its lines were read, else in its bytes (`read_raw(ref)`): the ledger needs
    nothing of the other passes, so it can be built beside them.
    """
    ledger = Ledger(project)
    rates = Rates(pricing)
    bills = bills or {}
    configs = Configs()
    tables = [_Table(cols, rows, read_raw, configs) for cols, rows in table_rows(turns)]
    for key, at in _by_conversation(tables).items():
        # One conversation's turns at a time, each read once from the columns: no view
        # of a turn is made, and none is held for the whole pass.
        read = sorted((tables[t].read(row) for t, row in zip(at[::2], at[1::2],
                                                             strict=True)), key=_turn_index)
        _Walk(ledger, read, rates).run(key, bills.get(key))
    ledger._seal()
    return ledger


def _by_conversation(tables: Sequence[_Table]) -> dict[str, array[int]]:
    """Each conversation key's turns as (table, row) pairs flattened into one array (4
    bytes each: a list of ints was most of the pass's memory), keys in the order first
    seen."""
    out: dict[str, array[int]] = {}
    for t, table in enumerate(tables):
        keys, conv = table.cols.keys, table.cols.conv
        for row in table.rows:
            key = keys[conv[row]]
            at = out.get(key)
            if at is None:
                at = out[key] = array("I")
            at.append(t)
            at.append(row)
    return out


def _turn_index(r: _Read) -> int:
    return r.turn


def end_of(markers: Sequence[str]) -> str | None:
    """The marker that ends carried context on a turn (a compaction), or None."""
    return next((e for e in ENDS if e in markers), None) if markers else None


class Rates:
    """A turn's per-token input price at its own cached/fresh split (apportioned), with
    each model's two prices looked up once (every carrying turn asks)."""

    def __init__(self, pricing: Pricing | None) -> None:
        self.pricing = pricing
        self._prices: dict[str | None, tuple[float, float] | None] = {}

    def prices(self, model: str | None) -> tuple[float, float] | None:
        """(cached input price, input price) of `model`; None: not priced."""
        if model not in self._prices:
            prices = self.pricing.model_prices(model) if self.pricing is not None else None
            got = None if prices is None or "input" not in prices else (
                prices.get("cached_input", prices["input"]), prices["input"])
            if len(self._prices) >= 1024:  # a hostile capture's models: not remembered
                return got
            self._prices[model] = got
        return self._prices[model]

    def __call__(self, model: str | None, cached: int | None,
                 input_tokens: int) -> float | None:
        if self.pricing is None or not input_tokens:
            return None
        got = self.prices(model)
        if got is None:
            return None
        cached_price, price = got
        cached_share = min(max((cached or 0) / input_tokens, 0.0), 1.0)
        return (cached_share * cached_price + (1 - cached_share) * price) / 1e6


class Attributed(NamedTuple):
    """A deposit's attribution as the ledger reads it."""

    turns: Sequence[int]
    hosted_calls: Sequence[str | None]
    types: Sequence[str]
    evidence_missing: bool
    include: Sequence[str]


def attributed(a: Attribution | dict[str, Any] | None) -> Attributed | None:
    """A deposit's attribution as the analyzer found it, or from the report's dict (None
    when it has none)."""
    if type(a) is Attribution:
        return Attributed(a.turns, a.hosted_calls, a.types, a.evidence_missing, a.include)
    if not a:
        return None
    assert isinstance(a, dict)
    return Attributed(a.get("turns") or (), a.get("hosted_calls") or (), a.get("types") or (),
                      bool(a.get("evidence_missing")), a.get("include") or ())


class _Active(NamedTuple):
    """A source still carried: its number, the configuration it came from, its id."""

    i: int
    config: ToolConfig | None
    id: str


class _Walk:
    """One conversation's walk: the sources open, the captured calls awaiting a billed
    turn, and the configuration of each turn (read once)."""

    def __init__(self, ledger: Ledger, read: list[_Read], rates: Rates) -> None:
        self.ledger = ledger
        self.read = read  # the conversation's turns, in index order
        self.rates = rates
        self.position = {r.turn: j for j, r in enumerate(read)}
        self.configs: dict[int, ToolConfig | None] = {}
        self.active: list[_Active] = []
        self.pending: list[tuple[int, str | None, str | None]] = []  # (turn, type, id)
        self.absorbed: set[str] = set()  # hosted calls a deposit already accounts for
        self.configured = False  # an open source knows the tools it came from
        # The outliving notes by the identity of a turn's configuration (a capture shares
        # a handful), while `active` holds: (the configuration, its notes).
        self.notes: dict[int, tuple[ToolConfig | None, list[dict[str, Any]]]] = {}

    def run(self, key: str, bill: float | None) -> None:
        """Append the conversation's growth, sources and charges to the ledger."""
        read = self.read
        owned = next((o for r in reversed(read) if (o := r.table.owned(r.row)) is not None),
                     None)
        growth = growth_of([r.input for r in read], [r.end for r in read], owned)
        self.ledger._open(key, bill, growth)
        if any(r.calls or r.deposit for r in read):  # only these can carry anything
            attributions = {r.turn: attributed(r.table.attribution(r.row)) for r in read
                            if r.deposit}
            for a in attributions.values():
                if a is not None:
                    self.absorbed.update(c for c in a.hosted_calls if c)
            for r in read:
                self.step(r, attributions.get(r.turn))
            for s in self.active:
                self.ledger._s_stop[s.i] = len(self.ledger._c_turn)
        self.ledger._close()

    def step(self, r: _Read, a: Attributed | None) -> None:
        """One turn: end the carry, open a deposit's (attributed to `a`) or captured calls'
        source, charge the turn, then note its captured calls."""
        if r.end is not None:
            self.end(r.turn, r.end)
        if r.deposit:
            unexplained = r.table.unexplained(r.row)
            if unexplained and unexplained > 0:
                self.open(self.deposit_source(r.turn, unexplained, a))
        if self.pending and r.input is not None:
            if not r.deposit:
                unexplained = r.table.unexplained(r.row)
                if unexplained and unexplained > 0:
                    self.open(self.hosted_source(r.turn, unexplained))
            self.pending = []
        if r.input is not None and self.active:
            self.charge(r)
        for kind, cid in r.calls:
            if cid not in self.absorbed:
                self.pending.append((r.turn, kind, cid))

    def end(self, index: int, marker: str) -> None:
        """A compaction on turn `index` ends every open source and drops pending calls."""
        led = self.ledger
        for s in self.active:
            led._ended[s.i] = (index, marker)
            led._s_stop[s.i] = len(led._c_turn)
        self.active = []
        self.configured = False
        self.notes = {}
        self.pending = []

    def open(self, source: _Active) -> None:
        """A source opens: it is charged on every billed turn from this one on."""
        self.active.append(source)
        self.configured = self.configured or source.config is not None
        self.notes = {}

    def charge(self, r: _Read) -> None:
        """Charge turn `r` for every open source, and note sources whose tools it no longer
        offers as it did."""
        assert r.input is not None
        k = self.ledger._add_charge(r.turn, self.rates(r.table.model(r.row), r.cached,
                                                        r.input))
        if not self.configured:
            return
        here = self.config(r.turn)
        got = self.notes.get(id(here))
        if got is None or got[0] is not here:  # the same sources and configuration give
            got = self.notes[id(here)] = (here, [  # the same notes
                {"source": s.id, "reason": why} for s in self.active
                if s.config is not None and (why := outlived(s.config, here))])
        if got[1]:
            self.ledger._outlived[k] = got[1]

    def config(self, index: int) -> ToolConfig | None:
        """The tool configuration of the conversation's turn `index`."""
        if index not in self.configs:
            r = self.read[self.position[index]]
            self.configs[index] = r.table.config(r.row)
        return self.configs[index]

    def deposit_source(self, index: int, tokens: int, a: Attributed | None) -> _Active:
        """The source of a deposit on turn `index`, from its attribution."""
        if a is None:
            a = Attributed((), (), (), False, ())
        origin = [int(x) for x in a.turns]
        types = tuple(a.types)
        made = self.origin_config(origin, types)
        i = self.ledger._add_source(0, index, int(tokens), origin, [c for c in a.hosted_calls
                                                                    if c],
                                    (made, types, tuple(a.include)), a.evidence_missing)
        return _Active(i, made, self.ledger._source_id(i))

    def hosted_source(self, index: int, tokens: int) -> _Active:
        """The source of the captured calls pending, first billed on turn `index`."""
        pending = self.pending
        origin = sorted({o for o, _t, _i in pending})
        types = tuple(sorted({kind or "" for _o, kind, _i in pending}))
        made = self.origin_config(origin, types)
        meta: Meta = (made, types, ())
        i = self.ledger._add_source(HOSTED, index, tokens, origin,
                                    [cid for _o, _t, cid in pending if cid], meta, False)
        return _Active(i, made, self.ledger._source_id(i))

    def origin_config(self, origin: list[int], types: Sequence[str]) -> ToolConfig | None:
        """The tools (and vector stores) the source's hosted calls came from: its origin
        turns in this conversation."""
        wanted = frozenset(CALL_TOOL[t] for t in types if t in CALL_TOOL)
        if not wanted:
            return None
        stores: set[str] = set()
        if "file_search" in wanted:
            for i in origin:
                c = self.config(i) if i in self.position else None
                if c is not None:
                    stores |= c.vector_store_ids
        return ToolConfig(wanted, frozenset(stores))


def _count(n: int) -> int | None:
    """A nullable count column's value (negative: unknown)."""
    return None if n < 0 else n


class _Read(NamedTuple):
    """What the walk reads of every turn, read once from the columns: its markers (the one
    that ends a carry, whether it is a deposit), billed and cached input, and its captured
    hosted calls (type, id); the rest (`table`'s) only for the turns that need it."""

    table: _Table
    row: int
    turn: int  # its index
    end: str | None
    deposit: bool
    input: int | None
    cached: int | None
    calls: Sequence[tuple[str, str | None]]


class _Table:
    """The analysed turns of one turn table (their rows, in report order), read from the
    analysis's columns and the table's: the facts the walk needs, and nothing made per
    turn beyond its `_Read`."""

    def __init__(self, cols: TurnColumns, rows: Sequence[int], read_raw: ReadRaw | None,
                 configs: Configs) -> None:
        self.cols, self.rows = cols, rows
        self.c = Columns(cols.table)
        self.read_raw = read_raw
        self.configs = configs

    def read(self, row: int) -> _Read:
        cols, c = self.cols, self.c
        markers = cols.marker_lists[cols.marker_ids[row]]
        deposit = bool(markers) and "deposit" in markers
        s = c.res_row[row]
        if s < 0:
            return _Read(self, row, c.index[row], end_of(markers), deposit, None, None, ())
        calls = c.s_hosted.picked(s, "captured") if s in c.s_hosted else ()
        return _Read(self, row, c.index[row], end_of(markers), deposit, _count(c.s_in[s]),
                     _count(c.s_cached[s]), calls)

    def owned(self, row: int) -> int | None:
        return self.cols.count("owned_state_bytes", row)

    def unexplained(self, row: int) -> int | None:
        """Billed input minus expected input (TurnReport.unexplained_tokens)."""
        s = self.c.res_row[row]
        inp = _count(self.c.s_in[s]) if s >= 0 else None
        expected = self.cols.count("expected_input", row)
        return None if inp is None or expected is None else inp - expected

    def attribution(self, row: int) -> Attribution | dict[str, Any] | None:
        """A deposit's attribution as found (not made into the report's dict)."""
        return self.cols.attribution_of(row)  # type: ignore[no-any-return]

    def model(self, row: int) -> str | None:
        """The response's model, else the request's."""
        c = self.c
        s, q = c.res_row[row], c.req_row[row]
        model = c.values[c.s_model[s]] if s >= 0 else None
        return model or (c.values[c.q_model[q]] if q >= 0 else None)

    def config(self, row: int) -> ToolConfig | None:
        """The tool configuration of the turn's request (None: no request, or no tools
        column), with the vector stores it quotes when it offers file_search."""
        q = self.c.req_row[row]
        offered = self.c.values[self.c.q_tools[q]] if q >= 0 else None
        if offered is None:
            return None
        return self.configs.of(offered, self.request_ids(row) if "file_search" in offered
                               else ())

    def request_ids(self, row: int) -> Sequence[bytes]:
        """The object ids the turn's request quotes: as found when its lines were read,
        else in its bytes."""
        found = self.c.table.request_ids(row)
        if found is not None:
            return found
        ref = turn_view(self.c.table, row).request
        raw = self.read_raw(ref) if ref is not None and self.read_raw is not None else None
        return ids_in(raw, len(raw)) if raw else ()
