"""The analysed numbers of one turn: exactly the report contract's keys, plus a few extras.

A TurnReport is a view of one row: what analysis adds (expected input, markers, …) is
read from the analysis's columns (turn_columns.py), everything else from the Turn's facts,
through properties. One copy of each number per turn and no object per turn held, which
is what keeps a gigabyte capture's summary small. The properties that read the turn's
request and response alone are TurnSides' (turn_sides.py); the row's keys and its reading
back for the explanation are turn_row.py's. A row is made by turn_rows.py, a batch of turns
at a time (`row` is a batch of one; many reports' rows: report_rows.py); the values it
computes are turn_values.py's functions, which the properties here call too.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from traceview.analysis.conversation_report import ConversationReport
from traceview.analysis.cost.attribution import TurnAttribution, attribution
from traceview.analysis.cost.price import price_sides
from traceview.analysis.explain import explain, explain_and_findings, findings
from traceview.analysis.hosted.carry import EMPTY_CARRY, TurnCarry
from traceview.analysis.lineage import lineage_of
from traceview.analysis.pricing import Cost
from traceview.analysis.timing import timing_of
from traceview.analysis.turn_batch import Batch
from traceview.analysis.turn_columns import Attribution, TurnColumns
from traceview.analysis.turn_row import PROSE, ROW_KEYS, TABLE_UNREAD, WHOLE_KEYS, RowRead
from traceview.analysis.turn_rows import batch_columns, rows, rows_of
from traceview.analysis.turn_sides import UNREAD, TurnSides
from traceview.analysis.turn_values import (
    NOT_PRICED,
    attribution_dict,
    carry_of,
    context_value,
    cost_usd,
    input_account,
    owner_dict,
    passes,
    unexplained,
)
from traceview.capture.model import HostedCall, Turn

__all__ = ["Attribution", "ConversationReport", "TurnColumns", "TurnReport"]


def _count(name: str) -> property:
    """A TurnReport count read from its TurnColumns at the turn's row (None: unknown)."""
    get_col = attrgetter(name)

    def get(self: TurnReport) -> int | None:
        v = get_col(self._cols)[self._r]
        return None if v < 0 else v

    return property(get)


def _sparse(name: str, doc: str) -> property:
    """A value only some turns have, kept in its TurnColumns' dict by the turn's row
    (None: not set). A slot on every turn costs 8 bytes; most turns would hold None."""
    get_dict = attrgetter(name)

    def get(self: TurnReport) -> Any:
        return get_dict(self._cols).get(self._r)

    def put(self: TurnReport, value: Any) -> None:
        d = get_dict(self._cols)
        if value is None:
            d.pop(self._r, None)
        else:
            d[self._r] = value

    return property(get, put, doc=doc)


