"""The carried-context ledger: what each piece of context that arrived without a request
costs over the rest of its conversation.

A deposit is marked once, on the turn where billed input first jumps. But the deposited
text stays in the stored conversation and is billed again on every later turn until a
compaction rewrites the transcript. This module follows each *source* of such context —
a deposit (attributed to the hosted calls that explain it), or a hosted call whose
results were captured and that no deposit already accounts for — from the turn it is
first billed to the end of the conversation or the first compaction (explicit or likely).

Cost is apportioned: a turn's bill does not say which of its tokens were cached, so the
carried tokens are priced at the turn's own cached/fresh split (cached share = cached
tokens ÷ input tokens). Pure: it reads analysed turns and, through an optional callback,
each request's tool configuration.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise
from math import fsum
from typing import Any, NamedTuple, Protocol

from traceview.analysis.pricing import Pricing
from traceview.analysis.shared import shared
from traceview.analysis.turn_columns import Attribution
from traceview.wire import CALL_TOOL
from traceview.wire import WEB_SEARCH_ALIASES as _WEB_ALIASES

APPORTIONED = ("carried tokens are priced at each turn's own cached/fresh split (cached share "
               "= cached_tokens / input_tokens of that turn); the bill does not say which "
               "tokens were cached, so the split is apportioned")
PROJECTION = ("projection: a straight line fitted (least squares) to billed input per turn "
              "since the last compaction, extended over the next turns; not a measurement")
PROJECT_TURNS = 3
ENDS = ("compaction", "compaction_likely")


class LedgerTurn(Protocol):
    """What the ledger reads of an analysed turn (TurnReport has all of it)."""

    index: int
    conversation_key: str
    markers: list[str]
    attribution: dict[str, Any] | None

    @property
    def unexplained_tokens(self) -> int | None: ...
    @property
    def input_tokens(self) -> int | None: ...
    @property
    def cached_tokens(self) -> int | None: ...
    @property
    def model(self) -> str | None: ...
    @property
    def hosted_calls(self) -> list[dict[str, Any]]: ...
    @property
    def tools_offered(self) -> list[str]: ...
    @property
    def owned_state_bytes(self) -> int | None: ...
    @property
    def request_bytes(self) -> int | None: ...


@dataclass(frozen=True)
class ToolConfig:
    """The tools a request offered, and the vector stores its file_search could read."""

    tools: frozenset[str]
    vector_store_ids: frozenset[str] = frozenset()


def tool_name(kind: str) -> str:
    """A tool type as the ledger compares it (web search's dated aliases are one tool)."""
    return "web_search" if kind in _WEB_ALIASES else kind


def tool_config(body: Any) -> ToolConfig | None:
    """A request body's tool configuration (None when the body is not a request)."""
    if not isinstance(body, dict):
        return None
    tools, stores = set(), set()
    for t in body.get("tools") or []:
        if not isinstance(t, dict) or not isinstance(t.get("type"), str):
            continue
        tools.add("web_search" if t["type"] in _WEB_ALIASES else t["type"])
        for vs in t.get("vector_store_ids") or []:
            if isinstance(vs, str):
                stores.add(vs)
    return ToolConfig(frozenset(tools), frozenset(stores))


class Charge:
    """Carried tokens billed on one turn, and their apportioned cost (made when read: the
    ledger holds its charges as columns)."""

    __slots__ = ("turn", "tokens", "cost_usd")

    def __init__(self, turn: int, tokens: int, cost_usd: float | None) -> None:
        self.turn = turn
        self.tokens = tokens
        self.cost_usd = cost_usd

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "tokens": self.tokens,
                "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6)}


class Source:
    """One piece of context that arrived without a request, and its running bill: a view of
    source `i` of the ledger's columns (made when read; the ledger holds no object per
    source).

    Every turn of a conversation that bills carried context bills every source still
    active, so a source's charges are one run `[start, stop)` of the ledger's charges (its
    conversation's charged turns), priced at each turn's per-token rate."""

    __slots__ = ("_l", "_i")

    def __init__(self, ledger: Ledger, i: int) -> None:
        self._l = ledger
        self._i = i

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Source) and other._l is self._l
                and other._i == self._i)

    def __hash__(self) -> int:
        return hash((id(self._l), self._i))

    @property
    def kind(self) -> str:
        """"deposit" | "hosted_result"."""
        return _KINDS[self._l._s_flags[self._i] & _HOSTED]

    @property
    def conversation(self) -> str:
        led = self._l
        return led._keys[bisect_right(led._s_off, self._i) - 1]

    @property
    def arrived_turn(self) -> int:
        """The first turn billed for it."""
        return self._l._s_arrived[self._i]

    @property
    def tokens(self) -> int:
        """Tokens it adds to each turn that carries it."""
        return self._l._s_tokens[self._i]

    @property
    def evidence_missing(self) -> bool:
        return bool(self._l._s_flags[self._i] & _MISSING)

    @property
    def config(self) -> ToolConfig | None:
        """The tools offered where it came from."""
        return self._l._meta_of(self._i)[0]

    @property
    def _start(self) -> int:
        return self._l._s_start[self._i]

    @property
    def _stop(self) -> int:
        return self._l._s_stop[self._i]

    @property
    def id(self) -> str:
        """deposit@<the turn it arrived on>, hosted_result@<the last turn of its calls>."""
        return self._l._source_id(self._i)

    @property
    def origin_turns(self) -> list[int]:
        return self._l._origin_of(self._i).tolist()

    @property
    def hosted_calls(self) -> list[str]:
        return self._l._calls_of(self._i)

    @property
    def types(self) -> list[str]:
        return list(self._l._meta_of(self._i)[1])

    @property
    def include(self) -> list[str]:
        return list(self._l._meta_of(self._i)[2])

    @property
    def ended_by(self) -> dict[str, Any] | None:
        ended = self._l._ended.get(self._i)
        return None if ended is None else {"turn": ended[0], "kind": ended[1]}

    def _cost(self, k: int) -> float | None:
        led = self._l
        return self.tokens * led._c_rate[k] if led._c_priced[k] else None

    @property
    def charges(self) -> list[Charge]:
        turns, tokens = self._l._c_turn, self.tokens
        return [Charge(turns[k], tokens, self._cost(k)) for k in range(self._start, self._stop)]

    def _later(self) -> list[int]:
        """Positions of the charges after the arrival (the re-bills)."""
        turns, arrived = self._l._c_turn, self.arrived_turn
        return [k for k in range(self._start, self._stop) if turns[k] != arrived]

    @property
    def turns_carried(self) -> int:
        return self._stop - self._start

    @property
    def later_turns(self) -> int:
        """Turns after the arrival that billed it again (the re-bills)."""
        return len(self._later())

    @property
    def tokens_billed(self) -> int:
        return self.tokens * self.turns_carried

    @property
    def tokens_rebilled(self) -> int:
        return self.tokens * self.later_turns

    @property
    def cost_usd(self) -> float | None:
        return _sum(self._cost(k) for k in range(self._start, self._stop))

    @property
    def cost_rebilled_usd(self) -> float | None:
        return _sum(self._cost(k) for k in self._later())

    def to_dict(self) -> dict[str, Any]:
        return _source_dict(self._l, self._i)[0]


