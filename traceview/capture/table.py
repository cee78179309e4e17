"""The turn table: a capture's per-turn facts kept in columns, one row per turn.

A large capture holds a hundred thousand turns. As objects, each turn cost a Turn, a
RequestFacts, a ResponseFacts and a dozen int and str objects (about 1.1 kB a turn). Here
each number is one slot of a stdlib `array` at the narrowest item size its values so far
need (1, 2, 4 or 8 bytes: a column starts at 1 and is replaced by a wider copy when a value
does not fit, see `wider`), each repeated string or tuple (model,
status, conversation id, item kinds) is a number into one shared pool, and each string
that differs on every turn (response id, user text excerpt) sits in a byte buffer with its
offset. The rare things (hosted calls, the seldom-set `extra` facts, notes, attempts) are
dicts keyed by row. What the objects inventory reads in a turn's record bytes (the vector
store and file ids they quote, the response's `created_at`) is found when the line is read
(capture/scan.py) and kept here too, so that pass never reads the file again (`seen`).

Nothing here is read by screens or reports directly: `traceview.capture.model` gives each
turn a small view (`turn.req.input_count`, `turn.res.status`) that reads its row.

Columns are also what a worker process sends back (capture/parallel.py): arrays pickle as
raw bytes, and `extend` appends a worker's rows to the main table in one copy per column.

A column widened is a new array object: whoever binds columns once (analysis/columns.py)
compares `TurnTable.version` (bumped on every widening) to rebind them.
"""

from __future__ import annotations

import weakref
from array import array
from typing import Any

# A count outside 0 … LIMIT - 1 (negative, or absurd in a damaged capture) reads back as
# unknown: no real token, byte or millisecond count comes near it.
LIMIT = (1 << 40) - 2
UNKNOWN = -1  # a count column's "None"
# raw_created_at's "None": the pattern that finds one (scan.CREATED) matches no sign, so no
# found value is negative (and, unlike NaN, it compares equal to itself).
NO_CREATED = -1.0
_EXACT = 1 << 53  # every whole float below this is an int that converts back exactly


def created(value: float | None) -> int | float:
    """raw_created_at as stored: its whole seconds as an int when it is whole (nearly
    always: 4 bytes a row, not a double's 8; read back with float()), else the float (the
    column becomes doubles)."""
    if value is None:
        return -1
    if type(value) is int:
        return value if 0 <= value < _EXACT else float(value)
    return int(value) if value.is_integer() and 0 <= value < _EXACT else value


def _typecode(candidates: str, size: int) -> str:
    """The first of `candidates` whose items take `size` bytes here ('i' is 4 bytes on every
    platform CPython runs on, but the C standard only promises 2; 'l' is 4 on Windows)."""
    for code in candidates:
        if array(code).itemsize == size:
            return code
    raise RuntimeError(f"no array typecode of {size} bytes among {candidates!r}")


# Item sizes a column steps through as its values grow: 1, 2, 4, 8 bytes.
SIGNED = (_typecode("b", 1), _typecode("h", 2), _typecode("il", 4), _typecode("ql", 8))
UNSIGNED = (_typecode("B", 1), _typecode("H", 2), _typecode("IL", 4), _typecode("QL", 8))


def wider(col: Any, *values: int) -> array:
    """A copy of `col` in the narrowest typecode of its kind (signed, unsigned) that holds
    `values` too: what a column becomes when a value overflows it. A bytearray (a pooled
    column's first form, see Side) widens to 2-byte signed items."""
    if any(type(v) is float for v in values):  # raw_created_at's rare fraction
        return array("d", col)
    if type(col) is bytearray:
        ladder, above, items = SIGNED, 0, iter(col)  # iter: not the bytes as raw items
    else:
        ladder = SIGNED if col.typecode in SIGNED else UNSIGNED
        above, items = ladder.index(col.typecode), col
    for code in ladder[above + 1:]:
        try:
            array(code, values)
        except OverflowError:
            continue
        return array(code, items)
    raise OverflowError(f"{values} does not fit an 8-byte column")


