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

import statistics
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Protocol

from traceview.analysis.columns import Columns
from traceview.analysis.pricing import Pricing
from traceview.analysis.shared import shared

APPORTIONED = ("carried tokens are priced at each turn's own cached/fresh split (cached share "
               "= cached_tokens / input_tokens of that turn); the bill does not say which "
               "tokens were cached, so the split is apportioned")
PROJECTION = ("projection: a straight line fitted (least squares) to billed input per turn "
              "since the last compaction, extended over the next turns; not a measurement")
PROJECT_TURNS = 3
ENDS = ("compaction", "compaction_likely")
# Which tool a hosted call came from (the name requests use in `tools`).
CALL_TOOL = {
    "file_search_call": "file_search", "web_search_call": "web_search",
    "code_interpreter_call": "code_interpreter", "image_generation_call": "image_generation",
    "mcp_call": "mcp", "mcp_list_tools": "mcp", "mcp_approval_request": "mcp",
}
_WEB_ALIASES = ("web_search", "web_search_preview", "web_search_2025_08_26",
                "web_search_preview_2025_03_11")


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
    ledger holds a conversation's charges as columns)."""

    __slots__ = ("turn", "tokens", "cost_usd")

    def __init__(self, turn: int, tokens: int, cost_usd: float | None) -> None:
        self.turn = turn
        self.tokens = tokens
        self.cost_usd = cost_usd

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "tokens": self.tokens,
                "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6)}


class Source:
    """One piece of context that arrived without a request, and its running bill.

    Every turn of a conversation that bills carried context bills every source still
    active, so a source's charges are one run `[_start, _stop)` of its conversation's
    charged turns (`ConversationLedger`), priced at each turn's per-token rate."""

    __slots__ = ("kind", "conversation", "arrived_turn", "tokens", "_origin", "_calls",
                 "_types", "evidence_missing", "_include", "config", "_ended", "_conv",
                 "_start", "_stop")

    def __init__(self, kind: str, conversation: str, arrived_turn: int, tokens: int,
                 origin_turns: Sequence[int] = (), hosted_calls: Sequence[str] = (),
                 types: Sequence[str] = (), evidence_missing: bool = False,
                 include: Sequence[str] = ()) -> None:
        self.kind = kind  # "deposit" | "hosted_result"
        self.conversation = conversation
        self.arrived_turn = arrived_turn  # the first turn billed for it
        self.tokens = tokens  # tokens it adds to each turn that carries it
        # Held as tuples (a capture holds about one source per hosted call), given as lists.
        self._origin = tuple(origin_turns)
        self._calls = tuple(hosted_calls)
        self._types = shared(tuple(types))
        self.evidence_missing = evidence_missing
        self._include = shared(tuple(include))
        self.config: ToolConfig | None = None  # tools offered where it came from
        self._ended: tuple[int, str] | None = None  # (turn, marker) that ended the carry
        self._conv: ConversationLedger | None = None
        self._start = 0
        self._stop = 0

    @property
    def id(self) -> str:
        """deposit@<the turn it arrived on>, hosted_result@<the last turn of its calls>."""
        if self.kind == "deposit":
            return f"deposit@{self.arrived_turn}"
        return f"hosted@{self._origin[-1]}"

    @property
    def origin_turns(self) -> list[int]:
        return list(self._origin)

    @property
    def hosted_calls(self) -> list[str]:
        return list(self._calls)

    @property
    def types(self) -> list[str]:
        return list(self._types)

    @property
    def include(self) -> list[str]:
        return list(self._include)

    @property
    def ended_by(self) -> dict[str, Any] | None:
        return None if self._ended is None else {"turn": self._ended[0], "kind": self._ended[1]}

    def _cost(self, k: int) -> float | None:
        conv = self._conv
        return self.tokens * conv._rate[k] if conv is not None and conv._priced[k] else None

    @property
    def charges(self) -> list[Charge]:
        conv = self._conv
        if conv is None:
            return []
        return [Charge(conv._turns[k], self.tokens, self._cost(k))
                for k in range(self._start, self._stop)]

    def _later(self) -> list[int]:
        """Positions of the charges after the arrival (the re-bills)."""
        turns = self._conv._turns if self._conv is not None else ()
        return [k for k in range(self._start, self._stop) if turns[k] != self.arrived_turn]

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
        # One walk over the charges for every figure (the properties each walk them again).
        conv = self._conv
        turns = conv._turns if conv is not None else _NO_TURNS
        ks = range(self._start, self._stop)
        tokens = self.tokens
        if conv is None:
            costs: list[float | None] = [None] * len(ks)
        else:  # self._cost(k) for each k, without a call each
            rate, priced = conv._rate, conv._priced
            costs = [tokens * rate[k] if priced[k] else None for k in ks]
        arrived = self.arrived_turn
        later = [c for k, c in zip(ks, costs, strict=True) if turns[k] != arrived]
        return {
            "id": self.id, "kind": self.kind, "arrived_turn": arrived,
            "tokens_per_turn": tokens, "origin_turns": list(self._origin),
            "hosted_calls": list(self._calls), "types": list(self._types),
            "evidence_missing": self.evidence_missing, "include": list(self._include),
            "turns_carried": len(costs), "later_turns": len(later),
            "tokens_billed": tokens * len(costs), "tokens_rebilled": tokens * len(later),
            "cost_usd": _round(_sum(costs)), "cost_rebilled_usd": _round(_sum(later)),
            "charges": [{"turn": turns[k], "tokens": tokens,
                         "cost_usd": None if c is None else round(c, 6)}
                        for k, c in zip(ks, costs, strict=True)],
            "ended_by": self.ended_by,
        }


