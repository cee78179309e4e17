"""The analysis's own per-turn values, in columns by the turn table's row.

A capture's summary lives as long as the capture: a hundred thousand turns. As objects
(one TurnReport a turn, five references, its markers and counts) it was ~80 bytes a
turn before any number; here each of a turn's analysed values is one slot of an array at
the turn's row, 8 bytes for a count (clamped to the turn table's LIMIT, so one always fits)
and 4 for a number. A TurnReport is a view of (columns, row) made when read
(turn_report.py), and the list of reports a sequence of rows (reports.py).

What only some turns have (a finding's context, the provider copy the capture deleted, a
carried-context override) is kept in dicts by row; a deposit's attribution is kept as the
rows of the hosted turns it is attributed to, and made into its tuple when read.
"""

from __future__ import annotations

from array import array
from typing import Any, NamedTuple

from traceview.analysis.markers import NO_MARKERS
from traceview.analysis.shared import shared
from traceview.capture.calls import Brief
from traceview.capture.model import Turn as turn_view
from traceview.capture.side_columns import UNKNOWN
from traceview.capture.side_columns import count as stored

__all__ = ["Attribution", "TurnColumns", "turn_view"]


class Attribution(NamedTuple):
    """The hosted calls a deposit is attributed to, as read (a tuple made when a report
    reads it); the report's dict is `to_dict`."""

    turns: tuple[int, ...]
    hosted_calls: tuple[str | None, ...]
    types: tuple[str, ...]
    evidence_missing: bool
    include: tuple[str, ...]
    include_sent: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turns[-1], "turns": list(self.turns),
                "hosted_calls": list(self.hosted_calls), "types": list(self.types),
                "evidence_missing": self.evidence_missing, "include": list(self.include),
                "include_sent": list(self.include_sent)}


def _sorted(names: set[str]) -> tuple[str, ...]:
    """`names` sorted, one shared tuple per distinct list."""
    return shared(tuple(sorted(names)))


# Columns by name, their typecode and the value a row holds until the analyzer sets it:
# counts (clamped to the turn table's LIMIT) in 8 bytes, numbers of a list, a conversation
# or a turn in 4.
_COUNTS = ("owned_state_bytes", "expected_input", "cumulative_input_tokens")
_COLUMNS = (*((name, "q", UNKNOWN) for name in _COUNTS),
            ("marker_ids", "i", 0), ("conv", "i", 0), ("attributed", "i", -1),
            ("account_ids", "i", -1), ("account_from", "i", -1))