def itemsize(col: Any) -> int:
    """Bytes an item of a column takes (a bytearray's: 1)."""
    return 1 if type(col) is bytearray else col.itemsize


def fits(col: Any, value: int) -> bool:
    """Whether `value` can be stored in `col` as it is."""
    if type(col) is bytearray:
        return 0 <= value < 256
    try:
        array(col.typecode, (value,))
    except OverflowError:
        return False
    return True


def joined(mine: Any, theirs: Any) -> tuple[Any, Any]:
    """`mine` (widened if `theirs` is wider) and `theirs` (converted if narrower) in one
    typecode, ready for `mine.extend(theirs)` (bytearrays only with bytearrays: extending
    one with an array would add the array's raw bytes)."""
    if type(mine) is bytearray or type(theirs) is bytearray:
        if type(mine) is type(theirs):
            return mine, theirs
        if type(mine) is bytearray:
            return array(theirs.typecode, iter(mine)), theirs
        return mine, array(mine.typecode, iter(theirs))
    if theirs.typecode == mine.typecode:
        return mine, theirs
    if "d" in (mine.typecode, theirs.typecode):  # whole seconds beside fractions: doubles
        return (mine if mine.typecode == "d" else array("d", mine),
                theirs if theirs.typecode == "d" else array("d", theirs))
    if theirs.itemsize > mine.itemsize:
        return array(theirs.typecode, mine), theirs
    return mine, array(mine.typecode, theirs)


def _renumbered(numbers: Any, to_mine: list[int], table: bytes | None) -> tuple[int, Any]:
    """A worker's pool numbers (`numbers`: a bytearray or an array) as this pool's
    (`to_mine`), and the largest of them: a bytearray through `table` (bytes.translate)
    when every one maps under 256, else a list."""
    if not numbers:
        return 0, b""
    if table is not None and type(numbers) is bytearray:
        used = set(numbers)
        top = max(to_mine[n] for n in used)
        if top < 256:
            return top, numbers.translate(table)
    mapped = list(map(to_mine.__getitem__, numbers))
    return max(mapped), mapped


class Layout:
    """How many times a column of a table (its sides, its texts) has been replaced by a
    wider copy: a binding of the columns made at another version is stale."""

    __slots__ = ("version",)

    def __init__(self) -> None:
        self.version = 0


def count(value: int | None) -> int:
    """A nullable count as stored: the value, or UNKNOWN when missing or unusable."""
    return value if value is not None and 0 <= value < LIMIT else UNKNOWN


def count0(value: int | None) -> int:
    """A count whose absence means 0, as stored."""
    return value if value is not None and 0 <= value < LIMIT else 0


def _usable(v: Any) -> bool:
    return 0 <= v < LIMIT


def _usable_not_0(v: Any) -> bool:
    return 0 < v < LIMIT


def _any(v: Any) -> bool:
    return True


# How a SPARSE field's value is judged set (None never is), by the name Side.SPARSE gives.
SET = {"count": _usable, "count0": _usable_not_0, "value": _any, "truthy": bool}


class Pool:
    """Interned values (strings, tuples of strings): each distinct value stored once, rows
    hold its number. Number 0 is None."""

    __slots__ = ("values", "numbers")

    def __init__(self) -> None:
        self.values: list[Any] = [None]
        self.numbers: dict[Any, int] = {None: 0}

    def number(self, value: Any) -> int:
        n = self.numbers.get(value)
        if n is None:
            n = self.numbers[value] = len(self.values)
            self.values.append(value)
        return n

    def mapping(self, other: Pool) -> list[int]:
        """Each of `other`'s numbers as this pool's number (for appending its rows)."""
        return [self.number(v) for v in other.values]