def _source_dict(led: Ledger, i: int) -> tuple[dict[str, Any], list[float | None]]:
    """Source `i`'s dict and its charges' costs in order: one walk over its charges for
    every figure (the properties each walk them again)."""
    turns, rate, priced = led._c_turn, led._c_rate, led._c_priced
    tokens = led._s_tokens[i]
    arrived = led._s_arrived[i]
    costs: list[float | None] = []
    later: list[float | None] = []
    charges = []
    for k in range(led._s_start[i], led._s_stop[i]):
        c = tokens * rate[k] if priced[k] else None
        costs.append(c)
        turn = turns[k]
        if turn != arrived:
            later.append(c)
        charges.append({"turn": turn, "tokens": tokens,
                        "cost_usd": None if c is None else round(c, 6)})
    flags = led._s_flags[i]
    _config, types, include = led._pool[led._s_meta[i]]
    ended = led._ended.get(i)
    return {
        "id": led._source_id(i), "kind": _KINDS[flags & _HOSTED], "arrived_turn": arrived,
        "tokens_per_turn": tokens, "origin_turns": led._origin_of(i).tolist(),
        "hosted_calls": led._calls_of(i), "types": list(types),
        "evidence_missing": bool(flags & _MISSING), "include": list(include),
        "turns_carried": len(costs), "later_turns": len(later),
        "tokens_billed": tokens * len(costs), "tokens_rebilled": tokens * len(later),
        "cost_usd": _round(_sum(costs)), "cost_rebilled_usd": _round(_sum(later)),
        "charges": charges,
        "ended_by": None if ended is None else {"turn": ended[0], "kind": ended[1]},
    }, costs


class TurnCarry:
    """What one turn pays for context carried from earlier turns: a view of charge `k` of
    the ledger, in conversation `n` (the account is made when read)."""

    __slots__ = ("_l", "_n", "_k")

    def __init__(self, ledger: Ledger, n: int, k: int) -> None:
        self._l = ledger
        self._n = n
        self._k = k

    @property
    def turn(self) -> int:
        return self._l._c_turn[self._k]

    def _active(self) -> list[Source]:
        led, k = self._l, self._k
        start, stop = led._s_start, led._s_stop
        return [Source(led, i) for i in led._source_range(self._n) if start[i] <= k < stop[i]]

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self._active())

    @property
    def cost_usd(self) -> float | None:
        return _sum(s._cost(self._k) for s in self._active())

    @property
    def charges(self) -> list[tuple[Source, Charge]]:
        turn, k = self.turn, self._k
        return [(s, Charge(turn, s.tokens, s._cost(k))) for s in self._active()]

    @property
    def outlived_tools(self) -> list[dict[str, Any]]:
        return self._l._outlived.get(self._k, [])

    @property
    def arrived(self) -> list[Source]:
        """Sources first billed on this turn."""
        turn = self.turn
        return [s for s in self._active() if s.arrived_turn == turn]

    def account(self) -> list[tuple[int, int, float | None, str | None, int, float | None,
                                    tuple[int, str] | None]]:
        """What the explanation says of this turn (explain._carried), in one walk of the
        conversation's sources and no view made: per source active on this turn, in
        order, (arrived turn, tokens, cost on this turn, and — only for a source that
        arrived on this turn, else None, 0, None, None — its kind, later turns, cost
        re-billed, ended_by as (turn, kind)). The same arithmetic as `charges` and the
        Source properties, in the same order (the floats are the same)."""
        led, k = self._l, self._k
        turn = led._c_turn[k]
        turns, rate, priced = led._c_turn, led._c_rate, led._c_priced
        start, stop, s_tokens, arrived_at, flags = (led._s_start, led._s_stop, led._s_tokens,
                                                    led._s_arrived, led._s_flags)
        out: list[tuple[int, int, float | None, str | None, int, float | None,
                        tuple[int, str] | None]] = []
        for i in led._source_range(self._n):
            a, b = start[i], stop[i]
            if not a <= k < b:
                continue
            n, at = s_tokens[i], arrived_at[i]
            here = n * rate[k] if priced[k] else None
            if at != turn:
                out.append((at, n, here, None, 0, None, None))
                continue
            later, cost = 0, 0.0  # Source.later_turns, Source.cost_rebilled_usd
            for j in range(a, b):
                if turns[j] != at:
                    later += 1
                    if cost is not None:
                        cost = cost + n * rate[j] if priced[j] else None
            out.append((at, n, here, _KINDS[flags[i] & _HOSTED], later, cost,
                        led._ended.get(i)))
        return out

    def to_dict(self) -> dict[str, Any]:
        # One loop over the conversation's sources (a report writes one per carrying turn):
        # the same sums as `tokens` and `cost_usd`, in the same order.
        led, k = self._l, self._k
        turn = led._c_turn[k]
        rate = led._c_rate[k] if led._c_priced[k] else None
        start, stop, s_tokens, arrived_at = (led._s_start, led._s_stop, led._s_tokens,
                                             led._s_arrived)
        tokens, total = 0, 0.0
        known = True
        sources: list[dict[str, Any]] = []
        arrived: list[str] = []
        first, ids = led._ids(self._n)
        for i in led._source_range(self._n):
            if start[i] <= k < stop[i]:
                n = s_tokens[i]
                c = None if rate is None else n * rate
                tokens += n
                if c is None:
                    known = False
                elif known:
                    total += c
                sid = ids[i - first]
                sources.append({"id": sid, "tokens": n,
                                "cost_usd": None if c is None else round(c, 6)})
                if arrived_at[i] == turn:
                    arrived.append(sid)
        return {"tokens": tokens, "cost_usd": round(total, 6) if known else None,
                "sources": sources, "outlived_tools": led._outlived.get(k, []),
                "arrived": arrived}


