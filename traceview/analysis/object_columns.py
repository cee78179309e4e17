"""The objects inventory's turn pass over whole columns, for the usual capture.

The inventory (analysis/objects.py) reads, for each turn, what its lines' facts found in
the records' bytes (the quoted vector store and file ids, the response's `created_at`, a
store flag: capture/scan.py, kept in the turn table) and its conversation id, response id
and store flag. Done turn by turn, that is a Python loop with a dozen calls a turn: ~6 us a
turn, 1.5 s for the 244,000 turns of a 1 GB hosted capture, run alone at the end of the
load. Here the same values are read a column at a time — slices of the table's arrays,
C-level `map`/`compress`, tests over a column's bytes — grouped by the few distinct values
a hosted capture repeats (one tuple of ids on every turn, one conversation per run of a
few turns), and each object is made once from its group of turns.

Only for the capture whose turns ask nothing of the general loop: the analysis's turns
over one table, every record scanned when it was read, no previous_response_id, no
response id named by an exchange or given twice, a store flag for every stored response.
Anything else — and turns made some other way — takes the general loop, which gives the
same inventory (tests/core/test_objects_columns.py compares the two on every fixture).
Every transient here is an array of the column's item size: the pass runs while the whole
capture is held, at the load's peak memory.
"""

from __future__ import annotations

import collections
import itertools
import sys
from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import compress
from operator import add, and_, lt, ne
from typing import Any

from traceview.analysis.columns import (
    Q_STORE_SET,
    Q_STORE_VALUE,
    S_STORE_SET,
    S_STORE_VALUE,
)
from traceview.capture.table import RequestSide, ResponseSide, flag_bit

# A quoted id's kind by its first three bytes (capture/scan.IDS finds only these).
KIND_OF = {b"vs_": "vector_store", b"fil": "file"}
MAX_LINES = 20  # as objects.MAX_LINES: used-on lines kept per object
_Q_SCANNED = flag_bit(RequestSide, "scanned")
_Q_RAW_SET = flag_bit(RequestSide, "raw_store_set")
_Q_RAW_VALUE = flag_bit(RequestSide, "raw_store_value")
_S_SCANNED = flag_bit(ResponseSide, "scanned")
_NONE = -1.0  # raw_created_at's "none found" (a float: the column may hold either)
_WHOLE_LIMIT = 0xFFFFFFFF  # _ResponseRows' 4-byte created_at holds less (objects.py)
_FEW = 16  # distinct keys found by one pass each up to this; by their runs beyond it
is_row = (-1).__lt__  # a row number: not -1
_found = _NONE.__ne__  # a created_at found
# A pass over every row in one C call holds the GIL throughout: on a 244,000-turn capture
# the response ids' checks held it 78 and 147 ms, while the inspector's event loop (another
# thread of this process) could not answer a key. Slices of this many rows let it in
# between them (~2 ms each).
_SLICE = 4096
_non_empty = (0).__lt__  # a text's length: not None (-1), not ""

Positions = range | array  # positions in report order: a run, or any


def table_of(turns: Sequence[Any]) -> Any:
    """The one turn table the turns are the analysis's rows of (analysis/reports.py), or
    None (a list of views, turns of several tables)."""
    parts = getattr(turns, "_parts", None)
    if type(parts) is not list or len(parts) != 1 or not hasattr(turns, "rows"):
        return None
    table = getattr(parts[0], "table", None)
    return table if hasattr(table, "res_row") else None


def column(col: Any, rows: Sequence[int]) -> Sequence[Any]:
    """`col` read at each of `rows`: the column itself when they are all its rows in
    order (the usual case), else a copy of the same item size."""
    if type(rows) is range and rows.start == 0 and rows.step == 1:
        return col if rows.stop == len(col) else col[:rows.stop]
    return _like(col, map(col.__getitem__, rows))


def through(col: Any, rows: Sequence[int], missing: int,
            same: bool | None = None) -> Sequence[Any]:
    """`col` at each of `rows` (another side's row numbers), `missing` where a row is -1
    (a side the turn lacks); of the column's item size. `same`: whether the rows are
    0 … n-1 (found here when not given): then a slice."""
    if identity(rows) if same is None else same:
        return column(col, range(len(rows)))
    ext = col[:]  # a copy with `missing` at its end: -1 reads it
    ext.append(missing)
    return _like(ext, map(ext.__getitem__, rows))