class Texts:
    """Strings that differ on every row, as UTF-8 in one buffer: start and length per row
    (length -1: None). Reading one decodes it again, which is cheap for short strings.
    Starts and lengths take as few bytes as the largest needs (see `wider`): a column that
    is None on every row keeps 1-byte starts, a buffer under 4 GB 4-byte ones."""

    __slots__ = ("buf", "starts", "lens", "last", "layout")

    def __init__(self, layout: Layout | None = None) -> None:
        self.buf = bytearray()
        self.starts = array(UNSIGNED[0])
        self.lens = array(SIGNED[0])
        self.last: tuple[int, str | None] = (-1, None)  # the last row read, decoded
        self.layout = layout if layout is not None else Layout()

    def _put(self, name: str, row: int | None, n: int) -> None:
        """Append (row None) or set a start or length, widening its column if needed."""
        col = getattr(self, name)
        try:
            if row is None:
                col.append(n)
            else:
                col[row] = n
            return
        except OverflowError:
            pass
        col = wider(col, n)
        setattr(self, name, col)
        self.layout.version += 1
        if row is None:
            col.append(n)
        else:
            col[row] = n

    def append(self, text: str | None) -> None:
        if text is None:
            self.starts.append(0)
            self.lens.append(-1)
            return
        try:
            raw = text.encode()  # naming no error handler: two thirds of the time
        except UnicodeEncodeError:  # a lone surrogate, stored as it came
            raw = text.encode("utf-8", "surrogatepass")
        start, n = len(self.buf), len(raw)
        try:
            self.starts.append(start)
        except OverflowError:
            self._put("starts", None, start)
        try:
            self.lens.append(n)
        except OverflowError:
            self._put("lens", None, n)
        self.buf += raw

    def get(self, row: int) -> str | None:
        last = self.last
        if last[0] == row:  # read again (a report reads a turn's id several times)
            return last[1]
        n = self.lens[row]
        if n < 0:
            return None
        s = self.starts[row]
        raw = self.buf[s:s + n]
        try:
            text = raw.decode()  # the fast path: no error handler named
        except UnicodeDecodeError:  # a lone surrogate, stored as it came
            text = raw.decode("utf-8", "surrogatepass")
        self.last = (row, text)
        return text

    def set(self, row: int, text: str | None) -> None:
        """Replace a row's text (rare): the new bytes go at the end, the old stay unused."""
        self.last = (-1, None)
        if text is None:
            self.lens[row] = -1
            return
        raw = text.encode("utf-8", "surrogatepass")
        self._put("starts", row, len(self.buf))
        self._put("lens", row, len(raw))
        self.buf += raw

    def extend(self, other: Texts) -> None:
        base = len(self.buf)
        self.buf += other.buf
        if len(other.starts):
            # A None row's start stays 0: a column of Nones keeps 1-byte starts.
            if not base:
                shifted: Any = other.starts
            elif -1 not in other.lens:  # no None: every start shifted, in C
                shifted = list(map(base.__add__, other.starts))
            elif not other.buf and max(other.lens) < 0:  # only Nones: starts stay 0
                shifted = other.starts
            else:
                shifted = [s + base if n >= 0 else 0
                           for s, n in zip(other.starts, other.lens, strict=True)]
            top = base + max(other.starts)
            try:
                array(self.starts.typecode, (top,))
            except OverflowError:
                self.starts = wider(self.starts, top)
                self.layout.version += 1
            self.starts.extend(array(self.starts.typecode, shifted))
        lens, theirs = joined(self.lens, other.lens)
        if lens is not self.lens:
            self.lens = lens
            self.layout.version += 1
        lens.extend(theirs)


