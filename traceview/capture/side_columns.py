"""The columns of one side of the turn table (requests, responses), declared once: each
column's name, kind, fixed array typecode and what None is stored as (`Col`), how a side's
row is appended from a facts record, and the rules that make a value a column cannot hold
unknown before it is stored. The turn table (table.py) holds one of each side.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from itertools import compress
from operator import attrgetter
from typing import Any, NamedTuple

from traceview.capture.calls import Calls
from traceview.capture.texts import Pool, Texts

# A count outside 0 … LIMIT - 1 (negative, or absurd in a damaged capture) reads back as
# unknown: no real token, byte or millisecond count comes near it.
LIMIT = (1 << 40) - 2
UNKNOWN = -1  # a nullable count's stored None
NO_CREATED = -1.0  # raw_created_at's stored None (scan.CREATED matches no sign)


def count(value: int | None) -> int:
    """A nullable count as stored: the value, or UNKNOWN when missing or unusable."""
    return value if value is not None and 0 <= value < LIMIT else UNKNOWN


def count0(value: int | None) -> int:
    """A count whose absence means 0, as stored."""
    return value if value is not None and 0 <= value < LIMIT else 0


def _sig(value: int | None) -> int:
    return value or 0


def _created(value: float | None) -> float:
    return NO_CREATED if value is None else float(value)


# How a SPARSE field's value is judged worth keeping (None never is).
def _usable(v: Any) -> bool:
    return bool(0 <= v < LIMIT)


def _usable_not_0(v: Any) -> bool:
    return bool(0 < v < LIMIT)


def _any(v: Any) -> bool:
    return True


SET: dict[str, Callable[[Any], bool]] = {"count": _usable, "count0": _usable_not_0,
                                         "value": _any, "truthy": bool}


class Col(NamedTuple):
    """One column of a side, declared once.

    kind: "count" (an array of `typecode`, None and values outside 0 … `limit` - 1 stored
    as `null`),
    "number" (an array of `typecode`, the value stored as `store` makes it), "pooled" (a
    pool number, 0: None), "text" (a Texts), "flag" (a bit of the side's flags column) or
    "sparse" (a dict by row, kept only where `how` judges the value set; `null`: what an
    absent row reads as)."""

    name: str
    kind: str
    typecode: str = ""
    null: Any = None
    how: str = ""
    store: Callable[[Any], Any] | None = None
    limit: int = LIMIT


# A count no record can make larger than its own length (a line is at most 256 MiB, and
# the JSON of its input items at most a few times that): 4 bytes hold every such value.
SHORT_LIMIT = (1 << 31) - 1


def _count(name: str, nullable: bool = True, short: bool = False) -> Col:
    """A count column: 8 bytes a row, or 4 (`short`) where the count is bounded by the
    length of one record; a value outside 0 … limit - 1 is stored as unknown (or 0)."""
    if not short:
        return Col(name, "count", "q", UNKNOWN if nullable else 0,
                   store=count if nullable else count0)
    null = UNKNOWN if nullable else 0

    def store(value: int | None) -> int:
        return value if value is not None and 0 <= value < SHORT_LIMIT else null

    return Col(name, "count", "i", null, store=store, limit=SHORT_LIMIT)


def _append_numbers(column: array[Any], values: list[Any]) -> None:
    """Append a list of numbers to an array column. Through an array of them: `extend`
    with a list converts it item by item through the iterator protocol, several times
    slower than the array constructor, which reads the list directly."""
    column.extend(array(column.typecode, values))


def _pooled(name: str) -> Col:
    return Col(name, "pooled", "i", 0)


class Side:
    """The columns of one side of a turn (its request's facts, or its response's), made
    from the subclass's SCHEMA. `add` stores one plain facts record (model.RequestFacts /
    ResponseFacts) as a new row; `extend` appends a worker's rows."""

    SCHEMA: tuple[Col, ...] = ()
    FLAGS: tuple[str, ...] = ()  # the flag columns' names, in bit order (from SCHEMA)

    def __init_subclass__(cls) -> None:
        cls.FLAGS = tuple(c.name for c in cls.SCHEMA if c.kind == "flag")
        if len(cls.FLAGS) > 16:
            raise ValueError(f"{cls.__name__}: more flags than its 2-byte column holds")

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.cols: dict[str, Any] = {}
        self.dicts: dict[str, Any] = {}
        for c in self.SCHEMA:
            if c.kind in ("count", "number", "pooled"):
                self.cols[c.name] = array(c.typecode)
            elif c.kind == "text":
                self.cols[c.name] = Texts()
            elif c.kind == "sparse":
                self.dicts[c.name] = Calls(pool) if c.name == "hosted_calls" else {}
        self.flags = array("H")  # one bit per "flag" column, in SCHEMA order
        self._bind()

    @classmethod
    def of(cls, kind: str) -> tuple[Col, ...]:
        return tuple(c for c in cls.SCHEMA if c.kind == kind)

    def _bind(self) -> None:
        """What `add_all` reads of a facts record: every field of the schema, in one call
        (made again when a pickled side arrives)."""
        self._fields = attrgetter(*(c.name for c in self.SCHEMA))

    def __getstate__(self) -> dict[str, Any]:
        """What a worker sends: the columns, not the bound lists (made again on arrival)."""
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()

    @property
    def rows(self) -> int:
        """Rows stored: every row has its flags."""
        return len(self.flags)

    def add(self, f: Any) -> int:
        """Store a plain facts record as a new row; its row number."""
        return self.add_all([f])

    def add_all(self, records: Sequence[Any]) -> int:
        """Store plain facts records as new rows, column by column; the first one's row."""
        base = len(self.flags)
        if not records:
            return base
        columns = zip(*map(self._fields, records), strict=True)
        bits = [0] * len(records)
        for c, values in zip(self.SCHEMA, columns, strict=True):
            if c.kind == "count":
                null, limit = c.null, c.limit
                _append_numbers(self.cols[c.name], [v if v is not None and 0 <= v < limit
                                                    else null for v in values])
            elif c.kind == "number":
                stored = list(map(c.store, values))  # type: ignore[arg-type]
                _append_numbers(self.cols[c.name], stored)
            elif c.kind == "pooled":
                _append_numbers(self.cols[c.name], self.pool.numbers_of(values))
            elif c.kind == "text":
                self.cols[c.name].add_all(values)
            elif c.kind == "flag":  # set on few rows, mostly: only those are visited
                bit = 1 << self.FLAGS.index(c.name)
                for i in compress(range(len(bits)), values):
                    bits[i] |= bit
            else:  # sparse: kept where set
                is_set, d = SET[c.how], self.dicts[c.name]
                d.update([(row, v) for row, v in enumerate(values, base)
                          if v is not None and is_set(v)])
        _append_numbers(self.flags, bits)
        return base

    def put(self, name: str, row: int, value: Any) -> None:
        """Set one stored value of column `name` (a view's write)."""
        self.cols[name][row] = value

    def extend(self, other: Side) -> int:
        """Append every row of `other` (a worker's chunk); the row number of its first."""
        base = len(self.flags)
        to_mine = self.pool.mapping(other.pool)
        for c in self.SCHEMA:
            if c.kind in ("count", "number", "text"):
                self.cols[c.name].extend(other.cols[c.name])
            elif c.kind == "pooled":
                _append_numbers(self.cols[c.name], list(map(to_mine.__getitem__,
                                                            other.cols[c.name])))
            elif c.kind == "sparse":
                mine, theirs = self.dicts[c.name], other.dicts[c.name]
                if isinstance(mine, Calls):
                    mine.extend(theirs, base, to_mine)
                else:
                    mine.update({row + base: v for row, v in theirs.items()})
        self.flags.extend(other.flags)
        return base

    def nbytes(self) -> int:
        """Bytes the columns hold (buffers, not the dicts of rare values)."""
        return self.flags.itemsize * len(self.flags) + sum(
            col.nbytes() if isinstance(col, Texts) else col.itemsize * len(col)
            for col in self.cols.values())