class TurnReport(TurnSides):
    """One analysed turn: a view of a row of the analysis's columns (TurnColumns), made
    when read. Two references, no per-turn object held: every value is read from the
    turn's facts or from the analysis's columns at the turn's row, and what is set on a
    report (markers, context, the provider copy) is written there. Two views of one row
    are equal (and hash alike)."""

    # `_price`: the price, made on first read and kept while this view lives (the turn's
    # row and sides: TurnSides's slots).
    __slots__ = ("_price",)

    def __init__(self, columns: TurnColumns, row: int, price: Cost | None = None) -> None:
        """`price`: the turn's price when its row's batch has made it (turn_rows.py
        `Batch.costs`), so that the prose made from the row does not price it again."""
        self._cols = columns
        self._r = row
        self._turn: Turn | None = None
        self._req: Any = UNREAD
        self._res: Any = UNREAD
        self._calls: tuple[HostedCall, ...] | None = None
        self._price: Cost | None = price

    def __eq__(self, other: object) -> bool:
        return (type(other) is TurnReport and other._cols is self._cols
                and other._r == self._r)

    def __hash__(self) -> int:
        return hash((id(self._cols), self._r))

    @property
    def source(self) -> str:
        """The name of the file the turn was read from, as the analysis was given it."""
        c = self._cols
        return c.sources[c.table.source[self._r]]

    @property
    def conversation_key(self) -> str:
        c = self._cols
        return c.keys[c.conv[self._r]]

    @property
    def markers(self) -> list[str]:
        """The turn's markers, in display order (a shared list: never mutate it)."""
        c = self._cols
        return c.marker_lists[c.marker_ids[self._r]]

    @markers.setter
    def markers(self, value: list[str]) -> None:
        self._cols.set_markers(self._r, value)

    # What the analyzer found that only some turns have: passes of a hosted loop, a
    # resent compaction, calls left unanswered, changed fingerprints…; the provider copy
    # the capture deleted (the objects pass: {"object", "kind", "state", "line", "note"}).
    context = _sparse("context", "rare analysis findings behind markers and the account")
    provider_copy = _sparse("provider_copy", "set when the capture deleted its provider copy")

    # The analysis's own counts, in columns at the turn's table row (TurnColumns): no int
    # objects per turn.
    owned_state_bytes = _count("owned_state_bytes")
    expected_input = _count("expected_input")
    cumulative_input_tokens = _count("cumulative_input_tokens")

    @property
    def attribution(self) -> dict[str, Any] | None:
        """The hosted calls a deposit is attributed to: {"turn", "turns", "hosted_calls",
        "types", "evidence_missing", "include", "include_sent"} (made when read)."""
        return attribution_dict(self._cols.attribution_of(self._r))

    @attribution.setter
    def attribution(self, value: Attribution | dict[str, Any] | None) -> None:
        c = self._cols
        if value is None:
            c.attribution.pop(self._r, None)
            if self._r < len(c.attributed):
                c.attributed[self._r] = -1
        else:
            c.attribution[self._r] = value

    @property
    def carried(self) -> TurnCarry | None:
        """What this turn pays for context carried from earlier turns (the ledger's pass,
        analysis/ledger.py): looked up in the ledger when read; None when it carries none."""
        return carry_of(self._cols, self._r, self.conversation_key, self.index)

    @carried.setter
    def carried(self, carry: TurnCarry | None) -> None:
        if carry is None:
            self._cols.carried.pop(self._r, None)
        else:
            self._cols.carried[self._r] = carry

    @property
    def lineage(self) -> dict[str, Any] | None:
        """The turn's evidence lineage (analysis/lineage.py); None: none. Its hosted calls
        are the view's, read once for the row."""
        req, res = self.req, self.res
        got = lineage_of(req.extra if req is not None else None,
                         res.extra if res is not None else None, self.calls,
                         self._cols.lineage.get(self._r))
        return got.to_dict() if got is not None else None

    @property
    def columns(self) -> TurnColumns:
        """The analysis's columns this turn's own numbers are kept in."""
        return self._cols

    def __repr__(self) -> str:
        return f"TurnReport(index={self.index}, markers={self.markers})"

    @property
    def index(self) -> int:
        return int(self._cols.table.index[self._r])

    # Time to first token, caller latency with backoff, stream evidence… (analysis/timing.py)
    timing = property(timing_of)

    @property
    def input_account(self) -> list[dict[str, Any]] | None:
        """The turn's billed input itemised (rules/account.py): [{component, name, tokens,
        basis, source_turn, reason}, …]; None when the request could not be read."""
        req = self.req
        handle = (req.previous_response_id or req.conversation_id) if req is not None else None
        return input_account(self._cols, self._r, handle, self.expected_input, self.index)

    @property
    def carried_copy(self) -> Any:
        """The carried line as a provider copy counted it (analysis/account/carried.py
        CarriedCount), once one was attached; else None."""
        return self._cols.carried_copy.get(self.index)

    @property
    def expected_input_unknown(self) -> str | None:
        """Why expected_input is null although the previous turn's usage is known."""
        return context_value(self.context, "expected_input_unknown")  # type: ignore[no-any-return]

    @property
    def model_passes(self) -> int:
        """Model passes the output shows (1 + hosted calls the model continued after)."""
        calls = self.calls
        return passes(self.res.output_types if calls else None, calls)

    @property
    def provider_counters(self) -> list[dict[str, Any]]:
        return context_value(self.context, "provider_counters")  # type: ignore[no-any-return]

    @property
    def analysis_context(self) -> dict[str, Any]:
        """Rare analysis findings behind the markers and the account (see README)."""
        return context_value(self.context, "analysis_context")  # type: ignore[no-any-return]

    # ---- derived (not stored: a gigabyte capture holds a hundred thousand of these) ----
    @property
    def unexplained_tokens(self) -> int | None:
        """Billed input minus expected input: positive is a deposit, negative compaction."""
        return unexplained(self.input_tokens, self.expected_input)

    def _cost(self) -> Cost:
        if self._price is not None:
            return self._price
        res = self.res
        pricing = self._cols.pricing
        if pricing is None:
            cost = NOT_PRICED
        else:
            cost = price_sides(pricing, self.model, self.req, res, self.calls)
        self._price = cost
        return cost

    @property
    def cost_hosted_usd(self) -> float:
        return self._cost().hosted_usd

    @property
    def priced(self) -> Cost:
        """The whole price: its lines (`parts`) and the tier they were priced at."""
        return self._cost()

    @property
    def turn_attribution(self) -> TurnAttribution:
        """Who the turn was for (analysis/cost/attribution.py)."""
        req, res = self.req, self.res
        return attribution(req.extra if req is not None else None,
                           self._cols.conversation_metadata.get(self.conversation or ""),
                           res.extra if res is not None else None)

    @property
    def cost_reason(self) -> str | None:
        return self._cost().reason

    @property
    def cost_usd(self) -> float | None:
        return cost_usd(self._cost())

    @property
    def attributed_to(self) -> dict[str, Any]:
        """The report's form of `turn_attribution` (most turns': one shared dict)."""
        return owner_dict(self.turn_attribution)

    # ---- composed on demand ----------------------------------------------------------
    @property
    def cost(self) -> dict[str, Any]:
        """Where the cost came from: tokens, hosted tool fees, or why it is unknown."""
        return self._cost().to_dict()

    @property
    def carried_context(self) -> dict[str, Any]:
        """Context from earlier turns this turn is billed for again (the ledger's share)."""
        carry = self.carried  # looked up in the ledger: once
        return carry.to_dict() if carry is not None else EMPTY_CARRY

    @property
    def explanation(self) -> list[str]:
        """Plain-language sentences, composed on demand (cheap, and not held for every turn)."""
        return explain(self)

    @property
    def findings(self) -> list[str]:
        """The explanation's sentences that report a finding, to lead with on screen."""
        return findings(self)

    def to_dict(self) -> dict[str, Any]:
        return self.row()

    def row(self, explained: bool = True, *, whole: bool = True) -> dict[str, Any]:
        """The turn's row: every key of CONTRACT_KEYS then EXTRA_KEYS (turn_rows.py reads
        them). `explained=False`: the explanation and findings left None, the view kept
        under "_view" for `explain_row`; `whole=False` as well: the accounts no table cell
        reads ("cost", "carried_context", "ts", "timing") left None, for the text report."""
        return rows_at(self._cols, [self._r], explained, whole)[0]

    def unexplained_row(self) -> dict[str, Any]:
        """The row without its prose keys (`explanation`, `findings`), the others in row
        order: what the JSON report writes unless asked for the sentences."""
        return rows(self._cols, [self._r], WHOLE_KEYS)[0]


def rows_at(cols: TurnColumns, at: list[int], explained: bool,
            whole: bool) -> list[dict[str, Any]]:
    """`row(explained, whole=whole)` of the turns at table rows `at` of `cols`."""
    return made_rows(Batch(cols, at), explained, whole)[0]


def made_rows(b: Batch, explained: bool,
              whole: bool) -> tuple[list[dict[str, Any]], list[list[Any]]]:
    """`rows_at` of batch `b`'s turns, with the values of each of ROW_KEYS they were
    made of (`batch_columns`; the prose keys' are None: the rows hold the sentences)."""
    columns = batch_columns(b, ROW_KEYS, PROSE if whole or explained else TABLE_UNREAD)
    out = rows_of(ROW_KEYS, columns)
    # The row's cost_usd was read from the batch's prices: the view the prose reads the
    # price through (`priced`, `cost_hosted_usd`) is handed them, each turn priced once.
    for d, r, cost in zip(out, b.rows, b.costs, strict=True):
        view = TurnReport(b.cols, r, cost)
        if explained:
            d["explanation"], d["findings"] = explain_and_findings(RowRead(d, view))
        else:
            d["_view"] = view
    return out, columns
