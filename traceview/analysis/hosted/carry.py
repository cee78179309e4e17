"""Views of the carried-context ledger's columns (analysis/hosted/ledger_store.py):
a source, a turn's account, a conversation's ledger, made when read.

Every turn of a conversation that bills carried context bills every source still active,
so a source's charges are one run `[start, stop)` of the conversation's charges, each
priced at its turn's per-token rate. The dicts these views write are the report's
`carried_context` of a turn and of a conversation.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Mapping
from typing import Any

from traceview.analysis.hosted.ledger_store import (
    HOSTED,
    KINDS,
    MISSING,
    LedgerColumns,
    cost_sum,
    rounded,
)
from traceview.analysis.hosted.tools import ToolConfig

APPORTIONED = ("carried tokens are priced at each turn's own cached/fresh split (cached share "
               "= cached_tokens / input_tokens of that turn); the bill does not say which "
               "tokens were cached, so the split is apportioned")
EMPTY_CARRY: dict[str, Any] = {"tokens": 0, "cost_usd": 0.0, "sources": [],
                               "outlived_tools": [], "arrived": []}


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

    def __init__(self, ledger: LedgerColumns, i: int) -> None:
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
        return KINDS[self._l._s_flags[self._i] & HOSTED]

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
        return bool(self._l._s_flags[self._i] & MISSING)

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
        return self._l._origin_of(self._i)

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
        return cost_sum(self._cost(k) for k in range(self._start, self._stop))

    @property
    def cost_rebilled_usd(self) -> float | None:
        return cost_sum(self._cost(k) for k in self._later())

    def to_dict(self) -> dict[str, Any]:
        return _source_dict(self._l, self._i)[0]


def _source_dict(led: LedgerColumns, i: int) -> tuple[dict[str, Any], list[float | None]]:
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
        "id": led._source_id(i), "kind": KINDS[flags & HOSTED], "arrived_turn": arrived,
        "tokens_per_turn": tokens, "origin_turns": led._origin_of(i),
        "hosted_calls": led._calls_of(i), "types": list(types),
        "evidence_missing": bool(flags & MISSING), "include": list(include),
        "turns_carried": len(costs), "later_turns": len(later),
        "tokens_billed": tokens * len(costs), "tokens_rebilled": tokens * len(later),
        "cost_usd": rounded(cost_sum(costs)), "cost_rebilled_usd": rounded(cost_sum(later)),
        "charges": charges,
        "ended_by": None if ended is None else {"turn": ended[0], "kind": ended[1]},
    }, costs


class TurnCarry:
    """What one turn pays for context carried from earlier turns: a view of charge `k` of
    the ledger, in conversation `n` (the account is made when read)."""

    __slots__ = ("_l", "_n", "_k")

    def __init__(self, ledger: LedgerColumns, n: int, k: int) -> None:
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
        return cost_sum(s._cost(self._k) for s in self._active())

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
            later = 0  # Source.later_turns
            cost: float | None = 0.0  # Source.cost_rebilled_usd
            for j in range(a, b):
                if turns[j] != at:
                    later += 1
                    if cost is not None:
                        cost = cost + n * rate[j] if priced[j] else None
            out.append((at, n, here, KINDS[flags[i] & HOSTED], later, cost,
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
        for i in led._source_range(self._n):
            if start[i] <= k < stop[i]:
                n = s_tokens[i]
                c = None if rate is None else n * rate
                tokens += n
                if c is None:
                    known = False
                elif known:
                    total += c
                sid = led._source_id(i)
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

    def __init__(self, ledger: LedgerColumns, n: int) -> None:
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
        return self._l._bill_of(self._n)

    @property
    def growth(self) -> dict[str, Any]:
        return self._l._growth_of(self._n)

    @property
    def tokens(self) -> int:
        return sum(s.tokens_billed for s in self.sources)

    @property
    def cost_usd(self) -> float | None:
        return cost_sum(s._cost(k) for s in self.sources for k in range(s._start, s._stop))

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
        return {"tokens": tokens, "cost_usd": rounded(cost), "share_of_cost": share,
                "sources": sources, "growth": self.growth, "apportioned": APPORTIONED}


class Conversations(Mapping[str, ConversationLedger]):
    """The ledger's conversations by key: a view made when read."""

    __slots__ = ("_l",)

    def __init__(self, ledger: LedgerColumns) -> None:
        self._l = ledger

    def __getitem__(self, key: str) -> ConversationLedger:
        return ConversationLedger(self._l, self._l._num[key])

    def __contains__(self, key: object) -> bool:
        return key in self._l._num

    def __iter__(self) -> Iterator[str]:
        return iter(self._l._keys)

    def __len__(self) -> int:
        return len(self._l._keys)