class Side:
    """The columns of one side of a turn (its request's facts, or its response's).

    A subclass names its fields in five groups: COUNTS (number, and whether None is
    possible), POOLED (repeated values), TEXTS (values unique to a row), FLAGS (booleans,
    one bit each), and SPARSE: values most rows lack, kept in a dict by row only where set
    (name, default, and how a value is judged set: "count" a usable nullable count, "count0"
    a usable count other than 0, "value" anything but None, "truthy" a non-empty value).
    `add` stores one plain facts record (model.RequestFacts / ResponseFacts) as a new row."""

    COUNTS: tuple[tuple[str, bool], ...] = ()
    POOLED: tuple[str, ...] = ()
    TEXTS: tuple[str, ...] = ()
    FLAGS: tuple[str, ...] = ()
    SPARSE: tuple[tuple[str, Any, str], ...] = (("extra", None, "truthy"),)

    def __init__(self, pool: Pool, layout: Layout | None = None) -> None:
        self.pool = pool
        self.layout = layout if layout is not None else Layout()
        self.cols: dict[str, Any] = getattr(self, "cols", {})  # a subclass's own, made first
        # Counts hold UNKNOWN (-1): signed, from 1 byte. Pool numbers start as a bytearray
        # (0 … 255; its append costs half an array's of 1 or 2 bytes, which CPython parses
        # the slow way) and widen to 2-byte signed items, and on.
        for name, _ in self.COUNTS:
            self.cols[name] = array(SIGNED[0])
        for name in self.POOLED:
            self.cols[name] = bytearray()
        for name in self.TEXTS:
            self.cols[name] = Texts(self.layout)
        self.flags = array("h")  # up to 15 flags; 'h' appends faster than 'H
        self.dicts: dict[str, Any] = {name: self._sparse(name) for name, _, _ in self.SPARSE}
        self._bind()

    def _sparse(self, name: str) -> Any:
        """The store of a SPARSE field: a dict by row (a subclass may give a store of its
        own that reads like one)."""
        return {}

    # Columns a subclass appends beside the groups: (column, statements over the facts `f`
    # that set the value `v`).
    OWN: tuple[tuple[str, str], ...] = ()

    def _bind(self) -> None:
        # `add` as straight-line code made once per class from the field lists (a loop over
        # the fields, with a getter and a test per field, cost twice as much a row).
        make = type(self).__dict__.get("_make_add")
        if make is None:
            make = _adder(type(self))
            type(self)._make_add = make  # type: ignore[attr-defined]
        cols = self.cols
        # Each column and dict also as an attribute (`_c_model`, `_d_extra`) and the pool's
        # values as `_pv`: what the row views (capture/model.py) read, one lookup fewer a read.
        for name, col in cols.items():
            setattr(self, "_c_" + name, col)
        for name, d in self.dicts.items():
            setattr(self, "_d_" + name, d)
        self._pv = self.pool.values
        self._add = make(
            self,
            [cols[n].append for n, _ in self.COUNTS], [cols[n].append for n in self.POOLED],
            [cols[n] for n in self.TEXTS], self.flags.append,
            [self.dicts[n] for n, _, _ in self.SPARSE], [cols[n].append for n, _ in self.OWN],
            _weak_grow(self))

    def _replace(self, name: str, col: array) -> None:
        self.cols[name] = col
        self.layout.version += 1
        self._bind()  # `add` appends to the new column from the next row on

    def grow(self, name: str, value: int) -> None:
        """Append `value` to column `name` after widening it (it did not fit). The `add`
        running goes on with the rest of its row (its other columns are unchanged); the
        next row is added by one made for the new column."""
        col = wider(self.cols[name], value)
        self._replace(name, col)
        col.append(value)

    def put(self, name: str, row: int, value: int) -> None:
        """Set one number of column `name` (a view's write), widening it when needed."""
        col = self.cols[name]
        try:
            col[row] = value
        except (OverflowError, ValueError, TypeError):  # a bytearray's; a float in ints
            col = wider(col, value)
            self._replace(name, col)
            col[row] = value

    def _join(self, name: str, theirs: array) -> None:
        mine, theirs = joined(self.cols[name], theirs)
        if mine is not self.cols[name]:
            self._replace(name, mine)
        mine.extend(theirs)

    @property
    def rows(self) -> int:
        """Rows stored: every row has its flags, and nothing else appends one."""
        return len(self.flags)

    def __getstate__(self) -> dict[str, Any]:
        """What a worker sends: the columns, not the bound helpers (made again on arrival)."""
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()

    def add(self, facts: Any) -> int:
        """Store a plain facts record as a new row; its row number. The work is the
        straight-line function `_adder` made for this side's columns (`_add`); a method
        here, so a profiler or bench/floors.py can wrap it like any other."""
        return self._add(facts)

    def extend(self, other: Side) -> int:
        """Append every row of `other` (a worker's chunk); the row number of its first."""
        base = len(self.flags)
        cols, theirs = self.cols, other.cols
        for name, _ in self.COUNTS:
            self._join(name, theirs[name])
        to_mine = self.pool.mapping(other.pool)
        # Numbers that all stay under 256, here and there, are renumbered by one
        # bytes.translate (in C); others through a map (`renumbered`).
        table = bytes(n if n < 256 else 0 for n in to_mine[:256]).ljust(256, b"\0") \
            if len(to_mine) < 256 or max(to_mine[:256]) < 256 else None
        for name in self.POOLED:
            col = cols[name]
            top, mapped = _renumbered(theirs[name], to_mine, table)
            # `top`: this column's own largest, so most columns stay 1 byte.
            if not fits(col, top):
                col = wider(col, top)
                self._replace(name, col)
            if type(col) is bytearray:
                col.extend(mapped)
            else:  # iter: a bytearray given whole would be read as raw items
                col.extend(array(col.typecode, iter(mapped) if type(mapped) is bytearray
                                 else mapped))
        for name in self.TEXTS:
            cols[name].extend(theirs[name])
        self.flags.extend(other.flags)
        for name, d in self.dicts.items():
            if type(d) is not dict:  # a store of its own (calls.Calls)
                d.extend(other.dicts[name], base, to_mine)
                continue
            for row, v in other.dicts[name].items():
                d[row + base] = v
        return base

    def nbytes(self) -> int:
        """Bytes the columns hold (buffers, not the dicts of rare values)."""
        n = self.flags.itemsize * len(self.flags)
        for col in self.cols.values():
            if isinstance(col, Texts):
                n += len(col.buf) + col.starts.itemsize * len(col.starts) \
                    + col.lens.itemsize * len(col.lens)
            else:
                n += itemsize(col) * len(col)
        return n