class ConversationLedger:
    """A conversation's sources and charged turns: a view of conversation `n` of the
    ledger's columns (made when read)."""

    __slots__ = ("_l", "_n")

    def __init__(self, ledger: Ledger, n: int) -> None:
        self._l = ledger
        self._n = n

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ConversationLedger) and other._l is self._l
                and other._n == self._n)

    def __hash__(self) -> int:
        return hash((id(self._l), self._n))

    @property
    def key(self) -> str:
        return self._l._keys[self._n]

    @property
    def sources(self) -> list[Source]:
        led = self._l
        return [Source(led, i) for i in led._source_range(self._n)]

    @property
    def bill_usd(self) -> float | None:
        bill = self._l._bill[self._n]
        return None if bill != bill else bill  # NaN: no bill

    @property
    def growth(self) -> dict[str, Any]:
        return self._l._growth_of(self._n)

    @property
    def tokens(self) -> int:
        return sum(s.tokens_billed for s in self.sources)

    @property
    def cost_usd(self) -> float | None:
        return _sum(s._cost(k) for s in self.sources for k in range(s._start, s._stop))

    @property
    def share_of_cost(self) -> float | None:
        cost = self.cost_usd
        bill = self.bill_usd
        if cost is None or not bill:
            return None
        return round(cost / bill, 4)

    def carries(self) -> Iterator[TurnCarry]:
        """Each turn's account, in the order the turns were billed."""
        led, n = self._l, self._n
        return (TurnCarry(led, n, k) for k in range(led._c_off[n], led._c_off[n + 1]))

    def to_dict(self) -> dict[str, Any]:
        # One walk over each source's charges: its dict, and the conversation's tokens and
        # cost (`tokens`, `cost_usd`: the same sums in the same order).
        led = self._l
        sources = []
        tokens = 0
        cost: float | None = 0.0
        for i in led._source_range(self._n):
            d, costs = _source_dict(led, i)
            sources.append(d)
            tokens += d["tokens_billed"]
            if cost is not None:
                for c in costs:
                    if c is None:
                        cost = None
                        break
                    cost += c
        bill = self.bill_usd
        share = None if cost is None or not bill else round(cost / bill, 4)
        return {"tokens": tokens, "cost_usd": _round(cost), "share_of_cost": share,
                "sources": sources, "growth": self.growth, "apportioned": APPORTIONED}


_KINDS = ("deposit", "hosted_result")
_HOSTED, _MISSING = 1, 2  # a source's flags: its kind (0 deposit), evidence_missing
_NONE = -(1 << 63)  # None in a column of ints
_NAN = float("nan")
_NO_FIT = (0.0, 0.0, 0, 0, 0)  # no fitted line (`_open`)
_CHUNK = 4096  # call ids joined into one string (Ledger._seal) at least this often


def _widened(col: array[int]) -> array[int]:
    """A column of 4-byte ints made 8-byte (a value did not fit: never in practice)."""
    return array("q", col)


class _Conversations(Mapping[str, ConversationLedger]):
    """The ledger's conversations by key: a view made when read."""

    __slots__ = ("_l",)

    def __init__(self, ledger: Ledger) -> None:
        self._l = ledger

    def __getitem__(self, key: str) -> ConversationLedger:
        return ConversationLedger(self._l, self._l._num[key])

    def __contains__(self, key: object) -> bool:
        return key in self._l._num

    def __iter__(self) -> Iterator[str]:
        return iter(self._l._keys)

    def __len__(self) -> int:
        return len(self._l._keys)


