"""The analysis's own per-turn values, in columns by the turn table's row.

A capture's summary lives as long as the capture: a hundred thousand turns. As objects
(one TurnReport a turn, five references, its markers and counts) it was ~80 bytes a
turn before any number; here each of a turn's analysed values is one slot of an array at
the turn's row, at the narrowest item size its values need (`put` widens a column when a
value does not fit: 4-byte counts become 8-byte ones, never wrong, only wider). A
TurnReport is a view of (columns, row) made when read (turn_report.py), and the list of
reports a sequence of rows (reports.py).

What only some turns have (a finding's context, the provider copy the capture deleted, a
carried-context override) is kept in dicts by row; a deposit's attribution is kept as the
rows of the hosted turns it is attributed to, and made into its tuple when read.
"""

from __future__ import annotations

from array import array
from typing import Any, NamedTuple

from traceview.analysis.columns import Columns
from traceview.analysis.markers import NO_MARKERS
from traceview.analysis.shared import shared
from traceview.capture.table import UNKNOWN
from traceview.capture.table import count as stored

# The next wider item of an array that a value overflowed (signed; 'B'/'H' unsigned).
_WIDER = {"b": "h", "h": "i", "i": "q", "B": "H", "H": "I", "I": "Q"}


def widened(col: array, value: int) -> array:
    """`col` copied into the narrowest wider item size that holds `value` (OverflowError
    when even 8 bytes do not)."""
    code = col.typecode
    while True:
        code = _WIDER.get(code, "")
        if not code:
            raise OverflowError(f"{value} does not fit an 8-byte column")
        try:
            array(code, (value,))
        except OverflowError:
            continue
        return array(code, col)


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


# Columns by name, their item type and the value a row holds until the analyzer sets it.
_COUNTS = ("owned_state_bytes", "expected_input", "cumulative_input_tokens")
_COLUMNS = (*((name, "i", UNKNOWN) for name in _COUNTS),
            ("marker_ids", "B", 0), ("conv", "H", 0), ("attributed", "i", -1))