class RequestSide(Side):
    SCHEMA = (
        _count("request_bytes"), _count("input_bytes", False, short=True),
        _count("new_input_tokens", False), _count("input_count", False, short=True),
        _count("user_words", short=True),
        # A 64-bit signature, 0 when there is none (the has_sig flag tells).
        Col("first_user_sig", "number", "Q", 0, store=_sig),
        _pooled("api"), _pooled("model"), _pooled("conversation_id"), _pooled("include"),
        _pooled("tools_offered"), _pooled("quoted_ids"),
        # user_text: the first USER_TEXT_MAX characters; the "…" that marks a cut is added
        # where the text is read.
        Col("previous_response_id", "text"), Col("user_text", "text"),
        *(Col(name, "flag") for name in (
            "compaction_input", "compaction_trigger", "context_management", "stream",
            "background", "store_set", "store_value", "instructions", "has_sig", "scanned",
            "raw_store_set", "raw_store_value")),
        Col("extra", "sparse", how="truthy"), Col("truncation", "sparse", how="value"),
    )


class ResponseSide(Side):
    SCHEMA = (
        _count("input_tokens"), _count("cached_tokens"), _count("output_tokens"),
        _count("reasoning_tokens"), _count("elapsed_ms"), _count("output_bytes", False),
        _count("started_at"),
        # Seconds since the epoch as found in the record's bytes (scan.created_in).
        Col("raw_created_at", "number", "d", NO_CREATED, store=_created),
        *(_pooled(name) for name in ("object", "status", "model", "conversation_id",
                                     "output_types", "service_tier", "fingerprint",
                                     "quoted_ids")),
        Col("response_id", "text"),
        *(Col(name, "flag") for name in ("compaction_output", "stream_cut", "store_set",
                                         "store_value", "refusal", "scanned")),
        Col("extra", "sparse", how="truthy"), Col("hosted_calls", "sparse", null=(),
                                                  how="truthy"),
        Col("input_transformations", "sparse", null=0, how="count0"),
        *(Col(name, "sparse", how="count") for name in (
            "http_status", "stream_events", "web_search_requests", "file_search_requests")),
        *(Col(name, "sparse", how="value") for name in (
            "cache_miss_reason", "incomplete_reason", "error", "error_code")),
    )


def flag_bit(side: type[Side], name: str) -> int:
    """The mask of a flag in its side's flags column."""
    return 1 << side.FLAGS.index(name)

