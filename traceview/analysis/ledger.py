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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from traceview.analysis.pricing import Pricing

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


@dataclass
class Charge:
    """Carried tokens billed on one turn, and their apportioned cost."""

    turn: int
    tokens: int
    cost_usd: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "tokens": self.tokens,
                "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6)}


@dataclass
class Source:
    """One piece of context that arrived without a request, and its running bill."""

    id: str
    kind: str  # "deposit" | "hosted_result"
    conversation: str
    arrived_turn: int  # the first turn billed for it
    tokens: int  # tokens it adds to each turn that carries it
    origin_turns: list[int] = field(default_factory=list)
    hosted_calls: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    evidence_missing: bool = False
    include: list[str] = field(default_factory=list)
    config: ToolConfig | None = None  # tools offered where it came from
    charges: list[Charge] = field(default_factory=list)
    ended_by: dict[str, Any] | None = None

    @property
    def turns_carried(self) -> int:
        return len(self.charges)

    @property
    def later_turns(self) -> int:
        """Turns after the arrival that billed it again (the re-bills)."""
        return sum(1 for c in self.charges if c.turn != self.arrived_turn)

    @property
    def tokens_billed(self) -> int:
        return sum(c.tokens for c in self.charges)

    @property
    def tokens_rebilled(self) -> int:
        return sum(c.tokens for c in self.charges if c.turn != self.arrived_turn)

    @property
    def cost_usd(self) -> float | None:
        return _sum_cost(self.charges)

    @property
    def cost_rebilled_usd(self) -> float | None:
        return _sum_cost([c for c in self.charges if c.turn != self.arrived_turn])

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "kind": self.kind, "arrived_turn": self.arrived_turn,
            "tokens_per_turn": self.tokens, "origin_turns": self.origin_turns,
            "hosted_calls": self.hosted_calls, "types": self.types,
            "evidence_missing": self.evidence_missing, "include": self.include,
            "turns_carried": self.turns_carried, "later_turns": self.later_turns,
            "tokens_billed": self.tokens_billed, "tokens_rebilled": self.tokens_rebilled,
            "cost_usd": _round(self.cost_usd), "cost_rebilled_usd": _round(self.cost_rebilled_usd),
            "charges": [c.to_dict() for c in self.charges], "ended_by": self.ended_by,
        }


@dataclass
class TurnCarry:
    """What one turn pays for context carried from earlier turns (sources are shared with
    the ledger, so an arrival turn's account sees the re-bills that came later)."""

    tokens: int = 0
    cost_usd: float | None = 0.0
    charges: list[tuple[Source, Charge]] = field(default_factory=list)
    outlived_tools: list[dict[str, Any]] = field(default_factory=list)
    arrived: list[Source] = field(default_factory=list)  # sources first billed on this turn

    def to_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "cost_usd": _round(self.cost_usd),
                "sources": [{"id": s.id, "tokens": c.tokens, "cost_usd": _round(c.cost_usd)}
                            for s, c in self.charges],
                "outlived_tools": self.outlived_tools,
                "arrived": [s.id for s in self.arrived]}


@dataclass
class ConversationLedger:
    key: str
    sources: list[Source] = field(default_factory=list)
    bill_usd: float | None = None
    growth: dict[str, Any] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return sum(s.tokens_billed for s in self.sources)

    @property
    def cost_usd(self) -> float | None:
        return _sum_cost([c for s in self.sources for c in s.charges])

    @property
    def share_of_cost(self) -> float | None:
        cost = self.cost_usd
        if cost is None or not self.bill_usd:
            return None
        return round(cost / self.bill_usd, 4)

    def to_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "cost_usd": _round(self.cost_usd),
                "share_of_cost": self.share_of_cost,
                "sources": [s.to_dict() for s in self.sources],
                "growth": self.growth, "apportioned": APPORTIONED}


@dataclass
class Ledger:
    conversations: dict[str, ConversationLedger] = field(default_factory=dict)
    turns: dict[int, TurnCarry] = field(default_factory=dict)

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
    for key, conv_turns in by_conv.items():
        conv_turns.sort(key=lambda t: t.index)
        conv = _conversation(key, conv_turns, pricing, config_of, ledger, project)
        conv.bill_usd = (bills or {}).get(key)
        ledger.conversations[key] = conv
    return ledger


def _conversation(key: str, turns: Sequence[LedgerTurn], pricing: Pricing | None,
                  config_of: Callable[[int], ToolConfig | None] | None, ledger: Ledger,
                  project: int) -> ConversationLedger:
    conv = ConversationLedger(key)
    conv.growth = growth(turns, project)
    # Only conversations with a deposit or a hosted call can carry anything.
    if not any("deposit" in t.markers or t.hosted_calls for t in turns):
        return conv
    configs: dict[int, ToolConfig | None] = {}

    def config(t: LedgerTurn) -> ToolConfig | None:
        if t.index not in configs:
            c = config_of(t.index) if config_of else None
            if c is None and t.tools_offered:
                c = ToolConfig(frozenset("web_search" if x in _WEB_ALIASES else x
                                         for x in t.tools_offered))
            configs[t.index] = c
        return configs[t.index]

    absorbed: set[str] = set()  # hosted calls a deposit already accounts for
    for t in turns:
        a = t.attribution
        if "deposit" in t.markers and a:
            absorbed.update(c for c in a.get("hosted_calls") or [] if c)
    active: list[Source] = []
    made: list[Source] = []
    pending: list[tuple[LedgerTurn, dict[str, Any]]] = []  # captured calls awaiting a turn
    by_index = {t.index: t for t in turns}
    for t in turns:
        marker_end = next((m for m in ENDS if m in t.markers), None)
        if marker_end and active:
            for s in active:
                s.ended_by = {"turn": t.index, "kind": marker_end}
            active = []
        if marker_end:
            pending = []
        if "deposit" in t.markers and t.unexplained_tokens and t.unexplained_tokens > 0:
            active.append(_deposit_source(key, t, by_index, config))
            made.append(active[-1])
        if pending and t.input_tokens is not None:
            unexplained = t.unexplained_tokens
            if unexplained and unexplained > 0 and "deposit" not in t.markers:
                active.append(_hosted_source(key, t, pending, unexplained, config))
                made.append(active[-1])
            pending = []
        if t.input_tokens is not None and active:
            carry = ledger.turns.setdefault(t.index, TurnCarry())
            here = config(t)
            for s in active:
                charge = Charge(t.index, s.tokens, _price(pricing, t, s.tokens))
                s.charges.append(charge)
                carry.tokens += s.tokens
                carry.cost_usd = _add(carry.cost_usd, charge.cost_usd)
                carry.charges.append((s, charge))
                if s.arrived_turn == t.index:
                    carry.arrived.append(s)
                outlived = _outlived(s, here)
                if outlived:
                    carry.outlived_tools.append({"source": s.id, "reason": outlived})
        for call in t.hosted_calls:
            if call.get("evidence") == "captured" and call.get("id") not in absorbed:
                pending.append((t, call))
    conv.sources = made
    return conv