class TurnColumns:
    """One analyzer's per-turn values over one turn table, by row (UNKNOWN: None).

    One per Analyzer and table: two analyses of one capture (other options) keep their own
    numbers, and a turn of another table (one built alone) gets columns of its own.
    `keys`: the analyzer's conversation keys (shared by its columns), numbered by `conv`;
    `sources`: the turn table's source numbers → the names the analyzer was given."""

    __slots__ = ("owned_state_bytes", "expected_input", "cumulative_input_tokens", "table",
                 "pricing", "attribution", "context", "provider_copy", "carried", "ledger",
                 "marker_ids", "marker_lists", "_marker_numbers", "conv", "keys", "sources",
                 "attributed", "attributed_rows", "_bound", "_read")

    def __init__(self, pricing: Any = None, table: Any = None,
                 keys: list[str] | None = None) -> None:
        self.table = table
        for name, code, _ in _COLUMNS:
            setattr(self, name, array(code))
        # Cost is priced again when read (a dict lookup and three products) rather than
        # held: two floats and a reason per turn are 5 % of a large capture's summary.
        self.pricing = pricing
        # A turn's markers: a number into one list per distinct combination (a few dozen
        # cover a capture; 0 is NO_MARKERS). The lists are shared and never mutated.
        self.marker_lists: list[list[str]] = [NO_MARKERS]
        self._marker_numbers: dict[tuple[str, ...], int] = {(): 0}
        self.keys: list[str] = keys if keys is not None else []
        self.sources: dict[int, str] = {}
        # A deposit's attributed hosted turns: `attributed[row]` is where its list starts in
        # `attributed_rows` ([count, row, row, …]); -1: none.
        self.attributed_rows = array("i")
        # By row, where set (TurnReport's properties of the same names): an attribution
        # given as a value (not made by the analyzer), rare findings, the provider copy.
        self.attribution: dict[int, Any] = {}
        self.context: dict[int, dict[str, Any]] = {}
        self.provider_copy: dict[int, dict[str, Any]] = {}
        self.carried: dict[int, Any] = {}
        # Set by the hosted-state pass: a turn's carried context is looked up in it when
        # read (analysis/ledger.py Ledger.carry), not held per turn.
        self.ledger: Any = None
        self._bound: Columns | None = None
        # The attributions read lately, by row: a pass reads a conversation's deposits
        # more than once (the ledger: once for what they absorb, once for their source).
        self._read: dict[int, Attribution] = {}

    def holds(self, turn: Any) -> bool:
        """Whether `turn`'s row is a row of these columns (claiming its table if unset)."""
        if self.table is None:
            self.table = turn.table
        return self.table is turn.table

    def grow(self, row: int) -> None:
        """Rows up to `row` (grown to the table's rows at once, not row by row)."""
        self.fill(max(row + 1, len(getattr(self.table, "index", ()))))

    def fill(self, rows: int) -> None:
        """Columns `rows` long, the rows added holding each column's default."""
        for name, _, fill in _COLUMNS:
            col = getattr(self, name)  # at its own item size: it may have widened
            more = rows - len(col)
            if more > 0:
                col.extend(array(col.typecode, (fill,)) * more)

    def put(self, row: int, owned: int | None, expected: int | None,
            cumulative: int | None) -> None:
        """A turn's analysed counts (None: unknown)."""
        if len(self.owned_state_bytes) <= row:
            self.grow(row)
        for name, value in zip(_COUNTS, (owned, expected, cumulative), strict=True):
            self.set(name, row, stored(value))

    def store(self, row: int, owned: int | None, expected: int | None,
              cumulative: int | None, conv: int) -> None:
        """A turn's analysed counts and conversation number at `row` (the analyzer's path
        when the row is not the next one, or a value overflowed its column): columns
        first made as long as the rows, then each value set, widening what needs it."""
        n = len(self.conv)  # rows complete (a failed append left a longer column)
        for name, _, _ in _COLUMNS:
            del getattr(self, name)[n:]
        self.fill(max(n, row + 1))
        self.put(row, owned, expected, cumulative)
        self.set("conv", row, conv)

    def set(self, name: str, row: int, value: int) -> None:
        """`value` into column `name` at `row`, the column widened when it does not fit."""
        col = getattr(self, name)
        try:
            col[row] = value
        except OverflowError:
            col = widened(col, value)
            col[row] = value
            setattr(self, name, col)

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
            self.grow(row)
        self.set("marker_ids", row, n)

    # ---- the attribution -------------------------------------------------------------
    def attribute(self, row: int, rows: Any) -> None:
        """Attribute `row`'s deposit to the hosted turns at `rows` (in order)."""
        at = len(self.attributed_rows)
        self.attributed_rows.append(len(rows))
        self.attributed_rows.extend(rows)
        self.set("attributed", row, at)
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
            a = self._attribution(self.attributed_rows[at + 1:at + 1 + n])
            if len(read) >= 64:
                read.clear()
            read[at] = a
        return a

    def bound(self) -> Columns:
        """The turn table's columns, bound once (again when the table widened one)."""
        c = self._bound
        t = self.table
        if c is None or c.table is not t or getattr(c, "version", None) != getattr(
                t, "version", None):
            c = self._bound = Columns(t)
        return c

    def _attribution(self, rows: Any) -> Attribution:
        """What the analyzer found when the deposit arrived, from the hosted turns' facts
        (the table's rows do not change once a turn is analysed)."""
        c = self.bound()
        values, req_row, res_row = c.values, c.req_row, c.res_row
        turns = tuple(c.index[r] for r in rows)
        calls = []
        missing = []
        for r in rows:
            qi = req_row[r]
            include = values[c.q_include[qi]] if qi >= 0 else ()
            for h in c.s_hosted.get(res_row[r], ()):
                calls.append(h)
                if h.evidence == "missing":
                    missing.append((h, include))
        flags = {h.include for h, inc in missing if h.include and h.include not in inc}
        sent = {h.include for h, inc in missing if h.include and h.include in inc}
        return Attribution(turns, tuple(h.id for h in calls), _sorted({h.type for h in calls}),
                           bool(missing), _sorted(flags), _sorted(sent))
