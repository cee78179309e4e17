"""The turn table: a capture's per-turn facts kept in columns, one row per turn.

A large capture holds a hundred thousand turns; as objects each would cost a kilobyte. Here
every column is declared once, in a schema (`Col`: its name, its kind, its fixed array
typecode and what None is stored as), and holds one item per row: counts as 8-byte ints
(4-byte where one record's length bounds them), repeated strings and tuples (model, status,
conversation id, item kinds) as numbers into one shared `Pool`, strings unique to a row
(response id, user text excerpt) as UTF-8 in one buffer (`Texts`), booleans as bits of one
flags column. The rare things (hosted calls, the seldom-set `extra` facts, notes, attempts)
are dicts keyed by row. No column is ever replaced by a wider one: a value a column cannot
hold is unknown by the schema's rule before it is stored.

Screens and reports read a turn through the small views of capture/model.py
(`turn.req.input_count`); the hot analysis passes read the columns at a row.

Columns are also what a worker process sends back (capture/parallel.py): arrays pickle as
raw bytes, and `extend` appends a worker's rows to the main table in one copy per column.
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

__all__ = ["LIMIT", "NO_CREATED", "UNKNOWN", "Calls", "Col", "Facts", "Pool", "RequestSide",
           "ResponseSide", "Side", "Texts", "TurnTable", "count", "count0", "flag_bit"]


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


class Facts:
    """A request side and a response side sharing one pool: what a worker sends back for
    its chunk, and what the main table keeps."""

    # Columns are never replaced, so a binding of them never goes stale: readers that
    # compare this (or `layout.version`) to their binding's always find it unchanged.
    version = 0

    def __init__(self) -> None:
        self.pool = Pool()
        self.requests = RequestSide(self.pool)
        self.responses = ResponseSide(self.pool)

    @property
    def layout(self) -> Facts:
        return self


_REQ_SCANNED = flag_bit(RequestSide, "scanned")
_REQ_STORE_SET = flag_bit(RequestSide, "raw_store_set")
_REQ_STORE_VALUE = flag_bit(RequestSide, "raw_store_value")
_REQ_FACTS_STORE = flag_bit(RequestSide, "store_set")
_RES_SCANNED = flag_bit(ResponseSide, "scanned")
_RES_FACTS_STORE = flag_bit(ResponseSide, "store_set")

# A record's place in its source (a record is at most MAX_LINE_BYTES long), and a row of a
# side: -1 when the turn has none.
_TURN_SCHEMA = (("index", "i"), ("source", "i"), ("api", "i"), ("line", "q"),
                ("req_source", "i"), ("req_offset", "q"), ("req_length", "i"),
                ("res_source", "i"), ("res_offset", "q"), ("res_length", "i"),
                ("res_line", "q"), ("req_row", "i"), ("res_row", "i"))


class TurnTable(Facts):
    """Every turn of a capture: where its records are, its index and API, and which row of
    each side holds its facts (-1: that side is missing). `line` is the request's line
    when there is one, else the turn's own."""

    COLUMNS = tuple(name for name, _ in _TURN_SCHEMA)

    def __init__(self) -> None:
        super().__init__()
        for name, typecode in _TURN_SCHEMA:
            setattr(self, name, array(typecode))
        self.notes: dict[int, tuple[str, ...]] = {}
        self.attempts: dict[int, tuple[Any, ...]] = {}
        self.last_req: Any = None  # the last row views made (model.Turn.req / .res)
        self.last_res: Any = None
        self._unanswered = (self.res_source, self.res_offset, self.res_length, self.res_line)

    # The columns, for the type checker (set from _TURN_SCHEMA above).
    index: array[int]
    source: array[int]
    api: array[int]
    line: array[int]
    req_source: array[int]
    req_offset: array[int]
    req_length: array[int]
    res_source: array[int]
    res_offset: array[int]
    res_length: array[int]
    res_line: array[int]
    req_row: array[int]
    res_row: array[int]

    def __len__(self) -> int:
        return len(self.index)

    def append_turn(self, index: int, source: int, line: int, api: str,
                    request: Sequence[int] | None = None, req_row: int = -1) -> int:
        """A new row: the turn's index, source and first line, its API, where its request
        record is (source, offset, length, line) and the request side's row; its number."""
        r = len(self.index)
        self.index.append(index)
        self.source.append(source)
        self.api.append(self.pool.number(api))
        self.line.append(line)
        if request is None:
            request = (-1, -1, -1)
        self.req_source.append(request[0])
        self.req_offset.append(request[1])
        self.req_length.append(request[2])
        for col in self._unanswered:  # the response's columns: set when it arrives
            col.append(-1)
        self.req_row.append(req_row)
        self.res_row.append(-1)
        return r

    def set_request(self, r: int, ref: Sequence[int] | None) -> None:
        if ref is None:
            self.req_source[r] = -1
            return
        self.req_source[r], self.req_offset[r], self.req_length[r], self.line[r] = ref

    def set_response(self, r: int, ref: Sequence[int] | None) -> None:
        if ref is None:
            self.res_source[r] = -1
            return
        self.res_source[r], self.res_offset[r], self.res_length[r], self.res_line[r] = ref

    def seen(self, r: int) -> tuple[tuple[bytes, ...], tuple[bytes, ...], float | None,
                                     bool | None, int | None] | None:
        """What the objects inventory reads in turn `r`'s record bytes, as found when its
        lines were read (capture/scan.py): (request ids, response ids, the response's
        created_at, the request's store flag in its bytes, the response's line or None
        when it has none). None when a record of the turn was not scanned (a row made from a
        rebuilt stream, a later retrieve, a request body that is no object), or when the
        inventory would look for a store flag in the response's bytes (a stored response
        whose facts hold no store flag on either side, nor its request's bytes): the caller
        reads its bytes again."""
        req_ids: tuple[bytes, ...] = ()
        res_ids: tuple[bytes, ...] = ()
        when = store = line = None
        facts_store = 0
        values = self.pool.values
        if self.res_source[r] >= 0:
            line, row, side = self.res_line[r], self.res_row[r], self.responses
            if row < 0 or not side.flags[row] & _RES_SCANNED:
                return None
            res_ids = values[side.cols["quoted_ids"][row]]
            c = side.cols["raw_created_at"][row]
            when = None if c == NO_CREATED else c
            facts_store = side.flags[row] & _RES_FACTS_STORE
        if self.req_source[r] >= 0:
            row, q = self.req_row[r], self.requests
            if row < 0 or not q.flags[row] & _REQ_SCANNED:
                return None
            bits = q.flags[row]
            req_ids = values[q.cols["quoted_ids"][row]]
            if bits & _REQ_STORE_SET:
                store = bool(bits & _REQ_STORE_VALUE)
            facts_store |= bits & _REQ_FACTS_STORE
        if store is None and not facts_store and line is not None and \
                values[self.api[r]] == "responses" and \
                self.responses.cols["response_id"].lens[self.res_row[r]] > 0:
            return None
        return req_ids, res_ids, when, store, line

    def request_ids(self, r: int) -> tuple[bytes, ...] | None:
        """The object ids quoted in turn `r`'s request record, as found when its lines were
        read (`seen`'s first); None when the turn has no request or it was not scanned."""
        row = self.req_row[r] if self.req_source[r] >= 0 else -1
        q = self.requests
        if row < 0 or not q.flags[row] & _REQ_SCANNED:
            return None
        ids: tuple[bytes, ...] = self.pool.values[q.cols["quoted_ids"][row]]
        return ids

    def nbytes(self) -> int:
        """Bytes held by the columns (not the dicts of rare values, nor the string pool)."""
        n = self.requests.nbytes() + self.responses.nbytes()
        for name in self.COLUMNS:
            col = getattr(self, name)
            n += col.itemsize * len(col)
        return n