class RequestSide(Side):
    COUNTS = (("request_bytes", True), ("input_bytes", False), ("new_input_tokens", False),
              ("input_count", False), ("user_words", True))
    POOLED = ("api", "model", "conversation_id", "include", "tools_offered", "quoted_ids")
    # user_text: the first USER_TEXT_MAX characters; the "…" that marks a cut is added
    # where the text is read.
    TEXTS = ("previous_response_id", "user_text")
    FLAGS = ("compaction_input", "compaction_trigger", "context_management", "stream",
             "background", "store_set", "store_value", "instructions", "has_sig", "scanned",
             "raw_store_set", "raw_store_value")
    # first_user_sig is a 64-bit signature: its own unsigned column, set when has_sig.
    SPARSE = (("extra", None, "truthy"), ("truncation", None, "value"))
    # A flag read as this code over the facts `f` (not a property call a row).
    FLAG_CODE = {"has_sig": "f.first_user_sig is not None"}

    OWN = (("first_user_sig", "v = f.first_user_sig or 0"),)

    def __init__(self, pool: Pool, layout: Layout | None = None) -> None:
        self.cols = {"first_user_sig": array("Q")}
        super().__init__(pool, layout)

    def extend(self, other: Side) -> int:
        self._join("first_user_sig", other.cols["first_user_sig"])
        return super().extend(other)