class TurnColumns:
    """One analyzer's per-turn values over one turn table, by row (UNKNOWN: None).

    One per Analyzer and table: two analyses of one capture (other options) keep their own
    numbers, and a turn of another table (one built alone) gets columns of its own.
    `keys`: the analyzer's conversation keys (shared by its columns), numbered by `conv`;
    `sources`: the turn table's source numbers → the names the analyzer was given."""

    __slots__ = ("owned_state_bytes", "expected_input", "cumulative_input_tokens", "table",
                 "pricing", "attribution", "context", "provider_copy", "carried", "ledger",
                 "marker_ids", "marker_lists", "_marker_numbers", "conv", "keys", "sources",
                 "attributed", "attributed_rows", "_read", "account_ids", "account_from",
                 "account_lists", "_account_numbers", "conversation_metadata", "lineage",
                 "cost_marks", "carried_copy")

    def __init__(self, pricing: Any = None, table: Any = None,
                 keys: list[str] | None = None) -> None:
        self.table = table
        self.owned_state_bytes: array[int] = array("q")
        self.expected_input: array[int] = array("q")
        self.cumulative_input_tokens: array[int] = array("q")
        self.marker_ids: array[int] = array("i")
        self.conv: array[int] = array("i")
        self.attributed: array[int] = array("i")
        # A turn's input account: a number into one list per distinct account (their
        # lines pooled, the carried line's handle and size filled when read), -1: none;
        # and the turn the carried conversation is sized from, -1: none.
        self.account_ids: array[int] = array("i")
        self.account_from: array[int] = array("i")
        self.account_lists: list[tuple[Any, ...]] = []
        self._account_numbers: dict[tuple[Any, ...], int] = {}
        # Each conversation's metadata (analysis/cost/attribution.py), set once every
        # exchange is in: what a turn's `attributed_to` merges its request's metadata over.
        self.conversation_metadata: dict[str, dict[str, str]] = {}
        # Cost is priced again when read (a dict lookup and three products) rather than
        # held: two floats and a reason per turn would grow a large capture's summary.
        self.pricing = pricing
        # A turn's markers: a number into one list per distinct combination (a few dozen
        # cover a capture; 0 is NO_MARKERS). The lists are shared and never mutated.
        self.marker_lists: list[list[str]] = [NO_MARKERS]
        self._marker_numbers: dict[tuple[str, ...], int] = {(): 0}
        self.keys: list[str] = keys if keys is not None else []
        self.sources: dict[int, str] = {}
        # A deposit's attributed hosted turns: `attributed[row]` is where its list starts in
        # `attributed_rows` ([count, row, row, …]); -1: none.
        self.attributed_rows: array[int] = array("q")
        # By row, where set (TurnReport's properties of the same names): an attribution
        # given as a value (not made by the analyzer), rare findings, the provider copy.
        self.attribution: dict[int, Any] = {}
        self.context: dict[int, dict[str, Any]] = {}
        self.provider_copy: dict[int, dict[str, Any]] = {}
        # By turn index: the carried line counted from a provider copy (`--items`/`--live`,
        # analysis/account/carried.py), read by the turn's `input_account`.
        self.carried_copy: dict[int, Any] = {}
        self.carried: dict[int, Any] = {}
        self.lineage: dict[int, dict[str, Any]] = {}  # the lineage rule's findings
        # By turn index: what the cost section found behind a turn's moderation_flagged or
        # over_budget marker (analysis/cost/section.py), for its explanation.
        self.cost_marks: dict[int, dict[str, Any]] = {}
        # Set by the hosted-state pass: a turn's carried context is looked up in it when
        # read (analysis/ledger.py Ledger.carry), not held per turn.
        self.ledger: Any = None
        # The attributions read lately, by row: a pass reads a conversation's deposits
        # more than once (the ledger: once for what they absorb, once for their source).
        self._read: dict[int, Attribution] = {}

    def fill(self, rows: int) -> None:
        """Columns `rows` long (at least the table's rows: grown at once, not row by row),
        the rows added holding each column's default."""
        rows = max(rows, len(getattr(self.table, "index", ())))
        for name, typecode, fill in _COLUMNS:
            col = getattr(self, name)
            more = rows - len(col)
            if more > 0:
                col.extend(array(typecode, (fill,)) * more)

    def put_row(self, row: int, owned: int | None, expected: int | None,
                cumulative: int | None, conv: int) -> None:
        """A turn's analysed counts (None: unknown) and its conversation's number."""
        if len(self.conv) <= row:
            self.fill(row + 1)
        self.owned_state_bytes[row] = stored(owned)
        self.expected_input[row] = stored(expected)
        self.cumulative_input_tokens[row] = stored(cumulative)
        self.conv[row] = conv

    def count(self, name: str, row: int) -> int | None:
        v = getattr(self, name)[row]
        return None if v < 0 else v

    # ---- markers ---------------------------------------------------------------------
    def markers(self, row: int) -> list[str]:
        return self.marker_lists[self.marker_ids[row]]

    def set_markers(self, row: int, markers: list[str] | tuple[str, ...]) -> None:
        key = tuple(markers)
        n = self._marker_numbers.get(key)
        if n is None:
            n = self._marker_numbers[key] = len(self.marker_lists)
            self.marker_lists.append(list(key))
        if len(self.marker_ids) <= row:
            self.fill(row + 1)
        self.marker_ids[row] = n

    # ---- the input account -----------------------------------------------------------
    def set_account(self, row: int, lines: tuple[Any, ...], source: int | None) -> None:
        n = self._account_numbers.get(lines)
        if n is None:
            n = self._account_numbers[lines] = len(self.account_lists)
            self.account_lists.append(lines)
        if len(self.account_ids) <= row:
            self.fill(row + 1)
        self.account_ids[row] = n
        self.account_from[row] = -1 if source is None else source

    def account(self, row: int) -> tuple[tuple[Any, ...], int | None] | None:
        """A turn's account lines and the turn its carried line is sized from."""
        if row >= len(self.account_ids) or self.account_ids[row] < 0:
            return None
        source = self.account_from[row]
        return self.account_lists[self.account_ids[row]], (None if source < 0 else source)

    # ---- the attribution -------------------------------------------------------------
    def attribute(self, row: int, rows: Any) -> None:
        """Attribute `row`'s deposit to the hosted turns at `rows` (in order)."""
        at = len(self.attributed_rows)
        self.attributed_rows.append(len(rows))
        self.attributed_rows.extend(rows)
        self.attributed[row] = at
        self.attribution.pop(row, None)

    def attribution_of(self, row: int) -> Any:
        """The attribution of `row`'s deposit (an Attribution, or what was set), or None."""
        given = self.attribution.get(row) if self.attribution else None
        if given is not None or row >= len(self.attributed):
            return given
        at = self.attributed[row]
        if at < 0:
            return None
        read = self._read
        a = read.get(at)
        if a is None:
            n = self.attributed_rows[at]
            a = self.attribution_from(self.attributed_rows[at + 1:at + 1 + n])
            if len(read) >= 64:
                read.clear()
            read[at] = a
        return a

    def attribution_from(self, rows: Any) -> Attribution:
        """What the analyzer found when the deposit arrived, from the hosted turns' facts
        (the table's rows do not change once a turn is analysed): their calls read from
        the call columns (capture/calls.py `brief`), none made."""
        turns = [turn_view(self.table, r) for r in rows]
        res_row, hosted = self.table.res_row, self.table.responses.dicts["hosted_calls"]
        calls: list[Brief] = []
        missing: list[tuple[Brief, tuple[str, ...]]] = []
        for t in turns:
            include = t.req.include if t.req is not None else ()
            s = res_row[t._r]
            for h in hosted.brief(s) if s >= 0 else ():
                calls.append(h)
                if h[2] == "missing":
                    missing.append((h, include))
        flags = {h[3] for h, inc in missing if h[3] and h[3] not in inc}
        sent = {h[3] for h, inc in missing if h[3] and h[3] in inc}
        return Attribution(tuple(t.index for t in turns), tuple(h[1] for h in calls),
                           _sorted({h[0] for h in calls}), bool(missing), _sorted(flags),
                           _sorted(sent))