class Ledger:
    """Every conversation's sources and charges, as columns (a capture of many short
    conversations made a few Python objects per conversation and per source, most of the
    ledger's memory): per conversation (by its number, in the order first seen) its key,
    bill and growth, and where its sources and charges start; per source its figures, its
    origin turns and hosted calls in flat columns; per charge its turn, per-token rate
    and whether it was priced. `conversations`, `Source`, `TurnCarry` and
    `ConversationLedger` are views made when read."""

    def __init__(self, project: int = PROJECT_TURNS) -> None:
        self.project = project
        # By conversation number.
        self._keys: list[str] = []
        self._num: dict[str, int] = {}
        self._bill = array("d")  # NaN: no bill
        self._cum = array("q")  # _NONE: None
        self._owned = array("q")  # _NONE: None
        # The fitted line (growth): `fitted` 0 when there is none (it needs two turns);
        # the running total it projects from is the cumulative input.
        self._fitted = array("i")
        self._last = array("i")  # the conversation's turns
        self._slope = array("d")
        self._intercept = array("d")
        # Positions (4 bytes: a capture's turns, sources and charges number under 2**31).
        self._s_off = array("i", [0])  # conversation n's sources: [_s_off[n], _s_off[n + 1])
        self._c_off = array("i", [0])  # and its charges
        # By source.
        self._s_flags = bytearray()  # _HOSTED | _MISSING
        self._s_arrived = array("i")  # widened (_widened) if a turn index needs it
        self._s_tokens = array("i")
        self._s_start = array("i")  # its charges: [start, stop)
        self._s_stop = array("i")
        self._s_meta = array("i")  # index in _pool of (config, types, include)
        self._o_off = array("i", [0])  # source i's origin turns: [_o_off[i], _o_off[i + 1])
        self._origin = array("i")
        self._h_off = array("i", [0])  # its hosted call ids: [_h_off[i], _h_off[i + 1])
        # The call ids, joined into one string per chunk (a str per id was ~80 bytes, most
        # of the ledger's memory on a hosted capture): chunk c holds ids from
        # _call_first[c] on, id j ends at character _call_end[j] of its chunk (it starts
        # where the one before it in the chunk ends). A source's ids are in one chunk: ids
        # added since the last chunk (`_loose`) are joined (`_seal`) between sources.
        self._call_text: list[str] = []
        self._call_first = array("i")
        self._call_end = array("i")
        self._loose: list[str] = []
        self._n_calls = 0
        self._ended: dict[int, tuple[int, str]] = {}  # (turn, marker) that ended a carry
        # By charge.
        self._c_turn = array("i")
        self._c_rate = array("d")
        self._c_priced = bytearray()
        self._outlived: dict[int, list[dict[str, Any]]] = {}  # by charge, where any
        # Shared (config, types, include) triples by index (a handful in a capture).
        self._pool: list[tuple[ToolConfig | None, tuple[str, ...], tuple[str, ...]]] = []
        self._pooled: dict[Any, int] = {}
        self._last_ids: tuple[int, tuple[int, list[str]]] = (-1, (0, []))  # `_ids`

    @property
    def conversations(self) -> Mapping[str, ConversationLedger]:
        return _Conversations(self)

    @property
    def turns(self) -> dict[int, TurnCarry]:
        """Turn index -> its account (made when asked: the ledger keeps no per-turn map)."""
        return {c.turn: c for conv in self.conversations.values() for c in conv.carries()}

    def carry(self, key: str, index: int) -> TurnCarry | None:
        """The account of turn `index` of conversation `key` (None: it carries nothing)."""
        n = self._num.get(key)
        if n is None:
            return None
        hi = self._c_off[n + 1]
        k = bisect_left(self._c_turn, index, self._c_off[n], hi)
        return TurnCarry(self, n, k) if k < hi and self._c_turn[k] == index else None

    def turn(self, index: int) -> dict[str, Any]:
        carry = self.turns.get(index)
        return carry.to_dict() if carry is not None else EMPTY_CARRY

    def conversation(self, key: str) -> dict[str, Any] | None:
        conv = self.conversations.get(key)
        return conv.to_dict() if conv is not None else None

    def source_at(self, turn: int) -> list[Source]:
        """Sources first billed on `turn` (what its turn account talks about)."""
        return [Source(self, i) for i, a in enumerate(self._s_arrived) if a == turn]

    # ---- reading the columns
    def _source_range(self, n: int) -> range:
        return range(self._s_off[n], self._s_off[n + 1])

    def _ids(self, n: int) -> tuple[int, list[str]]:
        """(the first source of conversation `n`, its sources' ids): made for the last
        conversation asked (a report writes a conversation's carrying turns one after
        another, each naming its sources), not held per source."""
        got = self._last_ids
        if got[0] != n:
            r = self._source_range(n)
            self._last_ids = got = (n, (r.start, list(map(self._source_id, r))))
        return got[1]

    def _source_id(self, i: int) -> str:
        if not self._s_flags[i] & _HOSTED:
            return f"deposit@{self._s_arrived[i]}"
        return f"hosted@{self._origin[self._o_off[i + 1] - 1]}"

    def _meta_of(self, i: int) -> tuple[ToolConfig | None, tuple[str, ...], tuple[str, ...]]:
        return self._pool[self._s_meta[i]]

    def _origin_of(self, i: int) -> array[int]:
        return self._origin[self._o_off[i]:self._o_off[i + 1]]

    def _calls_of(self, i: int) -> list[str]:
        a, b = self._h_off[i], self._h_off[i + 1]
        if a == b:
            return []
        if self._loose:
            self._seal()
        c = bisect_right(self._call_first, a) - 1
        text, ends = self._call_text[c], self._call_end
        at = ends[a - 1] if a > self._call_first[c] else 0
        out = []
        for j in range(a, b):
            end = ends[j]
            out.append(text[at:end])
            at = end
        return out

    def _seal(self) -> None:
        """Join the ids added since the last chunk into one."""
        loose = self._loose
        if not loose:
            return
        ends = list(accumulate(map(len, loose)))
        try:
            more = array(self._call_end.typecode, ends)
        except OverflowError:  # a chunk past 2**31 characters (huge ids): 8-byte ends
            self._call_end = _widened(self._call_end)
            more = array("q", ends)
        self._call_end.extend(more)
        self._call_first.append(self._n_calls - len(loose))
        self._call_text.append("".join(loose))
        self._loose = []

    def _growth_of(self, n: int) -> dict[str, Any]:
        cum, owned, fitted = self._cum[n], self._owned[n], self._fitted[n]
        fit = None if not fitted else (self._slope[n], self._intercept[n], fitted,
                                       self._last[n], cum)
        return _growth_dict(None if cum == _NONE else cum, None if owned == _NONE else owned,
                            fit, self.project)

    # ---- building
    def _share(self, value: Any) -> int:
        """The pool index of `value`; a hostile capture's distinct values stop being
        shared past a cap, and are each given their own index."""
        got = self._pooled.get(value)
        if got is None:
            got = len(self._pool)
            self._pool.append(value)
            if len(self._pooled) < 4096:
                self._pooled[value] = got
        return got

    def _open(self, key: str, bill: float | None, growth: tuple[Any, ...]) -> int:
        """Start conversation `key`; its sources and charges are appended until `_close`."""
        n = len(self._keys)
        self._keys.append(key)
        self._num[key] = n
        self._bill.append(_NAN if bill is None else bill)
        cumulative, owned, fit, _project = growth
        self._cum.append(_NONE if cumulative is None else cumulative)
        self._owned.append(_NONE if owned is None else owned)
        slope, intercept, fitted, last, _running = fit if fit is not None else (
            0.0, 0.0, 0, 0, 0)  # the running total is `cumulative` (_growth_parts)
        self._fitted.append(fitted)
        self._last.append(last)
        self._slope.append(slope)
        self._intercept.append(intercept)
        return n

    def _open_many(self, keys: list[str], bills: list[float | None], cums: list[int],
                   owned: list[int], slope: list[float], intercept: list[float],
                   fitted: list[int], last: list[int]) -> None:
        """`_open` of each conversation in turn, each column extended once (each value as
        the column holds it: _NONE for None, a fitted line's 0.0, 0.0, 0, 0 for none)."""
        n = len(self._keys)
        self._keys.extend(keys)
        self._num.update(zip(keys, range(n, n + len(keys)), strict=True))
        self._bill.extend([_NAN if b is None else b for b in bills])
        self._cum.extend(cums)
        self._owned.extend(owned)
        self._slope.extend(slope)
        self._intercept.extend(intercept)
        self._fitted.extend(fitted)
        self._last.extend(last)

    def _close(self) -> None:
        self._s_off.append(len(self._s_flags))
        self._c_off.append(len(self._c_turn))

    def _add_source(self, n: int, kind: int, arrived: int, tokens: int,
                    origin: Sequence[int], calls: Sequence[str], types: tuple[str, ...],
                    missing: bool, include: tuple[str, ...], config: ToolConfig | None,
                    at: int | None = None, meta_index: int | None = None) -> int:
        """Source `i`'s columns; its charges start at `at` (default: the next charge);
        `meta_index`: the pool index of (config, types, include) when the caller has it."""
        i = len(self._s_flags)
        self._last_ids = (-1, (0, []))
        self._s_flags.append(kind | (_MISSING if missing else 0))
        try:
            self._s_arrived.append(arrived)
        except OverflowError:
            self._s_arrived = _widened(self._s_arrived)
            self._s_arrived.append(arrived)
        try:
            self._s_tokens.append(tokens)
        except OverflowError:
            self._s_tokens = _widened(self._s_tokens)
            self._s_tokens.append(tokens)
        if at is None:
            at = len(self._c_turn)
        self._s_start.append(at)
        self._s_stop.append(at)
        if meta_index is None:
            meta = (config, types, include)
            got = self._pooled.get(meta)  # (a few distinct in a capture: no sharing needed)
            meta_index = got if got is not None else self._share(
                (config, shared(tuple(types)), shared(tuple(include))))
        self._s_meta.append(meta_index)
        try:
            self._origin.extend(origin)
        except OverflowError:
            self._origin = _widened(self._origin)
            self._origin.extend(origin)
        self._o_off.append(len(self._origin))
        if calls:
            self._loose.extend(calls)
            self._n_calls += len(calls)
            if len(self._loose) >= _CHUNK:
                self._seal()
        self._h_off.append(self._n_calls)
        return i