class ResponseSide(Side):
    COUNTS = (("input_tokens", True), ("cached_tokens", True), ("output_tokens", True),
              ("reasoning_tokens", True), ("elapsed_ms", True), ("output_bytes", False),
              ("started_at", True))
    POOLED = ("object", "status", "model", "conversation_id", "output_types", "service_tier",
              "fingerprint", "quoted_ids")
    TEXTS = ("response_id",)
    FLAGS = ("compaction_output", "stream_cut", "store_set", "store_value", "refusal",
             "scanned")
    SPARSE = (("extra", None, "truthy"), ("hosted_calls", (), "truthy"),
              ("input_transformations", 0, "count0"), ("http_status", None, "count"),
              ("stream_events", None, "count"), ("web_search_requests", None, "count"),
              ("file_search_requests", None, "count"), ("cache_miss_reason", None, "value"),
              ("incomplete_reason", None, "value"), ("error", None, "value"),
              ("error_code", None, "value"))

    # scan.created_in gives whole seconds as an int: stored as they come.
    OWN = (("raw_created_at", "v = f.raw_created_at\n"
                              "if v is None:\n    v = -1\n"
                              "elif v.__class__ is not int:\n    v = created(v)"),)

    def __init__(self, pool: Pool, layout: Layout | None = None) -> None:
        # Whole seconds, -1: none found (see `created`); doubles once one has a fraction.
        self.cols = {"raw_created_at": array(SIGNED[0])}
        super().__init__(pool, layout)

    def _sparse(self, name: str) -> Any:
        if name == "hosted_calls":  # in columns of their own: capture/calls.py
            from traceview.capture.calls import Calls

            return Calls(self.pool, self.layout)
        return {}

    def extend(self, other: Side) -> int:
        self._join("raw_created_at", other.cols["raw_created_at"])
        return super().extend(other)


class Facts:
    """A request side and a response side sharing one pool: what a worker sends back for
    its chunk, and what the main table keeps."""

    __slots__ = ("pool", "layout", "requests", "responses")

    def __init__(self) -> None:
        self.pool = Pool()
        self.layout = Layout()
        self.requests = RequestSide(self.pool, self.layout)
        self.responses = ResponseSide(self.pool, self.layout)

    @property
    def version(self) -> int:
        """Bumped whenever a column is replaced by a wider copy (see Layout)."""
        return self.layout.version