def _like(col: Any, items: Iterable[Any]) -> Sequence[Any]:
    return array(col.typecode, items) if type(col) is array else bytearray(items)


def identity(rows: Sequence[int]) -> bool:
    """Whether `rows` are 0 … n-1 (a side's rows made in turn order, as one file read
    straight through gives), compared as bytes."""
    n = len(rows)
    if type(rows) is range:
        return rows.start == 0 and rows.step == 1
    if type(rows) is not array or not n or rows[0] != 0 or rows[-1] != n - 1:
        return False
    return rows.tobytes() == array(rows.typecode, range(n)).tobytes()


def has_missing(rows: Sequence[int]) -> bool:
    """Whether row numbers (each -1 or more) hold a -1: its bytes, all ones, appear in the
    column's bytes only where a number is negative (a non-negative one's top byte is
    below 0x80). For a column of another kind, any -1 in it."""
    if type(rows) is array and rows.typecode in "bhilq":
        return b"\xff" * rows.itemsize in rows.tobytes()
    return -1 in rows


def every_row_has(flags: Any, bit: int) -> bool:
    """Whether `bit` is set in every row of a flags column: one AND of the column's bytes
    as an integer with the bit's pattern."""
    size = flags.itemsize if type(flags) is array else 1
    raw = flags.tobytes() if type(flags) is array else bytes(flags)
    mask = int.from_bytes(bit.to_bytes(size, sys.byteorder) * (len(raw) // size), "little")
    return int.from_bytes(raw, "little") & mask == mask


def pairs(a: Sequence[int], b: Sequence[int]) -> tuple[Sequence[int], dict[int, tuple[int,
                                                                                      int]]]:
    """One key per position for the pair (a[p], b[p]), and each key's pair: one of the
    columns itself when the other holds one value (as a hosted capture's do)."""
    one_b = set(b)
    if not one_b:
        return a, {}
    if len(one_b) == 1:
        (y,) = one_b
        return a, {x: (x, y) for x in set(a)}
    one_a = set(a)
    if len(one_a) == 1:
        (x,) = one_a
        return b, {y: (x, y) for y in one_b}
    width = max(one_b) + 1
    keys = array("q", map(add, map(width.__mul__, a), b))
    return keys, {k: divmod(k, width) for k in set(keys)}


def groups(keys: Sequence[int], wanted: Iterable[int]) -> dict[int, Positions]:
    """The positions of each wanted key in `keys`, in order: a run as a range, else an
    array. One C-level pass a key for a few keys, else one pass over the runs of equal
    keys (a conversation's turns mostly follow each other)."""
    wanted = set(wanted)
    n = len(keys)
    if not n or not wanted:
        return {}
    distinct = set(keys)
    if len(distinct) == 1:
        return {k: range(n) for k in distinct & wanted}
    if len(wanted) <= _FEW:
        return {k: _run_or(array("I", compress(range(n), map(k.__eq__, keys))))
                for k in wanted}
    edges = [0, *compress(range(1, n), map(ne, keys[1:], keys)), n]
    runs: dict[int, list[range]] = {}
    for start, stop in zip(edges, edges[1:], strict=False):
        k = keys[start]
        if k in wanted:
            got = runs.get(k)
            if got is None:
                runs[k] = [range(start, stop)]
            else:
                got.append(range(start, stop))
    return {k: r[0] if len(r) == 1 else array("I", itertools.chain(*r))
            for k, r in runs.items()}


def _run_or(pos: array[int]) -> Positions:
    """Positions as a range when they are one run."""
    if pos and pos[-1] - pos[0] + 1 == len(pos):
        return range(pos[0], pos[-1] + 1)
    return pos


def _at(col: Sequence[Any], pos: Positions) -> Iterable[Any]:
    if type(pos) is range:
        return col[pos.start:pos.stop]
    return map(col.__getitem__, pos)


class TurnColumns:
    """The columns the pass reads, in report order (position p: the turn at rows[p])."""

    def __init__(self, table: Any, rows: Sequence[int]) -> None:
        self.table, self.rows = table, rows
        self.n = len(rows)
        self.values = table.pool.values
        self.index = column(table.index, rows)
        self.line = column(table.line, rows)
        self.qr = column(table.req_row, rows)
        self.sr = column(table.res_row, rows)

        self.q_same = identity(self.qr)
        # A file read straight through makes both sides' rows in turn order: one compare.
        self.s_same = self.q_same if type(self.sr) is type(self.qr) and \
            getattr(self.sr, "itemsize", 1) == getattr(self.qr, "itemsize", 1) and \
            bytes(self.sr) == bytes(self.qr) else identity(self.sr)

    def q(self, col: Any, missing: int) -> Sequence[Any]:
        """A request side column at each turn's request row."""
        return through(col, self.qr, missing, self.q_same)

    def s(self, col: Any, missing: int) -> Sequence[Any]:
        """A response side column at each turn's response row."""
        return through(col, self.sr, missing, self.s_same)

    def sides_whole(self) -> bool:
        """Each turn's record and its facts row go together (a record read, its facts
        stored), and every facts row was scanned when its line was read."""
        t = self.table
        for source, rows in ((t.req_source, self.qr), (t.res_source, self.sr)):
            source = column(source, self.rows)
            if (has_missing(source) or has_missing(rows)) and \
                    any(map(ne, map(is_row, source), map(is_row, rows))):
                return False
        return every_row_has(t.requests.flags, _Q_SCANNED) and \
            every_row_has(t.responses.flags, _S_SCANNED)


def fill(turns: Sequence[Any], table: Any, rows: Any, make: Callable[[str, str], Any],
         on_row: Callable[..., None] | None,
         on_rows: Callable[[Any, Sequence[int], bool], None] | None) -> bool | None:
    """Make the turns' objects with `make(kind, id)` (objects.inventory's `obj`: a new
    object, kept in its inventory) and their stored responses into `rows` (an empty
    objects._ResponseRows), telling `on_rows(table, rows, same)` (`same`: the turns'
    request rows are that side's rows 0 … n-1), else `on_row` each turn, that every turn
    was seen; return whether the rows were added in the listing's order.
    None, with nothing made: the general loop must read these turns."""
    c = TurnColumns(table, turns.rows())
    if c.n == 0 or not c.sides_whole():
        return None
    # The stored responses: turns of the responses API with a response id.
    ids = table.responses.cols["response_id"]
    picked = _picked(c, table.pool.numbers.get("responses"), ids)
    store = _stores(c, picked)
    if store is None:  # a turn the general loop reads again (TurnTable.seen's None)
        return None
    if not _unique(ids, c, picked):
        return None
    when = c.s(table.responses.cols["raw_created_at"], -1)
    if on_rows is not None:
        on_rows(table, c.rows, c.q_same)
    elif on_row is not None:
        values, qcol = c.values, table.requests.cols["quoted_ids"]
        for r, qi in zip(c.rows, c.qr, strict=True):
            on_row(table, r, None, values[qcol[qi]] if qi >= 0 else ())
    in_order = _add_rows(rows, c, picked, store, when)
    _conversations(c, when, make)
    _quoted(c, when, make)
    return in_order


def _picked(c: TurnColumns, responses: int | None, ids: Any) -> bytearray:
    """1 for each turn of the responses API with a (non-empty) response id."""
    if responses is None:
        return bytearray(c.n)
    api, lens = column(c.table.api, c.rows), c.s(ids.lens, -1)
    out = bytearray()
    for a in range(0, len(api), _SLICE):
        b = a + _SLICE
        out += bytearray(map(and_, map(responses.__eq__, api[a:b]),
                             map(_non_empty, lens[a:b])))
    return out


def _select(col: Sequence[Any], picked: bytearray, every: bool) -> Sequence[Any]:
    return col if every else _like(col, compress(col, picked))


def _stores(c: TurnColumns, picked: bytearray) -> bytearray | None:
    """Each picked turn's store flag — its request's facts, else its response's, else the
    flag its request's bytes hold — or None when one has none of the three. Worked out
    once per distinct pair of flags (a capture has a few)."""
    every = not picked.count(0)
    qf = _select(c.q(c.table.requests.flags, 0), picked, every)
    sf = _select(c.s(c.table.responses.flags, 0), picked, every)
    keys, of = pairs(qf, sf)
    value = {k: _store(*pair) for k, pair in of.items()}
    if 2 in value.values():
        return None
    if len(value) == 1:
        return bytearray(value.values()) * len(keys)
    return bytearray(map(value.__getitem__, keys))


def _store(q: int, s: int) -> int:
    if q & Q_STORE_SET:
        return 1 if q & Q_STORE_VALUE else 0
    if s & S_STORE_SET:
        return 1 if s & S_STORE_VALUE else 0
    if q & _Q_RAW_SET:
        return 1 if q & _Q_RAW_VALUE else 0
    return 2


def _unique(ids: Any, c: TurnColumns, picked: bytearray) -> bool:
    """No response id is given twice (the general loop then makes the rows objects):
    found without a set when the ids ascend (as generated ids do), else by their hashes
    (distinct hashes: distinct ids; a hash two ids share only sends the capture to the
    general loop, which gives the same inventory)."""
    every = not picked.count(0)
    rows = _select(c.sr, picked, every)
    if not rows:
        return True
    same = c.s_same and every
    if _ascending(_id_bytes(ids, rows, same)):
        return True
    seen: set[int] = set()
    items = _id_bytes(ids, rows, same)
    while block := list(itertools.islice(items, _SLICE)):
        seen.update(map(hash, map(bytes, block)))
    return len(seen) == len(rows)


def _ascending(items: Iterable[Any]) -> bool:
    """Whether each item is below the next, a slice at a time (see _SLICE)."""
    items = iter(items)
    last = next(items, None)
    while last is not None and (block := list(itertools.islice(items, _SLICE))):
        if not (last < block[0] and all(itertools.starmap(lt, itertools.pairwise(block)))):
            return False
        last = block[-1]
    return True


def _id_bytes(ids: Any, rows: Sequence[int], same: bool) -> Iterable[bytearray]:
    """The UTF-8 bytes of the texts at `rows` of a Texts column (capture/table.py), one
    at a time (a copy of them all was 50 bytes a turn at the load's peak): slices of the
    buffer at evenly spaced offsets when they are its rows 0 … n-1 (`same`), one after
    the other, of one length (the usual capture's response ids)."""
    buf, starts, lens = ids.buf, ids.starts, ids.lens
    n = len(rows)
    if same and len(set(lens[:n])) == 1:
        size, first = lens[0], starts[0]
        end = first + size * n
        if size > 0 and starts[n - 1] == end - size and starts[:n].tobytes() == \
                array(starts.typecode, range(first, end, size)).tobytes():
            return map(buf.__getitem__, map(slice, range(first, end, size),
                                            range(first + size, end + size, size)))
    begin = map(starts.__getitem__, rows)
    stop = map(add, map(starts.__getitem__, rows), map(lens.__getitem__, rows))
    return map(buf.__getitem__, map(slice, begin, stop))


def _add_rows(rows: Any, c: TurnColumns, picked: bytearray, store: bytearray,
              when: Sequence[Any]) -> bool:
    """Append the picked turns to `rows` (objects._ResponseRows) as its `add` would, and
    say whether their (line, id) keys ascend."""
    every = not picked.count(0)
    index = array("I", _select(c.index, picked, every))
    created = _select(when, picked, every)
    res_lines = _select(column(c.table.res_line, c.rows), picked, every)
    if type(created) is array and created.typecode not in "fd" and \
            (not created or max(created) < _WHOLE_LIMIT):
        rows.index = index
        rows.created = array("I", map(_WHOLE_LIMIT.__and__, created))  # -1: unknown
        rows.store = store
    else:  # fractions, or times past 2106: as `add` widens its column
        for i, v, s in zip(index, created, store, strict=True):
            rows.add(i, None if v == _NONE else float(v), bool(s))
    if all(map(lt, res_lines, res_lines[1:])):
        return True
    ids = c.table.responses.cols["response_id"]
    keys = [(line, ids.get(si)) for line, si in zip(res_lines, compress(c.sr, picked),
                                                    strict=True)]
    return keys[0] > (-1, "") and all(map(lt, keys, keys[1:]))


def _conversations(c: TurnColumns, when: Sequence[Any],
                   make: Callable[[str, str], Any]) -> None:
    """Each conversation a turn names (its request's, else its response's)."""
    values, req, res = c.values, c.table.requests, c.table.responses
    keys = asked = c.q(req.cols["conversation_id"], 0)
    falsy = [k for k in set(asked) if not values[k]]
    if falsy:  # no request, or one naming none: the response's
        answered = c.s(res.cols["conversation_id"], 0)
        keys = array("q", iter(asked))  # (a bytearray given whole reads as bytes)
        for k in falsy:
            for p in compress(range(c.n), map(k.__eq__, asked)):
                keys[p] = answered[p]
    named = {k for k in set(keys) if values[k]}
    for k, pos in groups(keys, named).items():
        o = _used(make("conversation", values[k]), c, pos, when)
        # The first turn's time (nearly always found), else the first found.
        first = when[pos[0]]
        if first == _NONE:
            first = next(filter(_found, _at(when, pos)), _NONE)
        if o.created_at is None and first != _NONE:
            o.created_at = float(first)


def _quoted(c: TurnColumns, when: Sequence[Any], make: Callable[[str, str], Any]) -> None:
    """Each vector store and file id a turn's records quote (request and response)."""
    values, req, res = c.values, c.table.requests, c.table.responses
    keys, of = pairs(c.q(req.cols["quoted_ids"], 0), c.s(res.cols["quoted_ids"], 0))
    named: dict[int, set[tuple[str, str]]] = {}
    for k, (q, s) in of.items():
        quoted = (*(values[q] or ()), *(values[s] or ()))
        if quoted:
            named[k] = {(KIND_OF[m[:3]], m.decode()) for m in quoted}
    users: dict[tuple[str, str], list[Positions]] = {}
    for k, pos in groups(keys, named).items():
        for obj in named[k]:
            users.setdefault(obj, []).append(pos)
    for (kind, oid), lists in users.items():
        _used(make(kind, oid), c, lists[0] if len(lists) == 1 else _merged(lists, len(keys)),
              when)


def _merged(lists: list[Positions], n: int) -> Positions:
    """The positions of disjoint `lists` (of positions below `n`), in order: marked in a
    byte a position and read back, in C. Sorting their concatenation made an int object a
    position (~36 bytes, where the result holds 4): on a hosted capture, whose vector
    store every turn quotes, that list was the objects pass's peak."""
    got = bytearray(n)
    for pos in lists:
        if type(pos) is range:
            got[pos.start:pos.stop] = b"\x01" * len(pos)
        else:
            collections.deque(map(got.__setitem__, pos, itertools.repeat(1)), 0)
    return _run_or(array("I", itertools.compress(range(n), got)))


def _used(o: Any, c: TurnColumns, pos: Positions, when: Sequence[Any]) -> Any:
    """`o` used once by each turn at `pos` (in order), as objects.inventory's `use`."""
    lines = c.line
    head = pos[:MAX_LINES]
    first = dict.fromkeys(_at(lines, head))
    if len(first) < MAX_LINES < len(pos):  # a line repeated: the first 20 distinct
        first = dict.fromkeys(itertools.islice(dict.fromkeys(_at(lines, pos)), MAX_LINES))
    o.uses += len(pos)
    try:  # 4 bytes a line, as objects.inventory leaves them (8 only when one needs it)
        o.used_lines = array("i", first)
    except OverflowError:
        o.used_lines = array("q", first)
    o.turns = array("I", _at(c.index, pos))
    times = when[pos.start:pos.stop] if type(pos) is range else array(
        when.typecode, map(when.__getitem__, pos))
    last = max(times, default=_NONE)
    o.last_used_at = None if last == _NONE else float(last)
    return o