def _deposit_source(key: str, t: LedgerTurn, by_index: dict[int, LedgerTurn],
                    config: Callable[[LedgerTurn], ToolConfig | None]) -> Source:
    a = t.attribution or {}
    origin = [int(x) for x in a.get("turns") or []]
    s = Source(
        id=f"deposit@{t.index}", kind="deposit", conversation=key, arrived_turn=t.index,
        tokens=int(t.unexplained_tokens or 0), origin_turns=origin,
        hosted_calls=[c for c in a.get("hosted_calls") or [] if c],
        types=list(a.get("types") or []), evidence_missing=bool(a.get("evidence_missing")),
        include=list(a.get("include") or []),
    )
    s.config = _origin_config(origin, by_index, config, s.types)
    return s


def _hosted_source(key: str, t: LedgerTurn, pending: list[tuple[LedgerTurn, dict[str, Any]]],
                   tokens: int, config: Callable[[LedgerTurn], ToolConfig | None]) -> Source:
    origin = sorted({o.index for o, _ in pending})
    types = sorted({c.get("type") or "" for _, c in pending})
    s = Source(
        id=f"hosted@{origin[-1]}", kind="hosted_result", conversation=key,
        arrived_turn=t.index, tokens=tokens, origin_turns=origin,
        hosted_calls=[c.get("id") for _, c in pending if c.get("id")], types=types,
    )
    by_index = {o.index: o for o, _ in pending}
    s.config = _origin_config(origin, by_index, config, types)
    return s


def _origin_config(origin: list[int], by_index: dict[int, LedgerTurn],
                   config: Callable[[LedgerTurn], ToolConfig | None],
                   types: list[str]) -> ToolConfig | None:
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
    return ToolConfig(frozenset(wanted), frozenset(stores))


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


def _price(pricing: Pricing | None, t: LedgerTurn, tokens: int) -> float | None:
    """`tokens` of this turn's input at its own cached/fresh split (apportioned)."""
    if pricing is None or not t.input_tokens:
        return None
    prices = pricing.model_prices(t.model)
    if prices is None or "input" not in prices:
        return None
    cached_share = min(max((t.cached_tokens or 0) / t.input_tokens, 0.0), 1.0)
    cached_price = prices.get("cached_input", prices["input"])
    per_token = (cached_share * cached_price + (1 - cached_share) * prices["input"]) / 1e6
    return tokens * per_token


# ------------------------------------------------------------------------------- growth


def growth(turns: Sequence[LedgerTurn], project: int = PROJECT_TURNS) -> dict[str, Any]:
    """Cumulative billed input and owned-state equivalent bytes at the conversation's last
    turn (each turn carries its own: `cumulative_input_tokens`, `owned_state_bytes`), and a
    labelled projection of the next `project` turns' input from a line fitted since the
    last compaction."""
    cumulative = 0
    fit_x: list[int] = []
    fit_y: list[int] = []
    last_owned = None
    for n, t in enumerate(turns, 1):
        inp = t.input_tokens
        if any(m in t.markers for m in ENDS):
            fit_x, fit_y = [], []
        if inp is not None:
            cumulative += inp
            fit_x.append(n)
            fit_y.append(inp)
        if t.owned_state_bytes is not None:
            last_owned = t.owned_state_bytes
    projection: dict[str, Any] | None = None
    if len(fit_x) >= 2:
        slope, intercept = statistics.linear_regression(fit_x, fit_y)
        last = len(turns)
        nxt = []
        running = cumulative
        for k in range(1, project + 1):
            value = max(0, round(intercept + slope * (last + k)))
            running += value
            nxt.append({"turn_offset": k, "input_tokens": value,
                        "cumulative_input_tokens": running})
        projection = {"label": PROJECTION, "tokens_per_turn_growth": round(slope, 1),
                      "fitted_turns": len(fit_x), "next": nxt}
    return {"cumulative_input_tokens": cumulative if fit_x or cumulative else None,
            "owned_state_bytes": last_owned, "projection": projection}


# ------------------------------------------------------------------------------- helpers


def _sum_cost(charges: Sequence[Charge]) -> float | None:
    total: float | None = 0.0
    for c in charges:
        total = _add(total, c.cost_usd)
    return total


def _add(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 6)


EMPTY_CARRY: dict[str, Any] = TurnCarry().to_dict()