class TurnCarry:
    """What one turn pays for context carried from earlier turns: a view of charge `k` of
    its conversation's ledger (two references a turn; the account is made when read)."""

    __slots__ = ("_conv", "_k")

    def __init__(self, conv: ConversationLedger, k: int) -> None:
        self._conv = conv
        self._k = k

    @property
    def turn(self) -> int:
        return self._conv._turns[self._k]

    def _active(self) -> list[Source]:
        k = self._k
        return [s for s in self._conv.sources if s._start <= k < s._stop]

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
        return self._conv._outlived.get(self._k, [])

    @property
    def arrived(self) -> list[Source]:
        """Sources first billed on this turn."""
        turn = self.turn
        return [s for s in self._active() if s.arrived_turn == turn]

    def to_dict(self) -> dict[str, Any]:
        # One loop over the conversation's sources (a report writes one per carrying turn):
        # the same sums as `tokens` and `cost_usd`, in the same order.
        k = self._k
        conv = self._conv
        turn = conv._turns[k]
        tokens, total = 0, 0.0
        known = True
        sources: list[dict[str, Any]] = []
        arrived: list[str] = []
        for s in conv.sources:
            if s._start <= k < s._stop:
                c = s._cost(k)
                tokens += s.tokens
                if c is None:
                    known = False
                elif known:
                    total += c
                sid = s.id
                sources.append({"id": sid, "tokens": s.tokens,
                                "cost_usd": None if c is None else round(c, 6)})
                if s.arrived_turn == turn:
                    arrived.append(sid)
        return {"tokens": tokens, "cost_usd": round(total, 6) if known else None,
                "sources": sources, "outlived_tools": conv._outlived.get(k, []),
                "arrived": arrived}


