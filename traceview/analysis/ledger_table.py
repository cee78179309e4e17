"""The carried-context ledger's pass over the turn table's columns (analysis/ledger.py
`build_ledger` takes it for the analysis's turns over one table; any other sequence of
turns takes the general pass over their views, `ledger._conversation`).

The ledger runs once at the end of a load, serially, over every turn of captures with a
hundred thousand turns: here each column is read in C at a batch's rows, a turn is a few
list reads, a charge is its position (priced per batch), and what repeats — model prices,
marker lists, source configurations, growth sums — is worked out once. The result is the
general pass's, value for value (tests/core/test_ledger_table_pass.py).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from itertools import compress, islice, pairwise, repeat
from math import fsum
from operator import ge, gt, is_, itemgetter, lt, mul, ne, or_, sub, truediv
from typing import Any

from traceview.analysis.columns import Columns
from traceview.analysis.ledger import (
    _ENDS,
    _NO_END,
    _NO_FIT,
    _NONE,
    _ORIGIN_CONFIGS,
    _WEB_ALIASES,
    CALL_TOOL,
    Ledger,
    ToolConfig,
    _growth_parts,
    _outlived_memo,
    _Parts,
    _parts,
    _Rates,
    _widened,
)
from traceview.analysis.shared import shared
from traceview.capture.calls import Calls

_DEPOSITS = bytes(k & 1 for k in range(256))  # a marker code (_TablePass.code): a deposit?

_BATCH = 4096  # rows per batch of whole conversations: the pass's lists stay this small
_MISS = object()


def from_table(ledger: Ledger, tc: Any, rows: Sequence[int], rate_of: _Rates,
                config_of: Callable[[int], ToolConfig | None] | None, project: int,
                bills: dict[str, float | None]) -> None:
    """The ledger of the analysis's turns over one table (`tc`: its TurnColumns), read from
    the columns in batches of whole conversations (at most `_BATCH` turns, so the pass's
    lists stay small however large the capture).

    Per batch, each column the pass reads is picked at the batch's rows in C (a slice of a
    contiguous range of rows, else one itemgetter); a conversation is a run of positions;
    growth is mapped over the runs; one loop over the turns opens and closes sources and
    notes each charge as its position — a plain turn (no marker that opens or ends a carry,
    no hosted call) costs a few list reads — and the charges are priced in one
    comprehension at the end of the batch, the notes on outliving tools judged once for
    it. The same result as `_conversation` over each conversation's views
    (tests/core/test_ledger_table_pass.py compares on every fixture, in any order of the
    turns, with tiny batches)."""
    n = len(rows)
    if not n:
        return
    conv, keys = tc.conv, tc.keys
    if type(rows) is range and rows.step == 1:
        cv: Sequence[int] = conv[rows.start:rows.stop]
    else:
        cv = array(conv.typecode, map(conv.__getitem__, rows))
    bounds = list(compress(range(1, n), map(ne, cv, islice(cv, 1, None))))
    ids = set(cv)
    order: Sequence[int]
    if len(bounds) + 1 == len(ids) and len({keys[v] for v in ids}) == len(ids):
        order, starts = rows, [0, *bounds, n]  # each conversation one run (the usual case)
    else:  # interleaved: grouped by key, in the order keys are first seen
        by_key: dict[str, array[int]] = {}
        for r, v in zip(rows, cv, strict=True):
            key = keys[v]
            at = by_key.get(key)
            if at is None:
                at = by_key[key] = array("i")
            at.append(r)
        order, starts = array("i"), [0]
        for at in by_key.values():
            order.extend(at)
            starts.append(len(order))
    del cv, bounds, ids
    run = _TablePass(ledger, tc, rate_of, config_of, project, bills)
    t, last = 0, len(starts) - 1
    while t < last:
        u = max(bisect_right(starts, starts[t] + _BATCH, t + 1) - 1, t + 1)
        a = starts[t]
        run.batch(order[a:starts[u]], [s - a for s in starts[t:u + 1]])
        t = u


class _TablePass:
    """What a batch reads, bound once for the pass, and what it remembers across batches:
    each model's prices, each marker list's code, each source type's tools wanted, each
    (configuration, types, include) pool index (see `_from_table`)."""

    def __init__(self, ledger: Ledger, tc: Any, rate_of: _Rates,
                 config_of: Callable[[int], ToolConfig | None] | None, project: int,
                 bills: dict[str, float | None]) -> None:
        self.ledger, self.tc, self.rate_of, self.config_of = ledger, tc, rate_of, config_of
        self.project, self.bills = project, bills
        c = self.c = Columns(tc.table)
        s_in = array(c.s_in.typecode, c.s_in)
        s_in.append(-1)  # a turn without a response (row -1) reads this: None
        self.s_in = s_in
        lists = tc.marker_lists
        self.ends = [_ENDS(m) if m else _NO_END for m in lists]
        # A marker list's code: 1 a deposit, 2 a marker that ends carried context.
        self.code = [(1 if d else 0) | (2 if e is not None else 0) for d, e in self.ends]
        self.where_span = (0, -1)  # the response rows `_located` covers
        self.froms: dict[int, ToolConfig] = {}  # the batch's sources' configurations
        self.code_table = bytes(self.code[m] if m < len(self.code) else 0 for m in range(256))
        self.calls = c.s_hosted
        self.prices: dict[int, tuple[float, float] | None] = {}  # by response model number
        self.wanted: dict[tuple[str, ...], Any] = {}  # a source's types -> the tools wanted
        self.metas: dict[tuple[int, tuple[str, ...], tuple[str, ...]], int] = {}
        self.cfg: list[ToolConfig | None] | None = None  # the batch's (`_cfgs`)
        self.offered: dict[int, tuple[Any, ToolConfig]] = {}  # `_offered`, by tools
        self._idx: list[int] = []
        self._rows: list[int] = []
        self._lo = self._hi = 0
        # The batch's runs of charges whose sources' configuration is known (`_carry`).
        self.runs: list[tuple[int, int, tuple[tuple[int, ToolConfig | None, None], ...]]] = []

    # ---- a turn's hosted calls
    def _located(self, srow: list[int]) -> dict[int, Any]:
        """Response row -> where its calls are: a position in the calls' columns, or (a row
        set out of order) the calls themselves."""
        calls = self.calls
        if type(calls) is not Calls:  # a plain dict of calls by row
            self.where_span = (0, -1)
            return {s: calls[s] for s in srow if s in calls}
        crow = calls.rows
        lo, hi = min(srow), max(srow)
        self.where_span = (lo, hi)
        k0, k1 = bisect_left(crow, lo), bisect_right(crow, hi)
        where: dict[int, Any] = dict(zip(crow[k0:k1], range(k0, k1), strict=True))
        for s in calls.changed:
            if lo <= s <= hi:
                where.pop(s, None)
                if s in calls:
                    where[s] = calls.get(s, ())
        return where

    def _captured(self, at: Any) -> list[tuple[str | None, str | None]]:
        """(type, id) of each call at `at` (`_located`) whose evidence was captured."""
        if type(at) is not int:
            return [(x.type, x.id) for x in at if x.evidence == "captured"]
        calls = self.calls
        ends, values, shape, ids = calls.ends, calls.pool.values, calls.shape, calls.ids
        out = []
        for q in range(ends[at - 1] if at else 0, ends[at]):
            v = values[shape[q]]
            if v[2] == "captured":
                out.append((v[0], ids.get(q)))
        return out

    def _locate(self, si: int) -> Any:
        """`_located` of one response row outside the batch's: where its calls are, or
        None (no calls)."""
        calls = self.calls
        if type(calls) is not Calls:
            return calls.get(si) or None
        if calls.changed and si in calls.changed:
            return calls.get(si, ()) or None
        crow = calls.rows
        k = bisect_left(crow, si)
        return k if k < len(crow) and crow[k] == si else None

    def _attribution(self, r: int, where: dict[int, Any]) -> _Parts | None:
        """TurnColumns.attribution_of(r) as `_parts` gives it, read from the columns: the
        hosted turns' calls found where the batch located them (`where`), each call's
        shape judged once."""
        tc = self.tc
        if tc.attribution and r in tc.attribution:
            got = _parts(tc.attribution_of(r))
            return None if got is None else ([int(x) for x in got[0]], *got[1:])
        attributed = tc.attributed
        if r >= len(attributed) or (at := attributed[r]) < 0:
            return None
        held = tc.attributed_rows
        hosted = held[at + 1:at + 1 + held[at]]
        c = self.c
        res_row = c.res_row
        w_lo, w_hi = self.where_span
        ids: list[str | None] = []
        types: set[Any] = set()
        missing = False
        flags: set[Any] = set()
        for x in hosted:
            si = res_row[x]
            loc = where.get(si)
            if loc is None and not w_lo <= si <= w_hi:
                loc = self._locate(si)
            if loc is None:
                continue
            if type(loc) is int:
                calls = self.calls
                texts = calls.ids
                buf, starts, lens, shape, values = (texts.buf, texts.starts, texts.lens,
                                                    calls.shape, calls.pool.values)
                got = []
                for q in range(calls.ends[loc - 1] if loc else 0, calls.ends[loc]):
                    n = lens[q]  # Texts.get, inline
                    if n < 0:
                        cid = None
                    else:
                        try:
                            cid = buf[(b := starts[q]):b + n].decode()
                        except UnicodeDecodeError:  # a lone surrogate
                            cid = texts.get(q)
                    ids.append(cid)
                    got.append(values[shape[q]])
            else:
                ids.extend([h.id for h in loc])
                got = [(h.type, None, h.evidence, h.include) for h in loc]
            for v in got:  # a pooled shape: (type, status, evidence, include, …)
                types.add(v[0])
                if v[2] == "missing":
                    missing = True
                    inc = v[3]
                    if inc:
                        qi = c.req_row[x]
                        if inc not in (c.values[c.q_include[qi]] if qi >= 0 else ()):
                            flags.add(inc)
        return (list(map(c.index.__getitem__, hosted)), ids,
                tuple(types) if len(types) == 1 else tuple(sorted(types)), missing,
                tuple(sorted(flags)) if flags else ())

    # ---- a conversation's tool configurations (`_carry` sets _idx, _rows, _lo, _hi)
    def _cfgs(self) -> list[ToolConfig | None]:
        """Each turn's configuration in the batch, by position (`config_of`, else the tools
        its request offered): asked once per batch, when a source or a note needs one."""
        got = self.cfg
        if got is None:
            idx, rows = self._idx, self._rows
            got = list(map(self.config_of, idx)) if self.config_of else [None] * len(idx)
            if any(map(is_, got, repeat(None))):
                offered = self._offered
                got = [h if h is not None else offered(r)
                       for h, r in zip(got, rows, strict=True)]
            self.cfg = got
        return got

    def _offered(self, row: int) -> ToolConfig | None:
        """The tools the turn's request offered, as a configuration (no vector stores)."""
        c = self.c
        qi = c.req_row[row]
        offered = c.values[c.q_tools[qi]] if qi >= 0 else ()
        if not offered:
            return None
        got = self.offered.get(id(offered))
        if got is None or got[0] is not offered:
            got = self.offered[id(offered)] = (offered, ToolConfig(frozenset(
                "web_search" if x in _WEB_ALIASES else x for x in offered)))
        return got[1]

    def _made(self, origin: list[int], types: tuple[str, ...],
              check: bool) -> ToolConfig | None:
        """`_origin_config`: the tools (and vector stores) the source's calls came from;
        `check`: an origin turn may lie outside the conversation."""
        wanted = self.wanted.get(types, _MISS)
        if wanted is _MISS:
            wanted = frozenset(CALL_TOOL[t] for t in types if t in CALL_TOOL) or None
            if len(self.wanted) < 1024:
                self.wanted[types] = wanted
        if wanted is None:
            return None
        stores: frozenset[str] = frozenset()
        if "file_search" in wanted:  # type: ignore[operator]
            idx, lo, hi, cfg = self._idx, self._lo, self._hi, self._cfgs()
            for i in origin:
                k = bisect_right(idx, i, lo, hi) - 1  # (the last turn with that index)
                if k < lo or idx[k] != i:
                    continue  # not a turn of this conversation
                got = cfg[k]
                if got is not None and got.vector_store_ids:
                    stores = got.vector_store_ids if not stores else \
                        stores | got.vector_store_ids
        key = (wanted, stores)
        made = _ORIGIN_CONFIGS.get(key)  # type: ignore[arg-type]
        if made is None:
            made = ToolConfig(*key)  # type: ignore[arg-type]
            if len(_ORIGIN_CONFIGS) < 4096:
                _ORIGIN_CONFIGS[key] = made  # type: ignore[index]
        return made

    def _meta(self, made: ToolConfig | None, types: tuple[str, ...],
              include: tuple[str, ...]) -> int:
        """The ledger's pool index of (configuration, types, include), remembered by the
        configuration's identity (a frozen dataclass hashes its fields on every call)."""
        key = (id(made), types, include)
        got = self.metas.get(key)
        led = self.ledger
        if got is not None and led._pool[got][0] is made:
            return got
        meta = (made, types, include)
        got = led._pooled.get(meta)
        if got is None:
            got = led._share((made, shared(types), shared(include)))
        if len(self.metas) < 4096:
            self.metas[key] = got
        return got

    def _deposit(self, index: int, tokens: int, a: _Parts | None,
                 at: int) -> tuple[int, ToolConfig | None, None]:
        """`_deposit_source`, the same columns appended."""
        turns, calls, types, missing, include = a if a is not None else ((), (), (), False, ())
        origin = turns if type(turns) is list else [int(x) for x in turns]
        types = tuple(types)
        include = tuple(include)
        made = self._made(origin, types, True)
        if made is not None:
            self.froms[id(made)] = made
        i = self.ledger._add_source(0, 0, index, tokens, origin, list(filter(None, calls)),
                                    types, missing, include, made, at,
                                    self._meta(made, types, include))
        return i, made, None

    def _hosted(self, index: int, pending: list[tuple[int, str | None, str | None]],
                tokens: int, at: int) -> tuple[int, ToolConfig | None, None]:
        """`_hosted_source`, the same columns appended."""
        if len(pending) == 1:
            o, kind, cid = pending[0]
            origin, types, calls = [o], (kind or "",), [cid] if cid else []
        else:
            origin = sorted({o for o, _t, _i in pending})
            types = tuple(sorted({kind or "" for _o, kind, _i in pending}))
            calls = [cid for _o, _t, cid in pending if cid]
        made = self._made(origin, types, False)  # all in this conversation
        if made is not None:
            self.froms[id(made)] = made
        i = self.ledger._add_source(0, 1, index, tokens, origin, calls, types, False, (),
                                    made, at, self._meta(made, types, ()))
        return i, made, None

    def _price(self, si: int, r: int) -> tuple[float, float] | None:
        """(cached price, price) of the turn's model (its response's, else its request's);
        remembered by the response's model number when that names one."""
        c = self.c
        number = c.s_model[si]
        model = c.values[number]
        if not model:
            qi = c.req_row[r]
            return self.rate_of.prices(c.values[c.q_model[qi]] if qi >= 0 else None)
        got = self.prices[number] = self.rate_of.prices(model)
        return got

    # ---- a batch of whole conversations
    def batch(self, rows: Sequence[int], segs: list[int]) -> None:
        """Conversations at positions [segs[t], segs[t + 1]) of `rows`, in order. Charges
        are gathered as positions (`cj`) and written at the end of the batch, their rates
        in one comprehension; a source's charges start and stop at `base` + a position."""
        c, tc, led = self.c, self.tc, self.ledger
        index, res_row, n = c.index, c.res_row, len(rows)
        pick = _picker(rows)
        idx = pick(index)
        if any(compress(range(1, n), map(gt, idx, islice(idx, 1, None)))):
            rows, idx = self._in_index_order(list(rows), idx, segs)
            pick = _picker(rows)
        srow = pick(res_row)
        s_first = srow[0]
        if s_first >= 0 and srow[-1] - s_first == n - 1 and list(srow) == list(
                range(s_first, s_first + n)):
            # The rows' responses are rows s_first.. of the response side (the usual case:
            # a contiguous range of turns each with its response, in order).
            ins = self.s_in[s_first:s_first + n].tolist()
        else:
            ins = _picker(srow)(self.s_in)
        mids = pick(tc.marker_ids)
        code: Sequence[int]
        if tc.marker_ids.typecode == "B":
            code = bytes(mids).translate(self.code_table)
        else:
            code = list(map(self.code.__getitem__, mids))
        where = self._located(srow)
        has = bytes(map(where.__contains__, srow))
        conv, keys, owned_col = tc.conv, tc.keys, tc.owned_state_bytes
        ends_of, project, bills = self.ends, self.project, self.bills
        self._idx, self._rows, self.cfg = idx, rows, None
        cj: list[int] = []  # the batch's charges: positions of the turns charged
        base = len(led._c_turn)
        heads, tails = segs[:-1], segs[1:]
        names = list(map(keys.__getitem__, map(conv.__getitem__, map(rows.__getitem__, heads))))
        # Growth, per conversation: each one's turns' inputs summed and fitted (`_growth_parts`
        # when a turn is unbilled or a compaction restarts the line), its last owned bytes.
        spans = list(map(slice, heads, tails))
        inputs = list(map(ins.__getitem__, spans))
        sizes = list(map(sub, tails, heads))
        cums = list(map(sum, inputs))
        fits = _fits(sizes, inputs)
        owned = list(map(owned_col.__getitem__, map(rows.__getitem__,
                                                    map(sub, tails, repeat(1)))))
        odd = list(compress(range(len(heads)), map(
            or_, map(or_, map(ge, map(max, map(code.__getitem__, spans)), repeat(2)),
                     map(lt, map(min, inputs), repeat(0))),
            map(lt, owned, repeat(0)))))
        for t in odd:
            lo, hi = heads[t], tails[t]
            last_owned = None
            for j in range(hi - 1, lo - 1, -1):
                if (v := owned_col[rows[j]]) >= 0:
                    last_owned = v
                    break
            cum, _owned, fit, _p = _growth_parts(
                [v if v >= 0 else None for v in inputs[t]], (), last_owned, project,
                [ends_of[m] for m in mids[lo:hi]])
            cums[t] = _NONE if cum is None else cum
            owned[t] = _NONE if last_owned is None else last_owned
            for column, value in zip(fits, fit or _NO_FIT, strict=False):
                column[t] = value
        led._open_many(names, list(map(bills.get, names)), cums, owned, *fits)
        self._carry(rows, idx, srow, ins, mids, code, has, where, heads, tails, cj, base)
        led._seal()
        if cj:
            self._charges(cj, rows, idx, srow, ins)
        if self.runs:
            self._notes(self.runs, rows, idx, cj, base)
            self.runs = []
        self.froms.clear()

    def _charges(self, cj: list[int], rows: list[int], idx: list[int], srow: list[int],
                 ins: list[int]) -> None:
        """Append the charges at positions `cj`: turn, per-token rate (`_rate`, the same
        arithmetic), priced."""
        led = self.ledger
        turns = list(map(idx.__getitem__, cj))
        try:
            more = array(led._c_turn.typecode, turns)
        except OverflowError:
            led._c_turn = _widened(led._c_turn)
            more = array("q", turns)
        led._c_turn.extend(more)
        if self.rate_of.pricing is None:
            led._c_rate.extend(array("d", bytes(8 * len(cj))))
            led._c_priced.extend(bytes(len(cj)))
            return
        c = self.c
        sis = list(map(srow.__getitem__, cj))
        nums = list(map(c.s_model.__getitem__, sis))
        prices, values = self.prices, c.values
        for number in set(nums).difference(prices):
            if values[number]:
                prices[number] = self.rate_of.prices(values[number])
        if all(map(prices.__contains__, nums)):
            got = list(map(prices.__getitem__, nums))
        else:  # a response without a model: its request's
            got = [prices[number] if number in prices else self._price(si, rows[j])
                   for number, si, j in zip(nums, sis, cj, strict=True)]
        # The cached share min(max(cached / input, 0.0), 1.0) of `_rate` (cached None: 0),
        # written as the three cases it has: the same floats.
        ns, ks = map(ins.__getitem__, cj), map(c.s_cached.__getitem__, sis)
        one = got[0]
        made: list[float | None]
        if one is not None and got.count(one) == len(got):  # one model's prices
            c0, p0 = one
            made = [((s := k / n if 0 < k <= n else (0.0 if k <= 0 else 1.0)) * c0
                     + (1 - s) * p0) / 1e6 if n else None for n, k in zip(ns, ks, strict=True)]
        else:
            made = [None if g is None or not n else
                    ((s := k / n if 0 < k <= n else (0.0 if k <= 0 else 1.0)) * g[0]
                     + (1 - s) * g[1]) / 1e6
                    for g, n, k in zip(got, ns, ks, strict=True)]
        if None in made:
            led._c_rate.extend([0.0 if r is None else r for r in made])
            led._c_priced.extend([r is not None for r in made])
        else:
            led._c_rate.extend(made)  # type: ignore[arg-type]
            led._c_priced.extend(b"\x01" * len(made))

    def _in_index_order(self, rows: list[int], idx: list[int],
                        segs: list[int]) -> tuple[list[int], list[int]]:
        """Each conversation's rows sorted by turn index where they are not (stable: as a
        sort of the turns)."""
        index = self.c.index
        for t in range(len(segs) - 1):
            lo, hi = segs[t], segs[t + 1]
            part = idx[lo:hi]
            if any(a > b for a, b in pairwise(part)):
                rows[lo:hi] = sorted(rows[lo:hi], key=index.__getitem__)
        return rows, list(map(index.__getitem__, rows))

    def _carry(self, rows: Sequence[int], idx: Sequence[int], srow: Sequence[int],
               ins: Sequence[int], mids: Sequence[int], code: Sequence[int],
               has: bytes, where: dict[int, Any], heads: list[int], tails: list[int],
               cj: list[int], base: int) -> None:
        """`_conversation`'s sources and charges of each conversation of the batch, in one
        loop over the batch's turns (a conversation starts at each of `heads`): a charge is
        its position appended to `cj`, its rate made with the batch's (`_charges`); the
        notes on outliving tools are made at the end of the batch (`_notes`), per run of
        charges with the same active sources."""
        led = self.ledger
        s_off, c_off, s_flags = led._s_off, led._c_off, led._s_flags
        n = len(rows)
        deposited = list(compress(range(n), code.translate(_DEPOSITS)
                                  if type(code) is bytes else [k & 1 for k in code]))
        if not deposited and 1 not in has:  # nothing arrives: no source, no charge
            s_off.extend(repeat(len(s_flags), len(heads)))
            c_off.extend(repeat(base, len(heads)))
            return
        # Each deposit's attribution, read once: the calls it accounts for (`absorbed`,
        # by conversation) and, below, its source.
        deposits: dict[int, _Parts | None] = {}
        absorbed_of: dict[int, set[Any]] = {}
        t = 0
        for j in deposited:
            while tails[t] <= j:
                t += 1
            a = deposits[j] = self._attribution(rows[j], where)
            if a:
                got = absorbed_of.get(t)
                if got is None:
                    got = absorbed_of[t] = set()
                got.update(a[1])
        for got in absorbed_of.values():
            got.discard(None)  # (ids that are none absorb none)
            got.discard("")
        expected = self.tc.expected_input
        s_stop, ended, runs = led._s_stop, led._ended, self.runs
        ends_of, captured = self.ends, self._captured
        calls = self.calls
        if type(calls) is Calls:
            c_ends, c_values, c_shape, c_ids = (calls.ends, calls.pool.values, calls.shape,
                                                calls.ids)
            c_buf, c_starts, c_lens = c_ids.buf, c_ids.starts, c_ids.lens
        none: set[Any] = set()
        charge = cj.append
        active: list[tuple[int, ToolConfig | None, None]] = []
        pending: list[tuple[int, str | None, str | None]] = []
        configured = False
        run0 = 0
        absorbed = none
        t, head = -1, 0
        for j in range(n):
            if j == head:  # a conversation starts: the last one closed (Ledger._close)
                if t >= 0:
                    if active:
                        if configured and len(cj) > run0:
                            runs.append((run0, len(cj), tuple(active)))
                        stop = base + len(cj)
                        for i, _c, _id in active:
                            s_stop[i] = stop
                        active = []
                    s_off.append(len(s_flags))
                    c_off.append(base + len(cj))
                t += 1
                head = tails[t]
                self._lo, self._hi = j, head
                pending = []
                configured = False
                run0 = len(cj)
                absorbed = absorbed_of.get(t, none)
            k = code[j]
            inp = ins[j]
            if k:
                if k & 2:
                    if active:
                        if configured and len(cj) > run0:
                            runs.append((run0, len(cj), tuple(active)))
                        run0 = len(cj)
                        end = (idx[j], ends_of[mids[j]][1])
                        stop = base + run0
                        for i, _c, _id in active:
                            ended[i] = end
                            s_stop[i] = stop
                        active = []
                        configured = False
                    pending = []
                if k & 1 and inp >= 0 and (e := expected[rows[j]]) >= 0 and inp - e > 0:
                    if configured and len(cj) > run0:
                        runs.append((run0, len(cj), tuple(active)))
                    run0 = len(cj)
                    active.append(self._deposit(idx[j], inp - e, deposits[j], base + run0))
                    configured = configured or active[-1][1] is not None
            if pending and inp >= 0:
                if not k & 1 and (e := expected[rows[j]]) >= 0 and inp - e > 0:
                    if configured and len(cj) > run0:
                        runs.append((run0, len(cj), tuple(active)))
                    run0 = len(cj)
                    active.append(self._hosted(idx[j], pending, inp - e, base + run0))
                    configured = configured or active[-1][1] is not None
                pending = []
            if inp >= 0 and active:
                charge(j)
            if has[j]:
                at = where[srow[j]]
                if type(at) is int:  # the calls' columns (`_captured`, inline)
                    for q in range(c_ends[at - 1] if at else 0, c_ends[at]):
                        v = c_values[c_shape[q]]
                        if v[2] == "captured":
                            m = c_lens[q]  # Texts.get, inline
                            if m < 0:
                                cid = None
                            else:
                                try:
                                    cid = c_buf[(a := c_starts[q]):a + m].decode()
                                except UnicodeDecodeError:  # a lone surrogate
                                    cid = c_ids.get(q)
                            if cid not in absorbed:
                                pending.append((idx[j], v[0], cid))
                else:
                    for kind, cid in captured(at):
                        if cid not in absorbed:
                            pending.append((idx[j], kind, cid))
        if active:
            if configured and len(cj) > run0:
                runs.append((run0, len(cj), tuple(active)))
            stop = base + len(cj)
            for i, _c, _id in active:
                s_stop[i] = stop
        s_off.append(len(s_flags))
        c_off.append(base + len(cj))

    def _notes(self, runs: list[tuple[int, int, tuple[tuple[int, ToolConfig | None, None],
                                                      ...]]],
               rows: list[int], idx: list[int], cj: list[int], base: int) -> None:
        """The notes on context outliving its tools, per run of charges with the same active
        sources (the batch's): each charged turn's configuration asked once; most often no
        pair of a source's configuration and a turn's gives a note, and that is all. Else
        the same sources and configuration give the same notes, one list (read, never
        changed) for every charge of the run with that configuration."""
        led = self.ledger
        outlived = led._outlived
        cfg = self._cfgs()
        distinct = dict(zip(map(id, cfg), cfg, strict=True)).values()  # a handful
        if not any(_outlived_memo(cf, h) for cf in self.froms.values() for h in distinct):
            return
        js = [cj[p] for first, last, _s in runs for p in range(first, last)]
        every = list(map(cfg.__getitem__, js))
        start = 0
        for first, last, sources in runs:
            heres = every[start:start + last - first]
            start += last - first
            made: dict[int, tuple[Any, list[dict[str, Any]]]] = {}
            for here in heres if heres.count(heres[0]) != len(heres) else heres[:1]:
                if id(here) not in made:
                    made[id(here)] = (here, [
                        {"source": led._source_id(i), "reason": why} for i, cf, _n in sources
                        if cf is not None and (why := _outlived_memo(cf, here))])
            if len(made) == 1:
                notes = made[id(heres[0])][1]
                if notes:
                    outlived.update(zip(range(base + first, base + last), repeat(notes)))
                continue
            for p, here in enumerate(heres, base + first):
                notes = made[id(here)][1]
                if notes:
                    outlived[p] = notes