class TurnTable(Facts):
    """Every turn of a capture: where its records are, its index and API, and which row of
    each side holds its facts (-1: that side is missing)."""

    __slots__ = ("index", "source", "api", "line", "req_source", "req_offset", "req_length",
                 "res_source", "res_offset", "res_length", "res_line", "req_row", "res_row",
                 "notes", "attempts", "last_req", "last_res")

    # Every number column, each widened alone as its values grow (see `wider`); all signed
    # (-1: none; `api`, a pool number, is signed for speed as a side's pooled columns).
    COLUMNS = ("index", "source", "api", "line", "req_source", "req_offset", "req_length",
               "res_source", "res_offset", "res_length", "res_line", "req_row", "res_row")

    def __init__(self) -> None:
        super().__init__()
        small = SIGNED[0]
        self.index = array(small)
        self.source = array(small)
        self.api = array(SIGNED[0])
        self.line = array(small)  # the request's line when there is one, else the turn's own
        self.req_source = array(small)  # -1: no request record
        self.req_offset = array(small)
        self.req_length = array(small)  # a record is at most MAX_LINE_BYTES
        self.res_source = array(small)  # -1: no response record
        self.res_offset = array(small)
        self.res_length = array(small)
        self.res_line = array(small)
        self.req_row = array(small)
        self.res_row = array(small)
        self.notes: dict[int, tuple[str, ...]] = {}
        self.attempts: dict[int, tuple[Any, ...]] = {}
        self.last_req: Any = None  # the last row views made (model.Turn.req / .res)
        self.last_res: Any = None

    def __len__(self) -> int:
        return len(self.index)

    def put(self, name: str, row: int, value: int) -> None:
        """Set one number of column `name`, widening the column when it does not fit."""
        col = getattr(self, name)
        try:
            col[row] = value
        except OverflowError:
            col = wider(col, value)
            setattr(self, name, col)
            self.layout.version += 1
            col[row] = value

    def append_row(self, row: int, values: tuple[int, ...]) -> None:
        """Make row `row` from one value per column of COLUMNS, widening the columns that
        need it: the slow path of a row whose quick appends overflowed (model.Turn), which
        first drops whatever part of the row those appends made."""
        for name, value in zip(self.COLUMNS, values, strict=True):
            col = getattr(self, name)
            del col[row:]
            try:
                col.append(value)
            except OverflowError:
                col = wider(col, value)
                setattr(self, name, col)
                self.layout.version += 1
                col.append(value)

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
        when = None
        store = None
        line = None
        facts_store = 0
        values = self.pool.values
        if self.res_source[r] >= 0:
            line = self.res_line[r]
            row = self.res_row[r]
            side = self.responses
            if row < 0:
                return None
            bits = side.flags[row]
            if not bits & _RES_SCANNED:
                return None
            res_ids = values[side.cols["quoted_ids"][row]]
            c = side.cols["raw_created_at"][row]
            when = None if c == NO_CREATED else float(c)
            facts_store = bits & _RES_FACTS_STORE
        if self.req_source[r] >= 0:
            row = self.req_row[r]
            side = self.requests
            if row < 0:
                return None
            bits = side.flags[row]
            if not bits & _REQ_SCANNED:
                return None
            req_ids = values[side.cols["quoted_ids"][row]]
            if bits & _REQ_STORE_SET:
                store = bool(bits & _REQ_STORE_VALUE)
            facts_store |= bits & _REQ_FACTS_STORE
        if store is None and not facts_store and line is not None and \
                values[self.api[r]] == "responses" and \
                self.responses._c_response_id.lens[self.res_row[r]] > 0:
            return None
        return req_ids, res_ids, when, store, line

    def nbytes(self) -> int:
        """Bytes held by the columns (not the dicts of rare values, nor the string pool)."""
        n = self.requests.nbytes() + self.responses.nbytes()
        for name in self.COLUMNS:
            col = getattr(self, name)
            n += col.itemsize * len(col)
        return n


def _weak_grow(side: Side) -> Any:
    """`side.grow` through a weak reference: the made `add` must hold no reference to its
    side (see `_adder`)."""
    ref = weakref.ref(side)

    def grow(name: str, value: int) -> Any:
        return ref().grow(name, value)  # type: ignore[union-attr]

    return grow


def flag_bit(side: type[Side], name: str) -> int:
    """The mask of a flag in its side's flags column."""
    return 1 << side.FLAGS.index(name)


_REQ_SCANNED = flag_bit(RequestSide, "scanned")
_REQ_STORE_SET = flag_bit(RequestSide, "raw_store_set")
_REQ_STORE_VALUE = flag_bit(RequestSide, "raw_store_value")
_RES_SCANNED = flag_bit(ResponseSide, "scanned")
_REQ_FACTS_STORE = flag_bit(RequestSide, "store_set")
_RES_FACTS_STORE = flag_bit(ResponseSide, "store_set")


# How `add` judges a SPARSE value set, as code over `v` (see SET).
_SET_CODE = {"count": "0 <= v < LIMIT", "count0": "0 < v < LIMIT", "value": "True",
             "truthy": "v"}