class ConversationLedger:
    """A conversation's sources, and its charged turns as columns: the turn, its per-token
    rate (apportioned) and whether it was priced; `outlived` by charge, where any."""

    __slots__ = ("key", "sources", "bill_usd", "_growth", "_turns", "_rate", "_priced",
                 "_outlived")

    def __init__(self, key: str) -> None:
        self.key = key
        self.sources: list[Source] = []
        self.bill_usd: float | None = None
        self._growth: tuple[Any, ...] = (None, None, None, PROJECT_TURNS)
        self._turns = _NO_TURNS
        self._rate = _NO_RATES
        self._priced = b""
        self._outlived: dict[int, list[dict[str, Any]]] = _NO_OUTLIVED

    @property
    def growth(self) -> dict[str, Any]:
        return _growth_dict(*self._growth)

    @property
    def tokens(self) -> int:
        return sum(s.tokens_billed for s in self.sources)

    @property
    def cost_usd(self) -> float | None:
        return _sum(s._cost(k) for s in self.sources for k in range(s._start, s._stop))

    @property
    def share_of_cost(self) -> float | None:
        cost = self.cost_usd
        if cost is None or not self.bill_usd:
            return None
        return round(cost / self.bill_usd, 4)

    def carries(self) -> Iterator[TurnCarry]:
        """Each turn's account, in the order the turns were billed."""
        return (TurnCarry(self, k) for k in range(len(self._turns)))

    def to_dict(self) -> dict[str, Any]:
        cost = self.cost_usd  # once: share_of_cost would walk every charge again
        share = None if cost is None or not self.bill_usd else round(cost / self.bill_usd, 4)
        return {"tokens": self.tokens, "cost_usd": _round(cost),
                "share_of_cost": share,
                "sources": [s.to_dict() for s in self.sources],
                "growth": self.growth, "apportioned": APPORTIONED}


_NO_TURNS = array("q")
_NO_RATES = array("d")
_NO_OUTLIVED: dict[int, list[dict[str, Any]]] = {}


class Ledger:
    def __init__(self) -> None:
        self.conversations: dict[str, ConversationLedger] = {}

    @property
    def turns(self) -> dict[int, TurnCarry]:
        """Turn index -> its account (made when asked: the ledger keeps no per-turn map)."""
        return {c.turn: c for conv in self.conversations.values() for c in conv.carries()}

    def carry(self, key: str, index: int) -> TurnCarry | None:
        """The account of turn `index` of conversation `key` (None: it carries nothing)."""
        conv = self.conversations.get(key)
        if conv is None:
            return None
        turns = conv._turns
        k = bisect_left(turns, index)
        return TurnCarry(conv, k) if k < len(turns) and turns[k] == index else None

    def turn(self, index: int) -> dict[str, Any]:
        carry = self.turns.get(index)
        return carry.to_dict() if carry is not None else EMPTY_CARRY

    def conversation(self, key: str) -> dict[str, Any] | None:
        conv = self.conversations.get(key)
        return conv.to_dict() if conv is not None else None

    def source_at(self, turn: int) -> list[Source]:
        """Sources first billed on `turn` (what its turn account talks about)."""
        return [s for c in self.conversations.values() for s in c.sources
                if s.arrived_turn == turn]


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
    by_conv: dict[str, list[LedgerTurn]] = {}
    for t in turns:
        by_conv.setdefault(t.conversation_key, []).append(t)
    ledger = Ledger()
    read = _Reader()
    for key, conv_turns in by_conv.items():
        facts = read(conv_turns)
        idx = facts[0]
        if any(a > b for a, b in pairwise(idx)):  # not in index order
            conv_turns.sort(key=_index)
            facts = read(conv_turns)
        conv = _conversation(key, conv_turns, facts, pricing, config_of, project)
        conv.bill_usd = (bills or {}).get(key)
        ledger.conversations[key] = conv
    return ledger


def _index(t: LedgerTurn) -> int:
    return t.index


_Facts = tuple[list[int], list[int | None], list[int | None], list[str | None],
               list[Sequence[Any]]]