def _picker(rows: Sequence[int]) -> Callable[[Any], Sequence[int]]:
    """A function giving a column's values at `rows`, in order, read in C: a slice of a
    contiguous range of rows, else one itemgetter made for the rows."""
    if type(rows) is range and rows.step == 1:
        a, b = rows.start, rows.stop
        return lambda col: col[a:b].tolist()  # type: ignore[no-any-return]
    if len(rows) == 1:
        r = rows[0]
        return lambda col: [col[r]]
    return itemgetter(*rows)


def _fits(sizes: list[int], inputs: list[list[int]]) -> tuple[list[Any], ...]:
    """The growth's fitted line of each conversation whose `sizes[t]` turns are all billed
    and none restarts the line (`_growth_parts`: turns 1..m, `_line`'s floats), as the
    ledger's columns (slope, intercept, fitted turns, last turn; 0.0, 0.0, 0, 0 under two
    turns), mapped in C over the conversations."""
    runs = list(map(_RUNS.get, sizes))
    if None in runs:
        runs = [got if got is not None else _run(m) for got, m in zip(runs, sizes, strict=True)]
    xbar, dx, sxx = zip(*runs, strict=True)
    ybar = list(map(truediv, map(fsum, inputs), sizes))
    slope = list(map(truediv, map(fsum, map(map, repeat(mul), dx, map(
        map, repeat(sub), inputs, map(repeat, ybar)))), sxx))
    intercept = list(map(sub, ybar, map(mul, slope, xbar)))
    fitted = sizes[:]
    if 1 in sizes or 0 in sizes:  # no line under two turns
        for t in compress(range(len(sizes)), map(lt, sizes, repeat(2))):
            slope[t], intercept[t], fitted[t] = 0.0, 0.0, 0
    return slope, intercept, fitted, fitted[:]


def _run(m: int) -> tuple[float, list[float], float]:
    """(xbar, x - xbar, sxx) of turns 1..m (`_line`'s sums; sxx 1.0 under two turns, where
    no line is fitted), remembered by length for short conversations (the hosted shape's
    dozen turns; a long one's list is not kept)."""
    x = list(range(1, m + 1))
    xbar = fsum(x) / m if m else 0.0
    dx = [xi - xbar for xi in x]
    got = (xbar, dx, fsum([d * d for d in dx]) if m >= 2 else 1.0)
    if m <= 64:
        _RUNS[m] = got
    return got


_RUNS: dict[int, tuple[float, list[float], float]] = {}  # `_run` by length