def _adder(side: type[Side]) -> Any:
    """The source of `side`'s `add`, compiled: one line per field, in the groups' order."""
    if len(side.FLAGS) > 15:
        raise ValueError(f"{side.__name__}: more flags than a 2-byte signed column holds")
    # The made `add` holds no reference to the side (its row number is the flags column's
    # length): a worker's chunk, appended and dropped, is freed at once, not by the cycle
    # collector (which left dozens of them, ~10 MB, alive in a 200 MB load).
    lines = ["def make(self, C, P, T, flag_append, D, O, grow):",
             "    pool = self.pool",
             "    len_flags = self.flags.__len__",
             "    known = pool.numbers.get",
             "    number = pool.number",
             *(f"    c{i} = C[{i}]" for i in range(len(side.COUNTS))),
             *(f"    p{i} = P[{i}]" for i in range(len(side.POOLED))),
             *(f"    t{i} = T[{i}]" for i in range(len(side.TEXTS))),
             *(f"    d{i} = D[{i}]" for i in range(len(side.SPARSE))),
             *(f"    o{i} = O[{i}]" for i in range(len(side.OWN))),
             "    def add(f):",
             "        row = len_flags()"]
    body = lines.append
    for i, (name, code) in enumerate(side.OWN):
        for line in code.splitlines():
            body("        " + line)
        body("        try:")
        body(f"            o{i}(v)")
        body("        except (OverflowError, TypeError):")  # TypeError: a float in ints
        body(f"            grow({name!r}, v)")
    # A value that does not fit its column widens it (`grow`), a few times a column at
    # most: a `try` costs nothing until it catches.
    for i, (name, nullable) in enumerate(side.COUNTS):
        body(f"        v = f.{name}")
        none = UNKNOWN if nullable else 0
        body(f"        v = v if v is not None and 0 <= v < LIMIT else {none}")
        body("        try:")
        body(f"            c{i}(v)")
        body("        except OverflowError:")
        body(f"            grow({name!r}, v)")
    for i, name in enumerate(side.POOLED):
        body(f"        v = f.{name}")
        body("        n = known(v)")
        body("        if n is None:")
        body("            n = number(v)")
        body("        try:")
        body(f"            p{i}(n)")
        body("        except (ValueError, OverflowError):")  # a bytearray past 255; then 32767
        body(f"            grow({name!r}, n)")
    # Texts.append, written out (a call per text a row cost a tenth of the row): the
    # columns read from the Texts on each row, which replaces one it widens.
    for i, name in enumerate(side.TEXTS):
        body(f"        v = f.{name}")
        body("        if v is None:")
        body(f"            t{i}.starts.append(0)")
        body(f"            t{i}.lens.append(-1)")
        body("        else:")
        body("            try:")
        body("                raw = v.encode()")
        body("            except UnicodeEncodeError:")
        body("                raw = v.encode('utf-8', 'surrogatepass')")
        body(f"            buf = t{i}.buf")
        body("            try:")
        body(f"                t{i}.starts.append(len(buf))")
        body("            except OverflowError:")
        body(f"                t{i}._put('starts', None, len(buf))")
        body("            try:")
        body(f"                t{i}.lens.append(len(raw))")
        body("            except OverflowError:")
        body(f"                t{i}._put('lens', None, len(raw))")
        body("            buf += raw")
    body("        bits = 0")
    flag_code = getattr(side, "FLAG_CODE", {})
    for i, name in enumerate(side.FLAGS):
        body(f"        if {flag_code.get(name, 'f.' + name)}:")
        body(f"            bits |= {1 << i}")
    body("        flag_append(bits)")
    for i, (name, _, how) in enumerate(side.SPARSE):
        body(f"        v = f.{name}")
        body(f"        if v is not None and ({_SET_CODE[how]}):")
        body(f"            d{i}[row] = v")
    body("        return row")
    body("    return add")
    ns: dict[str, Any] = {"LIMIT": LIMIT, "created": created}
    exec(compile("\n".join(lines), f"<{side.__name__}.add>", "exec"), ns)  # noqa: S102
    return ns["make"]