# ------------------------------------------------------------------------------- building


def build_ledger(turns: Iterable[LedgerTurn], pricing: Pricing | None,
                 config_of: Callable[[int], ToolConfig | None] | None = None,
                 bills: dict[str, float | None] | None = None,
                 project: int = PROJECT_TURNS) -> Ledger:
    """The ledger of every conversation in `turns` (any order; grouped by conversation key).

    `config_of(turn index)` gives a request's tool configuration (read from its body);
    without it, tool configuration is taken from `tools_offered` (no vector store ids).
    `bills` maps a conversation key to its cost, for the share of the bill.
    """
    seq = turns if isinstance(turns, Sequence) else list(turns)
    ledger = Ledger(project)
    bills = bills or {}
    rate = _Rates(pricing)
    cols = _one_table(seq)
    if cols is not None:
        # The analysis's turns (analysis/reports.py): read from the columns at their rows,
        # grouped by the conversation column (analysis/ledger_table.py).
        from traceview.analysis.ledger_table import from_table  # it imports this module

        from_table(ledger, cols, seq.rows(), rate, config_of, project,  # type: ignore[attr-defined]
                   bills)
        ledger._seal()
        return ledger
    # Grouped by position, not by turn: the analysis's turns are views made when read
    # (a TurnReport and the Turn it keeps: ~150 bytes), and a list of every one held for
    # the pass was most of the ledger stage's peak. One conversation's views at a time.
    by_conv: dict[str, array] = {}
    for pos, t in enumerate(seq):
        key = t.conversation_key
        at = by_conv.get(key)
        if at is None:
            at = by_conv[key] = array("i")
        at.append(pos)
    for key, positions in by_conv.items():
        conv_turns = [seq[p] for p in positions]
        if any(a.index > b.index for a, b in pairwise(conv_turns)):  # not in index order
            conv_turns.sort(key=_index)
        _conversation(ledger, key, conv_turns, _read_views(conv_turns), rate, config_of,
                      project, bills.get(key))
    ledger._seal()
    return ledger


def _index(t: LedgerTurn) -> int:
    return t.index


def _one_table(seq: Sequence[Any]) -> Any:
    """The TurnColumns every turn of `seq` is a row of, when `seq` is the analysis's turns
    over one table (analysis/reports.py); None for any other sequence."""
    parts = getattr(seq, "_parts", None)
    if type(parts) is not list or len(parts) != 1 or not hasattr(seq, "rows"):
        return None
    cols = parts[0]
    table = getattr(cols, "table", None)
    return cols if table is not None and hasattr(table, "res_row") else None