class _Reader:
    """What the ledger reads of each turn of a conversation: index, billed and cached
    input, model, and hosted calls as the facts hold them (objects, not the report's dicts).

    Analysed turns (TurnReport) are read from their turn table's columns at their rows
    (analysis/columns.py: one index each, not a property chain through the row views);
    any other LedgerTurn through its properties."""

    def __init__(self) -> None:
        self._cols: Columns | None = None

    def __call__(self, turns: Sequence[LedgerTurn]) -> _Facts:
        first = getattr(turns[0], "turn", None) if turns else None
        table = getattr(first, "table", None)
        if table is None or any(t.turn.table is not table for t in turns):  # type: ignore[attr-defined]
            return ([t.index for t in turns], [t.input_tokens for t in turns],
                    [t.cached_tokens for t in turns], [t.model for t in turns],
                    [_calls(t) for t in turns])
        c = self._cols
        if c is None or c.table is not table or c.version != table.version:
            c = self._cols = Columns(table)
        values, index, req_row, res_row = c.values, c.index, c.req_row, c.res_row
        s_in, s_cached, s_model, q_model = c.s_in, c.s_cached, c.s_model, c.q_model
        hosted = c.s_hosted
        idx, inputs, cached, models, calls = [], [], [], [], []
        for t in turns:
            r = t.turn.row  # type: ignore[attr-defined]
            idx.append(index[r])
            si = res_row[r]
            if si >= 0:
                n, k = s_in[si], s_cached[si]
                inputs.append(None if n < 0 else n)
                cached.append(None if k < 0 else k)
                model = values[s_model[si]]
                calls.append(hosted.get(si, ()))
            else:
                inputs.append(None)
                cached.append(None)
                model = None
                calls.append(())
            if not model:
                qi = req_row[r]
                model = values[q_model[qi]] if qi >= 0 else None
            models.append(model)
        return idx, inputs, cached, models, calls


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


def _conversation(key: str, turns: Sequence[LedgerTurn], facts: _Facts,
                  pricing: Pricing | None,
                  config_of: Callable[[int], ToolConfig | None] | None,
                  project: int) -> ConversationLedger:
    conv = ConversationLedger(key)
    # One read of each turn for what every conversation needs (its growth) and the test
    # for the rest: only conversations with a deposit or a hosted call carry anything.
    idx, inputs, cached, models, calls = facts
    markers = [t.markers for t in turns]
    last_owned = next((o for t in reversed(turns) if (o := t.owned_state_bytes) is not None),
                      None)
    conv._growth = _growth_parts(inputs, markers, last_owned, project)
    if not any(c or (m and "deposit" in m) for c, m in zip(calls, markers, strict=True)):
        return conv
    configs: dict[int, ToolConfig | None] = {}

    def config(t: LedgerTurn, index: int | None = None) -> ToolConfig | None:
        if index is None:
            index = t.index
        try:
            return configs[index]
        except KeyError:
            pass
        c = config_of(index) if config_of else None
        if c is None and t.tools_offered:
            c = ToolConfig(frozenset("web_search" if x in _WEB_ALIASES else x
                                     for x in t.tools_offered))
        configs[index] = c
        return c

    absorbed: set[str] = set()  # hosted calls a deposit already accounts for
    for t, m in zip(turns, markers, strict=True):
        if m and "deposit" in m:
            a = t.attribution
            if a:
                absorbed.update(c for c in a.get("hosted_calls") or [] if c)
    active: list[Source] = []
    made: list[Source] = []
    pending: list[tuple[LedgerTurn, Any]] = []  # captured calls awaiting a turn
    charged = array("q")
    rates = array("d")
    priced = bytearray()
    outlived: dict[int, list[dict[str, Any]]] = {}
    by_index: dict[int, LedgerTurn] | None = None
    for n, t in enumerate(turns):
        m = markers[n]
        index = idx[n]
        deposit = bool(m) and "deposit" in m
        marker_end = next((e for e in ENDS if e in m), None) if m else None
        if marker_end and active:
            for s in active:
                s._ended = (index, marker_end)
                s._stop = len(charged)
            active = []
        if marker_end:
            pending = []
        if deposit:
            unexplained = t.unexplained_tokens
            if unexplained and unexplained > 0:
                if by_index is None:
                    by_index = dict(zip(idx, turns, strict=True))
                made.append(_deposit_source(key, t, by_index, config))
                active.append(made[-1])
                made[-1]._start = len(charged)
        inp = inputs[n]
        if pending and inp is not None:
            unexplained = t.unexplained_tokens
            if unexplained and unexplained > 0 and not deposit:
                made.append(_hosted_source(key, t, pending, unexplained, config))
                active.append(made[-1])
                made[-1]._start = len(charged)
            pending = []
        if inp is not None and active:
            rate = _rate(pricing, models[n], cached[n], inp)
            charged.append(index)
            rates.append(0.0 if rate is None else rate)
            priced.append(rate is not None)
            if any(s.config is not None for s in active):
                here = config(t, index)
                notes = [{"source": s.id, "reason": why} for s in active
                         if (why := _outlived(s, here))]
                if notes:
                    outlived[len(charged) - 1] = notes
        for call in calls[n]:
            if call.evidence == "captured" and call.id not in absorbed:
                pending.append((t, call))
    for s in active:
        s._stop = len(charged)
    for s in made:
        s._conv = conv
    conv.sources = made
    conv._turns, conv._rate, conv._priced = charged, rates, bytes(priced)
    if outlived:
        conv._outlived = outlived
    return conv


