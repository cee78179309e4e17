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
from typing import Any, NamedTuple

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
        return charge_dict(self.turn, self.tokens, self.cost_usd)


def charge_dict(turn: int, tokens: int, cost_usd: float | None) -> dict[str, Any]:
    """A charge as the report writes it (a source's charges are written without making a
    `Charge` each: a conversation's ledger lists every one)."""
    return {"turn": turn, "tokens": tokens, "cost_usd": rounded(cost_usd)}


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

    @property
    def charges(self) -> list[Charge]:
        run, tokens = _run(self._l, self._i), self.tokens
        return [Charge(t, tokens, c) for t, c in zip(run.turns, run.costs, strict=True)]

    @property
    def turns_carried(self) -> int:
        return len(_run(self._l, self._i).costs)

    @property
    def later_turns(self) -> int:
        """Turns after the arrival that billed it again (the re-bills)."""
        return len(_run(self._l, self._i).later)

    @property
    def tokens_billed(self) -> int:
        return self.tokens * self.turns_carried

    @property
    def tokens_rebilled(self) -> int:
        return self.tokens * self.later_turns

    @property
    def cost_usd(self) -> float | None:
        return cost_sum(_run(self._l, self._i).costs)

    @property
    def cost_rebilled_usd(self) -> float | None:
        return cost_sum(_run(self._l, self._i).later)

    def to_dict(self) -> dict[str, Any]:
        return _source_dict(self._l, self._i, _run(self._l, self._i))


class _Run(NamedTuple):
    """A source's charges in order: each one's turn and cost, and the costs of the
    re-bills (the charges after its arrival)."""

    turns: list[int]
    costs: list[float | None]
    later: list[float | None]


def _cost_at(led: LedgerColumns, i: int, k: int) -> float | None:
    """What source `i` costs on charge `k`: its tokens at the turn's per-token rate."""
    return led._s_tokens[i] * led._c_rate[k] if led._c_priced[k] else None


def _run(led: LedgerColumns, i: int) -> _Run:
    """Source `i`'s run of charges, in one walk."""
    arrived = led._s_arrived[i]
    run = _Run([], [], [])
    for k in range(led._s_start[i], led._s_stop[i]):
        c = _cost_at(led, i, k)
        run.turns.append(led._c_turn[k])
        run.costs.append(c)
        if led._c_turn[k] != arrived:
            run.later.append(c)
    return run


def _source_dict(led: LedgerColumns, i: int, run: _Run) -> dict[str, Any]:
    """Source `i`'s dict in the report, from its run of charges."""
    tokens = led._s_tokens[i]
    flags = led._s_flags[i]
    _config, types, include = led._meta_of(i)
    ended = led._ended.get(i)
    return {
        "id": led._source_id(i), "kind": KINDS[flags & HOSTED],
        "arrived_turn": led._s_arrived[i], "tokens_per_turn": tokens,
        "origin_turns": led._origin_of(i), "hosted_calls": led._calls_of(i),
        "types": list(types), "evidence_missing": bool(flags & MISSING),
        "include": list(include), "turns_carried": len(run.costs),
        "later_turns": len(run.later), "tokens_billed": tokens * len(run.costs),
        "tokens_rebilled": tokens * len(run.later), "cost_usd": rounded(cost_sum(run.costs)),
        "cost_rebilled_usd": rounded(cost_sum(run.later)),
        "charges": [charge_dict(t, tokens, c)
                    for t, c in zip(run.turns, run.costs, strict=True)],
        "ended_by": None if ended is None else {"turn": ended[0], "kind": ended[1]},
    }


Account = tuple[int, int, float | None, str | None, int, float | None, tuple[int, str] | None]


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

    def _active(self) -> list[int]:
        """The conversation's sources billed on this turn, in order."""
        led, k = self._l, self._k
        return [i for i in led._source_range(self._n) if led._s_start[i] <= k < led._s_stop[i]]

    @property
    def tokens(self) -> int:
        return sum(self._l._s_tokens[i] for i in self._active())

    @property
    def cost_usd(self) -> float | None:
        return cost_sum(_cost_at(self._l, i, self._k) for i in self._active())

    @property
    def charges(self) -> list[tuple[Source, Charge]]:
        led, turn, k = self._l, self.turn, self._k
        return [(Source(led, i), Charge(turn, led._s_tokens[i], _cost_at(led, i, k)))
                for i in self._active()]

    @property
    def outlived_tools(self) -> list[dict[str, Any]]:
        return self._l._outlived.get(self._k, [])

    @property
    def arrived(self) -> list[Source]:
        """Sources first billed on this turn."""
        led, turn = self._l, self.turn
        return [Source(led, i) for i in self._active() if led._s_arrived[i] == turn]

    def account(self) -> list[Account]:
        """What the explanation says of this turn: per source billed on it, in order,
        (arrived turn, tokens, cost on this turn, and — only for a source that arrived on
        this turn, else None, 0, None, None — its kind, later turns, cost re-billed,
        ended_by as (turn, kind))."""
        led, k, turn = self._l, self._k, self.turn
        out: list[Account] = []
        for i in self._active():
            at, n, here = led._s_arrived[i], led._s_tokens[i], _cost_at(led, i, k)
            if at != turn:
                out.append((at, n, here, None, 0, None, None))
                continue
            run = _run(led, i)
            out.append((at, n, here, KINDS[led._s_flags[i] & HOSTED], len(run.later),
                        cost_sum(run.later), led._ended.get(i)))
        return out

    def to_dict(self) -> dict[str, Any]:
        """The turn's account as the report writes it (every turn's row has one): the
        sources billed on it read in one walk."""
        led, k, turn = self._l, self._k, self.turn
        sources: list[dict[str, Any]] = []
        costs: list[float | None] = []
        arrived: list[str] = []
        for i in self._active():
            sid, cost = led._source_id(i), _cost_at(led, i, k)
            costs.append(cost)
            sources.append({"id": sid, "tokens": led._s_tokens[i], "cost_usd": rounded(cost)})
            if led._s_arrived[i] == turn:
                arrived.append(sid)
        return {"tokens": sum(s["tokens"] for s in sources),
                "cost_usd": rounded(cost_sum(costs)), "sources": sources,
                "outlived_tools": led._outlived.get(k, []), "arrived": arrived}


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

    def _runs(self) -> list[tuple[int, _Run]]:
        """Each source's number and run of charges, in order."""
        led = self._l
        return [(i, _run(led, i)) for i in led._source_range(self._n)]

    @property
    def tokens(self) -> int:
        return sum(self._l._s_tokens[i] * len(run.costs) for i, run in self._runs())

    @property
    def cost_usd(self) -> float | None:
        return cost_sum(c for _i, run in self._runs() for c in run.costs)

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
        led, runs = self._l, self._runs()
        cost = cost_sum(c for _i, run in runs for c in run.costs)
        bill = self.bill_usd
        return {"tokens": sum(led._s_tokens[i] * len(run.costs) for i, run in runs),
                "cost_usd": rounded(cost),
                "share_of_cost": None if cost is None or not bill else round(cost / bill, 4),
                "sources": [_source_dict(led, i, run) for i, run in runs],
                "growth": self.growth, "apportioned": APPORTIONED}


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