class _Facts(NamedTuple):
    """What the ledger reads of each turn of a conversation, by position: index, billed and
    cached input, model, markers, owned-state bytes, whether it has hosted calls, and (a
    function of the position) the (type, id) of its calls whose evidence was captured."""

    idx: list[int]
    inputs: list[int | None]
    cached: list[int | None]
    models: list[str | None]
    markers: list[list[str]]
    ends: list[tuple[bool, str | None]]  # per turn: a deposit?, the marker ending a carry
    owned: list[int | None]
    has_calls: list[bool]
    captured: Callable[[int], list[tuple[str | None, str | None]]]
    unexplained: Callable[[int], int | None]
    # (turns, hosted call ids, types, evidence missing, include) of a deposit, or None.
    attribution: Callable[[int], _Parts | None]


_Parts = tuple[Sequence[Any], Sequence[Any], Sequence[str], bool, Sequence[str]]


def _parts(a: Any) -> _Parts | None:
    """A deposit's attribution as the ledger reads it: from its tuple (turn_columns.py's
    Attribution, read from the columns) or from the report's dict (any other turn)."""
    if not a:
        return None
    if type(a) is Attribution:
        return a.turns, a.hosted_calls, a.types, a.evidence_missing, a.include
    return (a.get("turns") or (), a.get("hosted_calls") or (), a.get("types") or (),
            bool(a.get("evidence_missing")), a.get("include") or ())


def _read_views(turns: Sequence[LedgerTurn]) -> _Facts:
    """A LedgerTurn's facts through its properties (turns not of one analysis's table)."""
    calls = [_calls(t) for t in turns]

    def captured(j: int) -> list[tuple[str | None, str | None]]:
        return [(c.type, c.id) for c in calls[j] if c.evidence == "captured"]

    def unexplained(j: int) -> int | None:
        return turns[j].unexplained_tokens

    def attribution(j: int) -> _Parts | None:
        return _parts(turns[j].attribution)

    markers = [t.markers for t in turns]
    return _Facts([t.index for t in turns], [t.input_tokens for t in turns],
                  [t.cached_tokens for t in turns], [t.model for t in turns], markers,
                  [_ENDS(m) if m else _NO_END for m in markers],
                  [t.owned_state_bytes for t in turns],
                  [bool(c) for c in calls], captured, unexplained, attribution)


class _Rates:
    """`_rate` with the model's two prices looked up once per model (a charge per carrying
    turn asks it)."""

    def __init__(self, pricing: Pricing | None) -> None:
        self.pricing = pricing
        self._prices: dict[str | None, tuple[float, float] | None] = {}

    def prices(self, model: str | None) -> tuple[float, float] | None:
        """(cached input price, input price) of `model`; None: not priced."""
        try:
            return self._prices[model]
        except KeyError:
            pass
        prices = self.pricing.model_prices(model) if self.pricing is not None else None
        got = None if prices is None or "input" not in prices else (
            prices.get("cached_input", prices["input"]), prices["input"])
        if len(self._prices) < 1024:
            self._prices[model] = got
        return got

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


def _calls(t: Any) -> Sequence[Any]:
    """The turn's hosted calls as the facts hold them (objects, not the report's dicts)."""
    turn = getattr(t, "turn", None)
    if turn is None:
        return [_Call(c) for c in t.hosted_calls]
    res = turn.res
    return res.hosted_calls if res is not None else ()


class _Call:
    """A hosted call given as a dict, read like the facts' HostedCall."""

    __slots__ = ("type", "id", "evidence", "include")

    def __init__(self, d: dict[str, Any]) -> None:
        self.type, self.id = d.get("type"), d.get("id")
        self.evidence, self.include = d.get("evidence"), d.get("include")