def _deposit_source(key: str, t: LedgerTurn, by_index: dict[int, LedgerTurn],
                    config: Callable[[LedgerTurn], ToolConfig | None]) -> Source:
    a = t.attribution or {}
    origin = [int(x) for x in a.get("turns") or []]
    s = Source(
        kind="deposit", conversation=key, arrived_turn=t.index,
        tokens=int(t.unexplained_tokens or 0), origin_turns=origin,
        hosted_calls=[c for c in a.get("hosted_calls") or [] if c],
        types=list(a.get("types") or []), evidence_missing=bool(a.get("evidence_missing")),
        include=list(a.get("include") or []),
    )
    s.config = _origin_config(origin, by_index, config, s._types)
    return s


def _hosted_source(key: str, t: LedgerTurn, pending: list[tuple[LedgerTurn, Any]],
                   tokens: int, config: Callable[[LedgerTurn], ToolConfig | None]) -> Source:
    origin = sorted({o.index for o, _ in pending})
    types = sorted({c.type or "" for _, c in pending})
    s = Source(
        kind="hosted_result", conversation=key,
        arrived_turn=t.index, tokens=tokens, origin_turns=origin,
        hosted_calls=[c.id for _, c in pending if c.id], types=types,
    )
    by_index = {o.index: o for o, _ in pending}
    s.config = _origin_config(origin, by_index, config, types)
    return s


def _origin_config(origin: list[int], by_index: dict[int, LedgerTurn],
                   config: Callable[[LedgerTurn], ToolConfig | None],
                   types: Sequence[str]) -> ToolConfig | None:
    """The tools (and vector stores) the source's hosted calls came from."""
    wanted = {CALL_TOOL[t] for t in types if t in CALL_TOOL}
    if not wanted:
        return None
    stores: set[str] = set()
    for i in origin:
        t = by_index.get(i)
        c = config(t) if t is not None else None
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


def _outlived(s: Source, here: ToolConfig | None) -> str | None:
    """Why the context `s` outlives the tool configuration of this turn, if it does."""
    if s.config is None or here is None:
        return None
    gone = sorted(s.config.tools - here.tools)
    if gone:
        return f"{', '.join(gone)} no longer offered; the model still reads its results"
    if "file_search" in s.config.tools and s.config.vector_store_ids and (
            here.vector_store_ids != s.config.vector_store_ids):
        before = ", ".join(sorted(s.config.vector_store_ids))
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
                  last_owned: int | None, project: int) -> tuple[Any, ...]:
    """What the growth dict is made from: (cumulative input, last owned-state bytes, the
    fitted line or None, `project`); the dict itself is made when written."""
    cumulative = 0
    fit_x: list[int] = []
    fit_y: list[int] = []
    for n, inp in enumerate(inputs, 1):
        m = markers[n - 1]
        if m and any(e in m for e in ENDS):
            fit_x, fit_y = [], []
        if inp is not None:
            cumulative += inp
            fit_x.append(n)
            fit_y.append(inp)
    fit = None
    if len(fit_x) >= 2:
        slope, intercept = statistics.linear_regression(fit_x, fit_y)
        fit = (slope, intercept, len(fit_x), len(inputs), cumulative)
    return (cumulative if fit_x or cumulative else None, last_owned, fit, project)


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