def _conversation(ledger: Ledger, key: str, turns: Sequence[LedgerTurn], facts: _Facts,
                  rate_of: _Rates, config_of: Callable[[int], ToolConfig | None] | None,
                  project: int, bill: float | None) -> None:
    """Append conversation `key`'s growth, sources and charges to the ledger's columns.
    `turns[j]` (a view, made when read) is read only where the facts do not suffice."""
    # One read of each turn for what every conversation needs (its growth) and the test
    # for the rest: only conversations with a deposit or a hosted call carry anything.
    idx, inputs, cached, models, markers = (facts.idx, facts.inputs, facts.cached,
                                            facts.models, facts.markers)
    last_owned = next((o for o in reversed(facts.owned) if o is not None), None)
    ends = facts.ends
    n = ledger._open(key, bill, _growth_parts(inputs, markers, last_owned, project, ends))
    if not any(c or (m and "deposit" in m)
               for c, m in zip(facts.has_calls, markers, strict=True)):
        ledger._close()
        return
    configs: dict[int, ToolConfig | None] = {}
    position: dict[int, int] = {}

    def config(index: int) -> ToolConfig | None:
        """The configuration of the conversation's turn `index`."""
        try:
            return configs[index]
        except KeyError:
            pass
        c = config_of(index) if config_of else None
        if c is None:
            if not position:
                position.update((i, j) for j, i in enumerate(idx))
            offered = turns[position[index]].tools_offered
            if offered:
                c = ToolConfig(frozenset("web_search" if x in _WEB_ALIASES else x
                                         for x in offered))
        configs[index] = c
        return c

    def in_conversation(index: int) -> bool:
        if not position:
            position.update((i, j) for j, i in enumerate(idx))
        return index in position

    absorbed: set[str] = set()  # hosted calls a deposit already accounts for
    # Each deposit's attribution (read once: absorbed here, its source below).
    attribution, unexplained_of = facts.attribution, facts.unexplained
    deposits = {j: attribution(j) for j, (deposit, _end) in enumerate(ends) if deposit}
    for a in deposits.values():
        if a:
            absorbed.update(c for c in a[1] if c)
    # The sources still carried, as (source number, its configuration, its id).
    active: list[tuple[int, ToolConfig | None, str]] = []
    # Captured calls awaiting a turn: (the turn's index, the call's type, its id).
    pending: list[tuple[int, str | None, str | None]] = []
    charged, rates, priced = ledger._c_turn, ledger._c_rate, ledger._c_priced
    s_stop, ended = ledger._s_stop, ledger._ended
    outlived = ledger._outlived
    has_calls, captured = facts.has_calls, facts.captured
    configured = False
    notes_of: dict[int, tuple[Any, list[dict[str, Any]]]] = {}  # while `active` holds
    for j, (deposit, marker_end) in enumerate(ends):
        index = idx[j]
        if marker_end and active:
            for i, _c, _id in active:
                ended[i] = (index, marker_end)
                s_stop[i] = len(charged)
            active = []
            notes_of = {}
            configured = False
        if marker_end:
            pending = []
        if deposit:
            unexplained = unexplained_of(j)
            if unexplained and unexplained > 0:
                active.append(_deposit_source(ledger, n, index, unexplained, deposits[j],
                                              in_conversation, config))
                notes_of = {}
                configured = configured or active[-1][1] is not None
        inp = inputs[j]
        if pending and inp is not None:
            if not deposit:
                unexplained = unexplained_of(j)
                if unexplained and unexplained > 0:
                    active.append(_hosted_source(ledger, n, index, pending, unexplained,
                                                 config))
                    notes_of = {}
                    configured = configured or active[-1][1] is not None
            pending = []
        if inp is not None and active:
            rate = rate_of(models[j], cached[j], inp)
            try:
                charged.append(index)
            except OverflowError:
                charged = ledger._c_turn = _widened(charged)
                charged.append(index)
            rates.append(0.0 if rate is None else rate)
            priced.append(rate is not None)
            if configured:  # any active source's configuration is known
                here = config(index)
                # The same sources and configuration give the same notes: one list (read,
                # never changed) for every charge between two changes of `active`.
                got = notes_of.get(id(here))
                if got is None or got[0] is not here:
                    got = notes_of[id(here)] = (here, [
                        {"source": sid, "reason": why} for _i, c, sid in active
                        if c is not None and (why := _outlived_memo(c, here))])
                notes = got[1]
                if notes:
                    outlived[len(charged) - 1] = notes
        if has_calls[j]:
            for kind, cid in captured(j):
                if cid not in absorbed:
                    pending.append((index, kind, cid))
    for i, _c, _id in active:
        s_stop[i] = len(charged)
    ledger._close()


class _Ends:
    """(a deposit?, the marker that ends carried context or None) of a turn's markers,
    remembered by the list (a capture's turns share a few dozen marker lists)."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[int, tuple[list[str], tuple[bool, str | None]]] = {}

    def __call__(self, m: list[str]) -> tuple[bool, str | None]:
        got = self._seen.get(id(m))
        if got is not None and got[0] is m:
            return got[1]
        found = ("deposit" in m, next((e for e in ENDS if e in m), None))
        if len(self._seen) < 1024:
            self._seen[id(m)] = (m, found)  # the list kept: its id is not reused
        return found


_ENDS = _Ends()
_NO_END: tuple[bool, str | None] = (False, None)


def _deposit_source(ledger: Ledger, n: int, index: int, unexplained: int,
                    a: _Parts | None, in_conversation: Callable[[int], bool],
                    config: Callable[[int], ToolConfig | None], at: int | None = None,
                    ) -> tuple[int, ToolConfig | None, str]:
    turns, calls, types, missing, include = a if a is not None else ((), (), (), False, ())
    origin = [int(x) for x in turns]
    types = tuple(types)
    made = _origin_config(origin, in_conversation, config, types)
    i = ledger._add_source(
        n, 0, index, int(unexplained or 0), origin, [c for c in calls if c], types,
        missing, tuple(include), made, at)
    return i, made, ledger._source_id(i)


def _hosted_source(ledger: Ledger, n: int, index: int,
                   pending: list[tuple[int, str | None, str | None]], tokens: int,
                   config: Callable[[int], ToolConfig | None], at: int | None = None,
                   ) -> tuple[int, ToolConfig | None, str]:
    origin = sorted({o for o, _t, _i in pending})
    types = tuple(sorted({kind or "" for _o, kind, _i in pending}))
    made = _origin_config(origin, lambda _i: True, config, types)  # all in this conversation
    i = ledger._add_source(n, 1, index, tokens, origin,
                           [cid for _o, _t, cid in pending if cid], types, False, (), made,
                           at)
    return i, made, ledger._source_id(i)


def _origin_config(origin: list[int], in_conversation: Callable[[int], bool],
                   config: Callable[[int], ToolConfig | None],
                   types: Sequence[str]) -> ToolConfig | None:
    """The tools (and vector stores) the source's hosted calls came from (the origin
    turns of this conversation: `in_conversation`)."""
    wanted = {CALL_TOOL[t] for t in types if t in CALL_TOOL}
    if not wanted:
        return None
    stores: set[str] = set()
    for i in origin:
        c = config(i) if in_conversation(i) else None
        if c is not None and "file_search" in wanted:
            stores |= c.vector_store_ids
    key = (frozenset(wanted), frozenset(stores))
    made = _ORIGIN_CONFIGS.get(key)
    if made is None:
        made = ToolConfig(*key)
        if len(_ORIGIN_CONFIGS) < 4096:  # a handful in practice; bounded all the same
            _ORIGIN_CONFIGS[key] = made
    return made


# One ToolConfig per distinct configuration of the sources (they repeat: one per call).
_ORIGIN_CONFIGS: dict[tuple[frozenset[str], frozenset[str]], ToolConfig] = {}


def _outlived_memo(config: ToolConfig, here: ToolConfig | None) -> str | None:
    """`_outlived`, remembered by the two configurations' identities (a capture has a
    handful of each, asked on every charged turn for every active source; a frozen
    dataclass hashes its fields on every call). The pair is kept with the answer, so an
    id reused by a later object is never mistaken for the first."""
    key = (id(config), id(here))
    got = _OUTLIVED.get(key)
    if got is not None and got[0] is config and got[1] is here:
        return got[2]
    why = _outlived(config, here)
    if len(_OUTLIVED) < 4096:
        _OUTLIVED[key] = (config, here, why)
    return why


_OUTLIVED: dict[tuple[int, int], tuple[ToolConfig, ToolConfig | None, str | None]] = {}


def _outlived(config: ToolConfig | None, here: ToolConfig | None) -> str | None:
    """Why context from where `config` was offered outlives the tool configuration of this
    turn, if it does."""
    if config is None or here is None:
        return None
    gone = sorted(config.tools - here.tools)
    if gone:
        return f"{', '.join(gone)} no longer offered; the model still reads its results"
    if "file_search" in config.tools and config.vector_store_ids and (
            here.vector_store_ids != config.vector_store_ids):
        before = ", ".join(sorted(config.vector_store_ids))
        now = ", ".join(sorted(here.vector_store_ids)) or "none"
        return (f"file_search now reads vector store(s) {now}, not {before}; the model still "
                "reads results from the old one(s)")
    return None


def _rate(pricing: Pricing | None, model: str | None, cached: int | None,
          input_tokens: int) -> float | None:
    """The per-token price of a turn's input at its own cached/fresh split
    (apportioned); a charge of n tokens costs n × this."""
    if pricing is None or not input_tokens:
        return None
    prices = pricing.model_prices(model)
    if prices is None or "input" not in prices:
        return None
    cached_share = min(max((cached or 0) / input_tokens, 0.0), 1.0)
    cached_price = prices.get("cached_input", prices["input"])
    return (cached_share * cached_price + (1 - cached_share) * prices["input"]) / 1e6


# ------------------------------------------------------------------------------- growth


def growth(turns: Sequence[LedgerTurn], project: int = PROJECT_TURNS) -> dict[str, Any]:
    """Cumulative billed input and owned-state equivalent bytes at the conversation's last
    turn (each turn carries its own: `cumulative_input_tokens`, `owned_state_bytes`), and a
    labelled projection of the next `project` turns' input from a line fitted since the
    last compaction."""
    last_owned = next((o for t in reversed(turns) if (o := t.owned_state_bytes) is not None),
                      None)
    return _growth_dict(*_growth_parts([t.input_tokens for t in turns],
                                       [t.markers for t in turns], last_owned, project))


def _growth_parts(inputs: Sequence[int | None], markers: Sequence[Sequence[str]],
                  last_owned: int | None, project: int,
                  ends: Sequence[tuple[bool, str | None]] | None = None) -> tuple[Any, ...]:
    """What the growth dict is made from: (cumulative input, last owned-state bytes, the
    fitted line or None, `project`); the dict itself is made when written. `ends`: each
    turn's (deposit?, ending marker), when the caller has them."""
    cumulative = 0
    fit_x: list[int] = []
    fit_y: list[int] = []
    if ends is None:
        ends = [_ENDS(m) if m else _NO_END for m in markers]  # type: ignore[arg-type]
    for n, inp in enumerate(inputs, 1):
        if ends[n - 1][1] is not None:
            fit_x, fit_y = [], []
        if inp is not None:
            cumulative += inp
            fit_x.append(n)
            fit_y.append(inp)
    fit = None
    if len(fit_x) >= 2:
        slope, intercept = _line(fit_x, fit_y)
        fit = (slope, intercept, len(fit_x), len(inputs), cumulative)
    return (cumulative if fit_x or cumulative else None, last_owned, fit, project)


def _line(x: list[int], y: list[int]) -> tuple[float, float]:
    """(slope, intercept) of the least-squares line through (x, y): CPython 3.11's
    `statistics.linear_regression`, the same sums in the same order (so the same floats),
    without its checks and generators (it runs once per conversation). `x` holds at least
    two distinct values."""
    n = len(x)
    xbar = fsum(x) / n
    ybar = fsum(y) / n
    sxy = fsum([(xi - xbar) * (yi - ybar) for xi, yi in zip(x, y, strict=True)])
    sxx = fsum([(d := xi - xbar) * d for xi in x])
    slope = sxy / sxx
    return slope, ybar - slope * xbar


def _growth_dict(cumulative: int | None, last_owned: int | None,
                 fit: tuple[Any, ...] | None, project: int) -> dict[str, Any]:
    projection: dict[str, Any] | None = None
    if fit is not None:
        slope, intercept, fitted, last, running = fit
        nxt = []
        for k in range(1, project + 1):
            value = max(0, round(intercept + slope * (last + k)))
            running += value
            nxt.append({"turn_offset": k, "input_tokens": value,
                        "cumulative_input_tokens": running})
        projection = {"label": PROJECTION, "tokens_per_turn_growth": round(slope, 1),
                      "fitted_turns": fitted, "next": nxt}
    return {"cumulative_input_tokens": cumulative, "owned_state_bytes": last_owned,
            "projection": projection}


# ------------------------------------------------------------------------------- helpers


def _sum(costs: Iterable[float | None]) -> float | None:
    """0.0 plus each cost in turn; None once any is unknown (the order of the additions is
    the order of the charges, so the float is the same however it is held)."""
    total = 0.0
    for c in costs:
        if c is None:
            return None
        total += c
    return total


def _add(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 6)


EMPTY_CARRY: dict[str, Any] = {"tokens": 0, "cost_usd": 0.0, "sources": [],
                               "outlived_tools": [], "arrived": []}
